// A deliberately wrong plugin for kiln's --compare tests: "HalfWrongDoubler" computes y = 2x
// correctly in FP32, but its FP16 path adds 1 (y = 2x + 1), the kind of bug a plugin's reduced-
// precision kernel can carry unnoticed. Built with --fp16, the builder picks the FP16 path, and
// `kiln --compare=cpu` (whose reference is built in FP32) must catch it.
#include <NvInfer.h>
#include <kiln/HostPlugin.h>

#include <cmath>
#include <cstring>
#include <string>

namespace
{

using namespace nvinfer1;

float halfToFloat(uint16_t h)
{
    int const sign = (h >> 15) ? -1 : 1;
    int const exponent = (h >> 10) & 0x1F;
    int const mantissa = h & 0x3FF;
    if (exponent == 0)
    {
        return sign * std::ldexp(static_cast<float>(mantissa), -24);
    }
    return sign * std::ldexp(static_cast<float>(mantissa | 0x400), exponent - 25);
}

//! Truncating conversion: precise enough for a test whose error is +1.
uint16_t floatToHalf(float f)
{
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    uint32_t const sign = (bits >> 16) & 0x8000;
    int32_t const exponent = static_cast<int32_t>((bits >> 23) & 0xFF) - 127 + 15;
    if (exponent <= 0)
    {
        return static_cast<uint16_t>(sign);
    }
    return static_cast<uint16_t>(sign | (static_cast<uint32_t>(exponent) << 10) | ((bits & 0x7FFFFF) >> 13));
}

char const* const kName = "HalfWrongDoubler";
char const* const kVersion = "1";

class HalfWrongDoubler final : public IPluginV2DynamicExt, public kiln::IHostPlugin
{
public:
    IPluginV2DynamicExt* clone() const noexcept override
    {
        auto* copy = new HalfWrongDoubler();
        copy->setPluginNamespace(mNamespace.c_str());
        return copy;
    }
    DimsExprs getOutputDimensions(int32_t, DimsExprs const* inputs, int32_t, IExprBuilder&) noexcept override
    {
        return inputs[0];
    }
    bool supportsFormatCombination(int32_t pos, PluginTensorDesc const* inOut, int32_t, int32_t) noexcept override
    {
        bool const typeOk = inOut[pos].type == DataType::kFLOAT || inOut[pos].type == DataType::kHALF;
        return typeOk && inOut[pos].format == TensorFormat::kLINEAR && (pos == 0 || inOut[pos].type == inOut[0].type);
    }
    void configurePlugin(
        DynamicPluginTensorDesc const*, int32_t, DynamicPluginTensorDesc const*, int32_t) noexcept override
    {
    }
    size_t getWorkspaceSize(PluginTensorDesc const*, int32_t, PluginTensorDesc const*, int32_t) const noexcept override
    {
        return 0;
    }
    int32_t enqueue(PluginTensorDesc const*, PluginTensorDesc const*, void const* const*, void* const*, void*,
        cudaStream_t) noexcept override
    {
        return 1; // runs on Kiln's CPU backend only
    }
    int32_t enqueueHost(PluginTensorDesc const* inputDesc, PluginTensorDesc const*, void const* const* inputs,
        void* const* outputs, void*) noexcept override
    {
        int64_t count = 1;
        for (int32_t i = 0; i < inputDesc[0].dims.nbDims; ++i)
        {
            count *= inputDesc[0].dims.d[i];
        }
        if (inputDesc[0].type == DataType::kFLOAT)
        {
            auto const* x = static_cast<float const*>(inputs[0]);
            auto* y = static_cast<float*>(outputs[0]);
            for (int64_t i = 0; i < count; ++i)
            {
                y[i] = 2.0F * x[i];
            }
            return 0;
        }
        auto const* x = static_cast<uint16_t const*>(inputs[0]);
        auto* y = static_cast<uint16_t*>(outputs[0]);
        for (int64_t i = 0; i < count; ++i)
        {
            y[i] = floatToHalf(2.0F * halfToFloat(x[i]) + 1.0F); // the deliberate bug
        }
        return 0;
    }
    DataType getOutputDataType(int32_t, DataType const* inputTypes, int32_t) const noexcept override
    {
        return inputTypes[0];
    }
    AsciiChar const* getPluginType() const noexcept override
    {
        return kName;
    }
    AsciiChar const* getPluginVersion() const noexcept override
    {
        return kVersion;
    }
    int32_t getNbOutputs() const noexcept override
    {
        return 1;
    }
    int32_t initialize() noexcept override
    {
        return 0;
    }
    void terminate() noexcept override { }
    size_t getSerializationSize() const noexcept override
    {
        return 0;
    }
    void serialize(void*) const noexcept override { }
    void destroy() noexcept override
    {
        delete this;
    }
    void setPluginNamespace(AsciiChar const* pluginNamespace) noexcept override
    {
        mNamespace = pluginNamespace;
    }
    AsciiChar const* getPluginNamespace() const noexcept override
    {
        return mNamespace.c_str();
    }

private:
    using IPluginV2::enqueue;
    using IPluginV2::getOutputDimensions;
    using IPluginV2::getWorkspaceSize;
    using IPluginV2Ext::configurePlugin;

    std::string mNamespace;
};

class HalfWrongDoublerCreator final : public IPluginCreator
{
public:
    AsciiChar const* getPluginName() const noexcept override
    {
        return kName;
    }
    AsciiChar const* getPluginVersion() const noexcept override
    {
        return kVersion;
    }
    PluginFieldCollection const* getFieldNames() noexcept override
    {
        return &mFields;
    }
    IPluginV2* createPlugin(AsciiChar const*, PluginFieldCollection const*) noexcept override
    {
        auto* plugin = new HalfWrongDoubler();
        plugin->setPluginNamespace(mNamespace.c_str());
        return plugin;
    }
    IPluginV2* deserializePlugin(AsciiChar const* name, void const*, size_t) noexcept override
    {
        return createPlugin(name, nullptr);
    }
    void setPluginNamespace(AsciiChar const* pluginNamespace) noexcept override
    {
        mNamespace = pluginNamespace;
    }
    AsciiChar const* getPluginNamespace() const noexcept override
    {
        return mNamespace.c_str();
    }

private:
    PluginFieldCollection mFields{0, nullptr};
    std::string mNamespace;
};

REGISTER_TENSORRT_PLUGIN(HalfWrongDoublerCreator);

} // namespace
