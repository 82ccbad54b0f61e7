// The base of the collection's IPluginV2Ext plugins (the static-shape interface NVIDIA kept for older plugins such
// as BatchedNMS_TRT): everything but the plugin's math, shapes and formats.
//
//     class BatchedNmsPlugin : public LegacyPlugin<BatchedNmsPlugin, BatchedNmsParams>
//     {
//     public:
//         static constexpr char const* kName = "BatchedNMS_TRT";
//         static constexpr char const* kVersion = "1";
//         using LegacyPlugin::LegacyPlugin;
//         static void check(BatchedNmsParams const& params); // optional: throws PluginError on a bad field
//         // getNbOutputs, getOutputDimensions, supportsFormat, getOutputDataType, runHost, runDevice
//         // optional: getWorkspaceSize(maxBatchSize), using tensorConfig()
//     };
//     KILN_COLLECT_PLUGIN(LegacyPluginCreator<BatchedNmsPlugin>)
//
// Such plugins never see the batch axis in getOutputDimensions and configurePlugin, and enqueue receives only the
// batch size: configurePlugin stores the input and output dimensions and types (without the batch axis), the
// payload carries them into the plan, and enqueue rebuilds full descriptors (batch first) for runDevice. runHost gets
// the descriptors Kiln's CPU backend passes (full shapes, batch included), so both kernels see the same thing.
// The payload is the parameters (payload.h), then the stored tensor configuration.
#pragma once

#include "creators.h"
#include "fields.h"
#include "payload.h"
#include "plugin_tensors.h"

#include <NvInferRuntime.h>
#include <kiln/HostPlugin.h>

#include <cstring>
#include <string>
#include <vector>

namespace kiln::plugins
{

//! What IPluginV2Ext::configurePlugin told the plugin, without the batch axis.
struct LegacyTensorConfig
{
    std::vector<nvinfer1::Dims> inputDims;
    std::vector<nvinfer1::DataType> inputTypes;
    std::vector<nvinfer1::Dims> outputDims;
    std::vector<nvinfer1::DataType> outputTypes;
    int32_t maxBatchSize{0};

    template <typename Visit>
    void visit(Visit&& field)
    {
        field("inputDims", inputDims, Need::kREQUIRED);
        field("inputTypes", inputTypes, Need::kREQUIRED);
        field("outputDims", outputDims, Need::kREQUIRED);
        field("outputTypes", outputTypes, Need::kREQUIRED);
        field("maxBatchSize", maxBatchSize, Need::kREQUIRED);
    }
};

//! Descriptors of full tensors: `dims` with the batch axis prepended, linear.
inline std::vector<nvinfer1::PluginTensorDesc> descriptorsWithBatch(
    std::vector<nvinfer1::Dims> const& dims, std::vector<nvinfer1::DataType> const& types, int32_t batchSize)
{
    std::vector<nvinfer1::PluginTensorDesc> descs(dims.size());
    for (size_t i = 0; i < dims.size(); ++i)
    {
        nvinfer1::PluginTensorDesc& desc = descs[i];
        desc.dims.nbDims = dims[i].nbDims + 1;
        desc.dims.d[0] = batchSize;
        for (int32_t axis = 0; axis < dims[i].nbDims; ++axis)
        {
            desc.dims.d[axis + 1] = dims[i].d[axis];
        }
        desc.type = i < types.size() ? types[i] : nvinfer1::DataType::kFLOAT;
        desc.format = nvinfer1::TensorFormat::kLINEAR;
        desc.scale = 1.F;
    }
    return descs;
}

template <typename Derived, typename Params>
class LegacyPlugin : public nvinfer1::IPluginV2Ext, public kiln::IHostPlugin
{
public:
    using ParamsType = Params;

    explicit LegacyPlugin(Params params)
        : mParams(std::move(params))
    {
    }

    //! Throws PluginError unless `params` are valid; a plugin with rules hides this.
    static void check(Params const& /*params*/) {}

    //! The plugin a payload written by save() describes.
    static Derived* deserialize(PayloadReader& reader)
    {
        Params params;
        params.visit(reader);
        LegacyTensorConfig tensors;
        tensors.visit(reader);
        reader.finish();
        Derived::check(params);
        auto* plugin = new Derived(std::move(params));
        plugin->mTensors = std::move(tensors);
        return plugin;
    }
    void save(PayloadWriter& writer) const
    {
        const_cast<Params&>(mParams).visit(writer); // the writer only reads
        const_cast<LegacyTensorConfig&>(mTensors).visit(writer);
    }

