// Int8ChannelAffine (IPluginV2DynamicExt, version 1): a test plugin with INT8 input and output, in the one format its
// "format" field names (0: kLINEAR, 4: kCHW4, 32: kCHW32), computing int8_affine_math.h with the scales that
// PluginTensorDesc::scale gives it. It checks that configurePlugin and enqueue see the same scales and formats, and
// refuses to run (enqueue returns 1) where a scale is missing. Registered with REGISTER_TENSORRT_PLUGIN when the
// library is loaded; runs on the CPU backend (kiln::IHostPlugin) and, with CUDA, through its kernel.
#include "int8_affine_kernel.h"
#include "int8_affine_math.h"

#include <NvInfer.h>
#include <kiln/HostPlugin.h>

#include <cstring>
#include <string>
#include <vector>

namespace kiln_int8_test
{
namespace
{

using namespace nvinfer1;

TensorFormat formatOfField(int32_t field)
{
    return field == 4 ? TensorFormat::kCHW4 : field == 32 ? TensorFormat::kCHW32 : TensorFormat::kLINEAR;
}

//! The layout of an input of `dims` (rank >= 3), with the channel axis the third from the last.
kiln::VectorLayout layoutOf(Dims const& dims, int32_t formatField)
{
    int64_t outer = 1;
    for (int32_t axis = 0; axis < dims.nbDims - 3; ++axis)
    {
        outer *= dims.d[axis];
    }
    int64_t const channels = dims.d[dims.nbDims - 3];
    return kiln::VectorLayout{outer, channels, dims.d[dims.nbDims - 2] * dims.d[dims.nbDims - 1], formatField};
}

class Int8AffinePlugin final : public IPluginV2DynamicExt, public kiln::IHostPlugin
{
public:
    Int8AffinePlugin(int32_t format, std::vector<float> weight, std::vector<float> bias)
        : mFormat(format)
        , mWeight(std::move(weight))
        , mBias(std::move(bias))
    {
    }

    IPluginV2DynamicExt* clone() const noexcept override
    {
        auto* copy = new Int8AffinePlugin(mFormat, mWeight, mBias);
        copy->mNamespace = mNamespace;
        return copy;
    }
    int32_t getNbOutputs() const noexcept override
    {
        return 1;
    }
    DataType getOutputDataType(int32_t, DataType const*, int32_t) const noexcept override
    {
        return DataType::kINT8;
    }
    DimsExprs getOutputDimensions(int32_t, DimsExprs const* inputs, int32_t, IExprBuilder&) noexcept override
    {
        return inputs[0];
    }
    bool supportsFormatCombination(int32_t pos, PluginTensorDesc const* inOut, int32_t, int32_t) noexcept override
    {
        return inOut[pos].type == DataType::kINT8 && inOut[pos].format == formatOfField(mFormat);
    }
    void configurePlugin(DynamicPluginTensorDesc const* in, int32_t, DynamicPluginTensorDesc const* out,
        int32_t) noexcept override
    {
        mConfiguredInScale = in[0].desc.scale;
        mConfiguredOutScale = out[0].desc.scale;
        mConfiguredFormats = in[0].desc.format == formatOfField(mFormat) && out[0].desc.format == formatOfField(mFormat);
    }
    size_t getWorkspaceSize(PluginTensorDesc const*, int32_t, PluginTensorDesc const*, int32_t) const noexcept override
    {
        return 0;
    }
    int32_t enqueue(PluginTensorDesc const* inputDesc, PluginTensorDesc const* outputDesc, void const* const* inputs,
        void* const* outputs, void*, cudaStream_t stream) noexcept override
    {
#ifdef KILN_WITH_CUDA
        // The weights reach the device at the first run on it: a plan built for the CPU backend needs no GPU.
        if (!described(inputDesc[0], outputDesc[0])
            || (mDeviceWeight == nullptr && uploadAffine(mWeight, mBias, &mDeviceWeight, &mDeviceBias) != 0))
        {
            return 1;
        }
        return launchInt8Affine(static_cast<int8_t const*>(inputs[0]), static_cast<int8_t*>(outputs[0]),
            layoutOf(inputDesc[0].dims, mFormat), inputDesc[0].scale, outputDesc[0].scale, mDeviceWeight,
            mDeviceBias, stream);
#else
        (void) inputDesc;
        (void) outputDesc;
        (void) inputs;
        (void) outputs;
        (void) stream;
        return 1; // built without CUDA: the plugin runs on the CPU backend only
#endif
    }
    int32_t enqueueHost(PluginTensorDesc const* inputDesc, PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void*) override
    {
        if (!described(inputDesc[0], outputDesc[0]))
        {
            return 1;
        }
        kiln::VectorLayout const layout = layoutOf(inputDesc[0].dims, mFormat);
        auto const* x = static_cast<int8_t const*>(inputs[0]);
        auto* y = static_cast<int8_t*>(outputs[0]);
        for (int64_t o = 0; o < layout.outer; ++o)
        {
            for (int64_t c = 0; c < layout.channels; ++c)
            {
                for (int64_t s = 0; s < layout.inner; ++s)
                {
                    int64_t const at = elementOffset(layout, o, c, s);
                    y[at] = affineQuantized(x[at], inputDesc[0].scale, mWeight[c], mBias[c], outputDesc[0].scale);
                }
            }
        }
        return 0;
    }

