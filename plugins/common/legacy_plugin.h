// The base of the collection's IPluginV2Ext plugins (NVIDIA's older detection plugins: shapes without the batch
// axis, one configurePlugin call that fixes the input shapes and types): everything but the plugin's math (what it
// shares with dynamic_plugin.h is in v2_plugin_base.h).
//
//     class ReorgPlugin : public LegacyPlugin<ReorgPlugin, ReorgParams>
//     {
//     public:
//         static constexpr char const* kName = "Reorg_TRT";
//         static constexpr char const* kVersion = "1";
//         using LegacyPlugin::LegacyPlugin;
//         static void check(ReorgParams const& params); // optional: throws PluginError on a bad field
//         // getNbOutputs, getOutputDimensions (without the batch axis), getOutputDataType, runHost, runDevice;
//         // supportsFormat where the plugin takes more than FP32
//     };
//
// runHost and runDevice receive descriptors with the batch axis first, as the dynamic plugins do. The payload is
// the parameters, then the configured input/output shapes and types (state the plugin may use at run time).
#pragma once

#include "v2_plugin_base.h"

#include <algorithm>
#include <vector>

namespace kiln::plugins
{

//! What configurePlugin told an IPluginV2Ext plugin: shapes without the batch axis.
struct LegacyConfiguration
{
    std::vector<nvinfer1::Dims> inputDims;
    std::vector<nvinfer1::Dims> outputDims;
    std::vector<nvinfer1::DataType> inputTypes;
    std::vector<nvinfer1::DataType> outputTypes;
    int32_t maxBatchSize{0};

    void save(PayloadWriter& writer) const
    {
        writer.put(inputDims);
        writer.put(outputDims);
        writer.put(inputTypes);
        writer.put(outputTypes);
        writer.put(maxBatchSize);
    }
    void load(PayloadReader& reader)
    {
        reader.get(inputDims);
        reader.get(outputDims);
        reader.get(inputTypes);
        reader.get(outputTypes);
        reader.get(maxBatchSize);
    }
};

template <typename Derived, typename Params>
class LegacyPlugin : public V2PluginBase<Derived, Params, nvinfer1::IPluginV2Ext>
{
    using Base = V2PluginBase<Derived, Params, nvinfer1::IPluginV2Ext>;

public:
    explicit LegacyPlugin(Params params)
        : Base(std::move(params))
    {
    }

    static Derived* deserialize(PayloadReader& reader)
    {
        Params params;
        params.visit(reader);
        Derived::check(params);
        // The whole payload is read before the plugin exists, so a payload that throws leaks nothing.
        LegacyConfiguration configuration;
        configuration.load(reader);
        reader.finish();
        auto* plugin = new Derived(std::move(params));
        plugin->mConfiguration = std::move(configuration);
        return plugin;
    }
    void save(PayloadWriter& writer) const
    {
        Base::save(writer);
        mConfiguration.save(writer);
    }

    LegacyConfiguration const& configuration() const
    {
        return mConfiguration;
    }

    //! FP32, linear; a plugin that takes FP16 too hides this.
    bool supportsFormat(nvinfer1::DataType type, nvinfer1::PluginFormat format) const noexcept override
    {
        return type == nvinfer1::DataType::kFLOAT && format == nvinfer1::PluginFormat::kLINEAR;
    }
    size_t getWorkspaceSize(int32_t /*maxBatchSize*/) const noexcept override
    {
        return 0;
    }
    void configurePlugin(nvinfer1::Dims const* inputDims, int32_t nbInputs, nvinfer1::Dims const* outputDims,
        int32_t nbOutputs, nvinfer1::DataType const* inputTypes, nvinfer1::DataType const* outputTypes,
        bool const* /*inputIsBroadcast*/, bool const* /*outputIsBroadcast*/, nvinfer1::PluginFormat /*floatFormat*/,
        int32_t maxBatchSize) noexcept override
    {
        mConfiguration.inputDims.assign(inputDims, inputDims + nbInputs);
        mConfiguration.outputDims.assign(outputDims, outputDims + nbOutputs);
        mConfiguration.inputTypes.assign(inputTypes, inputTypes + nbInputs);
        mConfiguration.outputTypes.assign(outputTypes, outputTypes + nbOutputs);
        mConfiguration.maxBatchSize = maxBatchSize;
    }
    int32_t enqueue(int32_t batchSize, void const* const* inputs, void* const* outputs, void* workspace,
        cudaStream_t stream) noexcept override
    {
        std::vector<nvinfer1::PluginTensorDesc> const in
            = descriptorsWithBatch(mConfiguration.inputDims, mConfiguration.inputTypes, batchSize);
        std::vector<nvinfer1::PluginTensorDesc> const out
            = descriptorsWithBatch(mConfiguration.outputDims, mConfiguration.outputTypes, batchSize);
        return runOnDevice(this->derived(), PluginTensors{in.data(), out.data(), inputs, outputs, workspace}, stream);
    }

protected:
    LegacyConfiguration mConfiguration;

private:
    //! Descriptors of the configured tensors with the batch axis put first.
    static std::vector<nvinfer1::PluginTensorDesc> descriptorsWithBatch(
        std::vector<nvinfer1::Dims> const& dims, std::vector<nvinfer1::DataType> const& types, int32_t batchSize)
    {
        std::vector<nvinfer1::PluginTensorDesc> descs(dims.size());
        for (size_t i = 0; i < dims.size(); ++i)
        {
            descs[i].dims.nbDims = dims[i].nbDims + 1;
            descs[i].dims.d[0] = batchSize;
            std::copy(dims[i].d, dims[i].d + dims[i].nbDims, descs[i].dims.d + 1);
            descs[i].type = i < types.size() ? types[i] : nvinfer1::DataType::kFLOAT;
            descs[i].format = nvinfer1::TensorFormat::kLINEAR;
            descs[i].scale = 1.F;
        }
        return descs;
    }
};

} // namespace kiln::plugins
