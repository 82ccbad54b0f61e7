// Int8ChannelAffine version 2: the IPluginV2IOExt form (int8_affine_plugin.cpp says what it computes). Its shapes are
// static and exclude the batch; its enqueue receives no tensor descriptions, so what configurePlugin told it (the
// scales, and the extents of a sample) goes into its payload, as such plugins keep it, and its host run checks the
// descriptions it does receive against that.
#include "int8_affine_common.h"

#include <kiln/HostPlugin.h>

namespace kiln_int8_test
{
namespace
{

using namespace nvinfer1;

//! What the build configured: the scales, and the extents of one sample (the batch excluded).
struct AffineConfiguration
{
    float inScale{-1.0F};
    float outScale{-1.0F};
    Dims sample{};
};

class Int8AffineIOExt final : public IPluginV2IOExt, public kiln::IHostPlugin
{
public:
    static constexpr char const* kVersion = "2";

    explicit Int8AffineIOExt(AffineFields fields, AffineConfiguration configuration = {})
        : mFields(std::move(fields))
        , mConfiguration(configuration)
    {
    }
    ~Int8AffineIOExt() override
    {
        releaseAffineDevice(mDeviceWeight, mDeviceBias);
    }
    static IPluginV2* deserialize(void const* data, size_t size)
    {
        PayloadReader reader(data, size);
        AffineFields fields;
        AffineConfiguration configuration;
        bool const read = getFields(reader, fields) && reader.get(configuration.inScale)
            && reader.get(configuration.outScale) && reader.get(configuration.sample) && reader.atEnd()
            && configuration.sample.nbDims == 3;
        return read ? new Int8AffineIOExt(fields, configuration) : nullptr;
    }

    IPluginV2Ext* clone() const noexcept override
    {
        auto* copy = new Int8AffineIOExt(mFields, mConfiguration);
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
    Dims getOutputDimensions(int32_t, Dims const* inputs, int32_t) noexcept override
    {
        return inputs[0];
    }
    bool supportsFormatCombination(int32_t pos, PluginTensorDesc const* inOut, int32_t, int32_t) const noexcept override
    {
        return inOut[pos].type == DataType::kINT8 && inOut[pos].format == mFields.tensorFormat();
    }
    void configurePlugin(PluginTensorDesc const* in, int32_t, PluginTensorDesc const* out, int32_t) noexcept override
    {
        bool const formats = in[0].format == mFields.tensorFormat() && out[0].format == in[0].format;
        // A sample of [C, H, W] with C the weights' count, and the scales: what the runs will use.
        bool const sample = in[0].dims.nbDims == 3 && in[0].dims.d[0] == static_cast<int64_t>(mFields.weight.size());
        mConfiguration = formats && sample ? AffineConfiguration{in[0].scale, out[0].scale, in[0].dims}
                                           : AffineConfiguration{};
    }
    bool isOutputBroadcastAcrossBatch(int32_t, bool const*, int32_t) const noexcept override
    {
        return false;
    }
    bool canBroadcastInputAcrossBatch(int32_t) const noexcept override
    {
        return false;
    }
    size_t getWorkspaceSize(int32_t) const noexcept override
    {
        return 0;
    }
    int32_t enqueue(int32_t batchSize, void const* const* inputs, void* const* outputs, void*,
        cudaStream_t stream) noexcept override
    {
        if (!configured())
        {
            return 1;
        }
        kiln::VectorLayout layout = layoutOf(mConfiguration.sample, mFields);
        layout.outer = batchSize;
        return runAffineDevice(layout, mFields, inputs[0], outputs[0], mConfiguration.inScale, mConfiguration.outScale,
            &mDeviceWeight, &mDeviceBias, stream);
    }
    int32_t enqueueHost(PluginTensorDesc const* inputDesc, PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void*) override
    {
        // The host run sees the descriptions (the batch included): they must say what the build configured.
        bool const same = inputDesc[0].scale == mConfiguration.inScale && outputDesc[0].scale == mConfiguration.outScale
            && inputDesc[0].format == mFields.tensorFormat() && outputDesc[0].format == inputDesc[0].format;
        if (!configured() || !same)
        {
            return 1;
        }
        runAffineHost(layoutOf(inputDesc[0].dims, mFields), mFields, static_cast<int8_t const*>(inputs[0]),
            static_cast<int8_t*>(outputs[0]), mConfiguration.inScale, mConfiguration.outScale);
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
        return payload().bytes().size();
    }
    void serialize(void* buffer) const noexcept override
    {
        Payload const bytes = payload();
        std::memcpy(buffer, bytes.bytes().data(), bytes.bytes().size());
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
    bool configured() const
    {
        return mConfiguration.inScale > 0.0F && mConfiguration.outScale > 0.0F && mConfiguration.sample.nbDims == 3;
    }
    Payload payload() const
    {
        Payload bytes;
        putFields(bytes, mFields);
        bytes.put(mConfiguration.inScale);
        bytes.put(mConfiguration.outScale);
        bytes.put(mConfiguration.sample);
        return bytes;
    }

    AffineFields mFields;
    AffineConfiguration mConfiguration;
    std::string mNamespace;
    float* mDeviceWeight{nullptr};
    float* mDeviceBias{nullptr};
};

using IOExtCreator = AffineCreator<Int8AffineIOExt>;

} // namespace

REGISTER_TENSORRT_PLUGIN(IOExtCreator);

} // namespace kiln_int8_test
