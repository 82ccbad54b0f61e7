// Int8ChannelAffine: a test plugin with INT8 input and output, in the one format its "format" field names (0: kLINEAR,
// 4: kCHW4, 32: kCHW32), computing int8_affine_math.h with the scales that PluginTensorDesc::scale gives it. Version 1
// (this file) is an IPluginV2DynamicExt, version 2 an IPluginV2IOExt (int8_affine_ioext.cpp). Each checks that a run
// sees the formats and scales the build configured, and refuses to run (returns 1) where a scale is missing.
// Registered with REGISTER_TENSORRT_PLUGIN when the library is loaded; runs on the CPU backend (kiln::IHostPlugin)
// and, with CUDA, through its kernel.
#include "int8_affine_common.h"

#include <kiln/HostPlugin.h>

namespace kiln_int8_test
{
namespace
{

using namespace nvinfer1;

class Int8AffineDynamic final : public IPluginV2DynamicExt, public kiln::IHostPlugin
{
public:
    static constexpr char const* kVersion = "1";

    explicit Int8AffineDynamic(AffineFields fields)
        : mFields(std::move(fields))
    {
    }
    ~Int8AffineDynamic() override
    {
        releaseAffineDevice(mDeviceWeight, mDeviceBias);
    }
    static IPluginV2* deserialize(void const* data, size_t size)
    {
        PayloadReader reader(data, size);
        AffineFields fields;
        return getFields(reader, fields) && reader.atEnd() ? new Int8AffineDynamic(fields) : nullptr;
    }

    IPluginV2DynamicExt* clone() const noexcept override
    {
        auto* copy = new Int8AffineDynamic(mFields);
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
        return inOut[pos].type == DataType::kINT8 && inOut[pos].format == mFields.tensorFormat();
    }
    void configurePlugin(
        DynamicPluginTensorDesc const* in, int32_t, DynamicPluginTensorDesc const* out, int32_t) noexcept override
    {
        mConfiguredInScale = in[0].desc.scale;
        mConfiguredOutScale = out[0].desc.scale;
        mConfiguredFormats = in[0].desc.format == mFields.tensorFormat() && out[0].desc.format == in[0].desc.format;
    }
    size_t getWorkspaceSize(PluginTensorDesc const*, int32_t, PluginTensorDesc const*, int32_t) const noexcept override
    {
        return 0;
    }
    int32_t enqueue(PluginTensorDesc const* inputDesc, PluginTensorDesc const* outputDesc, void const* const* inputs,
        void* const* outputs, void*, cudaStream_t stream) noexcept override
    {
        if (!described(inputDesc[0], outputDesc[0]))
        {
            return 1;
        }
        return runAffineDevice(layoutOf(inputDesc[0].dims, mFields), mFields, inputs[0], outputs[0], inputDesc[0].scale,
            outputDesc[0].scale, &mDeviceWeight, &mDeviceBias, stream);
    }
    int32_t enqueueHost(PluginTensorDesc const* inputDesc, PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void*) override
    {
        if (!described(inputDesc[0], outputDesc[0]))
        {
            return 1;
        }
        runAffineHost(layoutOf(inputDesc[0].dims, mFields), mFields, static_cast<int8_t const*>(inputs[0]),
            static_cast<int8_t*>(outputs[0]), inputDesc[0].scale, outputDesc[0].scale);
        return 0;
    }

    int32_t initialize() noexcept override
    {
        return 0;
    }
    void terminate() noexcept override
    {
        releaseAffineDevice(mDeviceWeight, mDeviceBias);
    }
    char const* getPluginType() const noexcept override
    {
        return "Int8ChannelAffine";
    }
    char const* getPluginVersion() const noexcept override
    {
        return kVersion;
    }
    size_t getSerializationSize() const noexcept override
    {
        Payload payload;
        putFields(payload, mFields);
        return payload.bytes().size();
    }
    void serialize(void* buffer) const noexcept override
    {
        Payload payload;
        putFields(payload, mFields);
        std::memcpy(buffer, payload.bytes().data(), payload.bytes().size());
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
        return mConfiguredFormats && in.format == mFields.tensorFormat() && out.format == in.format && in.scale > 0.0F
            && out.scale > 0.0F && in.scale == mConfiguredInScale && out.scale == mConfiguredOutScale
            && in.dims.nbDims >= 3 && in.dims.d[in.dims.nbDims - 3] == static_cast<int64_t>(mFields.weight.size());
    }

    AffineFields mFields;
    std::string mNamespace;
    float mConfiguredInScale{-1.0F};
    float mConfiguredOutScale{-1.0F};
    bool mConfiguredFormats{false};
    float* mDeviceWeight{nullptr};
    float* mDeviceBias{nullptr};
};

using DynamicCreator = AffineCreator<Int8AffineDynamic>;

} // namespace

REGISTER_TENSORRT_PLUGIN(DynamicCreator);

} // namespace kiln_int8_test
