// Int8ChannelAffine version 3: the IPluginV3 form (int8_affine_plugin.cpp says what it computes). Its state is its
// fields, serialized with getFieldsToSerialize; configurePlugin (build) refuses a configuration without scales or in
// another format, and enqueue checks its tensors against what onShapeChange (run) said.
#include "int8_affine_common.h"

#include <kiln/HostPlugin.h>

namespace kiln_int8_test
{
namespace
{

using namespace nvinfer1;

class Int8AffineV3 final : public IPluginV3,
                           public IPluginV3OneCore,
                           public IPluginV3OneBuild,
                           public IPluginV3OneRuntime,
                           public kiln::IHostPlugin
{
public:
    explicit Int8AffineV3(AffineFields fields)
        : mFields(std::move(fields))
    {
        mSerialized = {PluginField("format", &mFields.format, PluginFieldType::kINT32, 1),
            PluginField("weight", mFields.weight.data(), PluginFieldType::kFLOAT32,
                static_cast<int32_t>(mFields.weight.size())),
            PluginField(
                "bias", mFields.bias.data(), PluginFieldType::kFLOAT32, static_cast<int32_t>(mFields.bias.size()))};
        mSerializedCollection = PluginFieldCollection{static_cast<int32_t>(mSerialized.size()), mSerialized.data()};
    }
    Int8AffineV3(Int8AffineV3 const&) = delete;
    Int8AffineV3& operator=(Int8AffineV3 const&) = delete;
    ~Int8AffineV3() override
    {
        releaseAffineDevice(mDeviceWeight, mDeviceBias);
    }

    IPluginCapability* getCapabilityInterface(PluginCapabilityType type) noexcept override
    {
        switch (type)
        {
        case PluginCapabilityType::kCORE: return static_cast<IPluginV3OneCore*>(this);
        case PluginCapabilityType::kBUILD: return static_cast<IPluginV3OneBuild*>(this);
        case PluginCapabilityType::kRUNTIME: return static_cast<IPluginV3OneRuntime*>(this);
        }
        return nullptr;
    }
    IPluginV3* clone() noexcept override
    {
        auto* copy = new Int8AffineV3(mFields);
        copy->mRun = mRun;
        return copy;
    }
    AsciiChar const* getPluginName() const noexcept override
    {
        return "Int8ChannelAffine";
    }
    AsciiChar const* getPluginVersion() const noexcept override
    {
        return "3";
    }
    AsciiChar const* getPluginNamespace() const noexcept override
    {
        return "";
    }

    int32_t getNbOutputs() const noexcept override
    {
        return 1;
    }
    int32_t getOutputDataTypes(DataType* outputTypes, int32_t, DataType const*, int32_t) const noexcept override
    {
        outputTypes[0] = DataType::kINT8;
        return 0;
    }
    int32_t getOutputShapes(DimsExprs const* inputs, int32_t, DimsExprs const*, int32_t, DimsExprs* outputs, int32_t,
        IExprBuilder&) noexcept override
    {
        outputs[0] = inputs[0];
        return 0;
    }
    bool supportsFormatCombination(
        int32_t pos, DynamicPluginTensorDesc const* inOut, int32_t, int32_t) noexcept override
    {
        return inOut[pos].desc.type == DataType::kINT8 && inOut[pos].desc.format == mFields.tensorFormat();
    }
    int32_t configurePlugin(
        DynamicPluginTensorDesc const* in, int32_t, DynamicPluginTensorDesc const* out, int32_t) noexcept override
    {
        // The build must tell the plugin its scales and the format it asked for; it refuses to be built otherwise.
        bool const formats = in[0].desc.format == mFields.tensorFormat() && out[0].desc.format == in[0].desc.format;
        return formats && in[0].desc.scale > 0.0F && out[0].desc.scale > 0.0F ? 0 : 1;
    }
    int32_t onShapeChange(PluginTensorDesc const* in, int32_t, PluginTensorDesc const* out, int32_t) noexcept override
    {
        mRun = Scales{in[0].scale, out[0].scale};
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
        void const* const* inputs, void* const* outputs, void*) noexcept override
    {
        if (!described(inputDesc[0], outputDesc[0]))
        {
            return 1;
        }
        runAffineHost(layoutOf(inputDesc[0].dims, mFields), mFields, static_cast<int8_t const*>(inputs[0]),
            static_cast<int8_t*>(outputs[0]), inputDesc[0].scale, outputDesc[0].scale);
        return 0;
    }
    IPluginV3* attachToContext(IPluginResourceContext*) noexcept override
    {
        return clone();
    }
    PluginFieldCollection const* getFieldsToSerialize() noexcept override
    {
        return &mSerializedCollection;
    }

private:
    struct Scales
    {
        float in{-1.0F};
        float out{-1.0F};
    };

    //! Whether a run's tensors have the format asked for and the scales onShapeChange gave, positive. (A plan
    //! loaded in another process never saw configurePlugin: its build-time scales reach the run only this way.)
    bool described(PluginTensorDesc const& in, PluginTensorDesc const& out) const
    {
        return in.format == mFields.tensorFormat() && out.format == in.format && in.scale > 0.0F && out.scale > 0.0F
            && in.scale == mRun.in && out.scale == mRun.out && in.dims.nbDims >= 3
            && in.dims.d[in.dims.nbDims - 3] == static_cast<int64_t>(mFields.weight.size());
    }

    AffineFields mFields;
    std::vector<PluginField> mSerialized;
    PluginFieldCollection mSerializedCollection{};
    Scales mRun;
    float* mDeviceWeight{nullptr};
    float* mDeviceBias{nullptr};
};

class Int8AffineV3Creator final : public IPluginCreatorV3One
{
public:
    Int8AffineV3Creator()
    {
        mNames = {PluginField("format", nullptr, PluginFieldType::kINT32, 1),
            PluginField("weight", nullptr, PluginFieldType::kFLOAT32, 0),
            PluginField("bias", nullptr, PluginFieldType::kFLOAT32, 0)};
        mFields = PluginFieldCollection{static_cast<int32_t>(mNames.size()), mNames.data()};
    }
    AsciiChar const* getPluginName() const noexcept override
    {
        return "Int8ChannelAffine";
    }
    AsciiChar const* getPluginVersion() const noexcept override
    {
        return "3";
    }
    AsciiChar const* getPluginNamespace() const noexcept override
    {
        return "";
    }
    PluginFieldCollection const* getFieldNames() noexcept override
    {
        return &mFields;
    }
    IPluginV3* createPlugin(AsciiChar const*, PluginFieldCollection const* fc, TensorRTPhase) noexcept override
    {
        AffineFields const fields = parseFields(fc);
        return fields.valid() ? new Int8AffineV3(fields) : nullptr;
    }

private:
    std::vector<PluginField> mNames;
    PluginFieldCollection mFields{};
};

} // namespace

REGISTER_TENSORRT_PLUGIN(Int8AffineV3Creator);

} // namespace kiln_int8_test