    Params const& params() const
    {
        return mParams;
    }
    LegacyTensorConfig const& tensorConfig() const
    {
        return mTensors;
    }

    char const* getPluginType() const noexcept override
    {
        return Derived::kName;
    }
    char const* getPluginVersion() const noexcept override
    {
        return Derived::kVersion;
    }
    void setPluginNamespace(char const* pluginNamespace) noexcept override
    {
        mNamespace = pluginNamespace != nullptr ? pluginNamespace : "";
    }
    char const* getPluginNamespace() const noexcept override
    {
        return mNamespace.c_str();
    }
    int32_t initialize() noexcept override
    {
        return 0;
    }
    void terminate() noexcept override {}
    void destroy() noexcept override
    {
        delete this;
    }
    nvinfer1::IPluginV2Ext* clone() const noexcept override
    {
        return guarded(Derived::kName, "clone", static_cast<nvinfer1::IPluginV2Ext*>(nullptr),
            [this]() -> nvinfer1::IPluginV2Ext* { return new Derived(static_cast<Derived const&>(*this)); });
    }
    size_t getSerializationSize() const noexcept override
    {
        return guarded(Derived::kName, "getSerializationSize", size_t{0}, [this] { return payload().size(); });
    }
    void serialize(void* buffer) const noexcept override
    {
        guarded(Derived::kName, "serialize", 0, [&] {
            std::vector<uint8_t> const bytes = payload();
            std::memcpy(buffer, bytes.data(), bytes.size());
            return 0;
        });
    }
    //! IPluginV2's older configuration call; IPluginV2Ext's configurePlugin replaces it.
    void configureWithFormat(nvinfer1::Dims const* /*inputDims*/, int32_t /*nbInputs*/,
        nvinfer1::Dims const* /*outputDims*/, int32_t /*nbOutputs*/, nvinfer1::DataType /*type*/,
        nvinfer1::PluginFormat /*format*/, int32_t /*maxBatchSize*/) noexcept override
    {
    }
    void configurePlugin(nvinfer1::Dims const* inputDims, int32_t nbInputs, nvinfer1::Dims const* outputDims,
        int32_t nbOutputs, nvinfer1::DataType const* inputTypes, nvinfer1::DataType const* outputTypes,
        bool const* /*inputIsBroadcast*/, bool const* /*outputIsBroadcast*/, nvinfer1::PluginFormat /*floatFormat*/,
        int32_t maxBatchSize) noexcept override
    {
        guarded(Derived::kName, "configurePlugin", 0, [&] {
            mTensors.inputDims.assign(inputDims, inputDims + nbInputs);
            mTensors.inputTypes.assign(inputTypes, inputTypes + nbInputs);
            mTensors.outputDims.assign(outputDims, outputDims + nbOutputs);
            mTensors.outputTypes.assign(outputTypes, outputTypes + nbOutputs);
            mTensors.maxBatchSize = maxBatchSize;
            return 0;
        });
    }
    size_t getWorkspaceSize(int32_t /*maxBatchSize*/) const noexcept override
    {
        return 0;
    }
    int32_t enqueue(int32_t batchSize, void const* const* inputs, void* const* outputs, void* workspace,
        cudaStream_t stream) noexcept override
    {
        std::vector<nvinfer1::PluginTensorDesc> const in
            = descriptorsWithBatch(mTensors.inputDims, mTensors.inputTypes, batchSize);
        std::vector<nvinfer1::PluginTensorDesc> const out
            = descriptorsWithBatch(mTensors.outputDims, mTensors.outputTypes, batchSize);
        return runOnDevice(derived(), PluginTensors{in.data(), out.data(), inputs, outputs, workspace}, stream);
    }
    int32_t enqueueHost(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void* workspace) override
    {
        return runOnHost(derived(), PluginTensors{inputDesc, outputDesc, inputs, outputs, workspace});
    }

protected:
    Params mParams;
    LegacyTensorConfig mTensors;

private:
    Derived const& derived() const
    {
        return static_cast<Derived const&>(*this);
    }
    std::vector<uint8_t> payload() const
    {
        PayloadWriter writer;
        derived().save(writer);
        return writer.bytes();
    }
    std::string mNamespace;
};

//! The creator of a LegacyPlugin: DynamicPluginCreator's logic serves IPluginV2Ext plugins unchanged (fields read
//! and checked the same way, the payload read by the plugin's deserialize).
template <typename Plugin>
using LegacyPluginCreator = DynamicPluginCreator<Plugin>;

} // namespace kiln::plugins