    ~Int8AffinePlugin() override
    {
        terminate();
    }
    int32_t initialize() noexcept override
    {
        return 0;
    }
    void terminate() noexcept override
    {
#ifdef KILN_WITH_CUDA
        releaseAffine(mDeviceWeight, mDeviceBias);
#endif
        mDeviceWeight = nullptr;
        mDeviceBias = nullptr;
    }
    char const* getPluginType() const noexcept override
    {
        return "Int8ChannelAffine";
    }
    char const* getPluginVersion() const noexcept override
    {
        return "1";
    }
    size_t getSerializationSize() const noexcept override
    {
        return sizeof(int32_t) * 2 + sizeof(float) * 2 * mWeight.size();
    }
    void serialize(void* buffer) const noexcept override
    {
        auto* bytes = static_cast<char*>(buffer);
        auto const channels = static_cast<int32_t>(mWeight.size());
        std::memcpy(bytes, &mFormat, sizeof(int32_t));
        std::memcpy(bytes + sizeof(int32_t), &channels, sizeof(int32_t));
        std::memcpy(bytes + 2 * sizeof(int32_t), mWeight.data(), sizeof(float) * mWeight.size());
        std::memcpy(bytes + 2 * sizeof(int32_t) + sizeof(float) * mWeight.size(), mBias.data(),
            sizeof(float) * mBias.size());
    }
    void destroy() noexcept override
    {
        delete this;
    }
    void setPluginNamespace(char const* ns) noexcept override
    {
        mNamespace = ns;
    }
    char const* getPluginNamespace() const noexcept override
    {
        return mNamespace.c_str();
    }

private:
    //! Whether a run's tensors are as the build configured them: the negotiated format, the scales of configure,
    //! positive, and the channels of the weights.
    bool described(PluginTensorDesc const& in, PluginTensorDesc const& out) const
    {
        return mConfiguredFormats && in.format == formatOfField(mFormat) && out.format == in.format
            && in.scale > 0.0F && out.scale > 0.0F && in.scale == mConfiguredInScale
            && out.scale == mConfiguredOutScale && in.dims.nbDims >= 3
            && in.dims.d[in.dims.nbDims - 3] == static_cast<int64_t>(mWeight.size());
    }

    int32_t mFormat;
    std::vector<float> mWeight;
    std::vector<float> mBias;
    std::string mNamespace;
    float mConfiguredInScale{-1.0F};
    float mConfiguredOutScale{-1.0F};
    bool mConfiguredFormats{false};
    float* mDeviceWeight{nullptr};
    float* mDeviceBias{nullptr};
};

class Int8AffineCreator final : public IPluginCreator
{
public:
    Int8AffineCreator()
    {
        mNames = {PluginField("format", nullptr, PluginFieldType::kINT32, 1),
            PluginField("weight", nullptr, PluginFieldType::kFLOAT32, 0),
            PluginField("bias", nullptr, PluginFieldType::kFLOAT32, 0)};
        mFields = PluginFieldCollection{static_cast<int32_t>(mNames.size()), mNames.data()};
    }
    char const* getPluginName() const noexcept override
    {
        return "Int8ChannelAffine";
    }
    char const* getPluginVersion() const noexcept override
    {
        return "1";
    }
    PluginFieldCollection const* getFieldNames() noexcept override
    {
        return &mFields;
    }
    IPluginV2* createPlugin(char const*, PluginFieldCollection const* fc) noexcept override
    {
        int32_t format = 0;
        std::vector<float> weight, bias;
        for (int32_t i = 0; fc != nullptr && i < fc->nbFields; ++i)
        {
            PluginField const& field = fc->fields[i];
            auto const* floats = static_cast<float const*>(field.data);
            if (std::strcmp(field.name, "format") == 0 && field.type == PluginFieldType::kINT32)
            {
                format = *static_cast<int32_t const*>(field.data);
            }
            else if (std::strcmp(field.name, "weight") == 0 && field.type == PluginFieldType::kFLOAT32)
            {
                weight.assign(floats, floats + field.length);
            }
            else if (std::strcmp(field.name, "bias") == 0 && field.type == PluginFieldType::kFLOAT32)
            {
                bias.assign(floats, floats + field.length);
            }
        }
        if ((format != 0 && format != 4 && format != 32) || weight.empty() || weight.size() != bias.size())
        {
            return nullptr;
        }
        return new Int8AffinePlugin(format, weight, bias);
    }
    IPluginV2* deserializePlugin(char const*, void const* data, size_t size) noexcept override
    {
        int32_t format = 0;
        int32_t channels = 0;
        if (size < 2 * sizeof(int32_t))
        {
            return nullptr;
        }
        auto const* bytes = static_cast<char const*>(data);
        std::memcpy(&format, bytes, sizeof(int32_t));
        std::memcpy(&channels, bytes + sizeof(int32_t), sizeof(int32_t));
        if (channels <= 0 || size != 2 * sizeof(int32_t) + 2 * sizeof(float) * static_cast<size_t>(channels))
        {
            return nullptr;
        }
        std::vector<float> weight(static_cast<size_t>(channels)), bias(static_cast<size_t>(channels));
        std::memcpy(weight.data(), bytes + 2 * sizeof(int32_t), sizeof(float) * weight.size());
        std::memcpy(bias.data(), bytes + 2 * sizeof(int32_t) + sizeof(float) * weight.size(),
            sizeof(float) * bias.size());
        return new Int8AffinePlugin(format, weight, bias);
    }
    void setPluginNamespace(char const* ns) noexcept override
    {
        mNamespace = ns;
    }
    char const* getPluginNamespace() const noexcept override
    {
        return mNamespace.c_str();
    }

private:
    std::vector<PluginField> mNames;
    PluginFieldCollection mFields{};
    std::string mNamespace;
};

} // namespace

REGISTER_TENSORRT_PLUGIN(Int8AffineCreator);

} // namespace kiln_int8_test
