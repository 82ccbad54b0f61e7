// Plugin layers (IPluginV2Layer, IPluginV3Layer): the network's own clone of the
// application's plugin, and what the builder decided for it.
#pragma once

#include "network/layer.h"
#include "plugin/adapter/plugin_adapter.h"

#include <memory>
#include <string>
#include <vector>

namespace kiln::network
{

struct PluginParams final : LayerParams
{
    //! While building: the network's clone. In an engine: the plugin recreated from the plan.
    std::shared_ptr<plugin::PluginAdapter> adapter;
    plugin::PluginFamily family{plugin::PluginFamily::kV2_DYNAMICEXT};
    //! V3 only: how many of the layer's inputs (the last ones) are shape inputs.
    int32_t nbShapeInputs{0};

    // Decided by the builder, stored in the plan.
    int32_t outputCount{0};
    std::vector<nvinfer1::DataType> ioTypes;       //!< negotiated types: inputs, then outputs
    std::vector<nvinfer1::TensorFormat> ioFormats; //!< negotiated formats, likewise (kLINEAR, or kCHW4 / kCHW32)
    //! PluginTensorDesc::scale of each, likewise: an INT8 or FP8 tensor's quantization scale (its Q's or DQ's, or its
    //! dynamic range / 127), -1 where it has none.
    std::vector<float> ioScales;
    int64_t workspaceBytes{0};
    //! The tactic the builder chose among the plugin's valid tactics (IPluginV3OneBuild::getValidTactics), which the
    //! plugin is given through setTactic before it runs; 0, TensorRT's default tactic, where it offers none.
    int32_t tactic{0};
    //! Per output: the input whose memory it reuses (IPluginV3OneBuildV2::getAliasedInput, asked only with
    //! PreviewFeature::kALIASED_PLUGIN_IO_10_03), -1 for none. Empty where no output is aliased.
    std::vector<int32_t> aliasedInputs;
    plugin::PluginPayload payload;
    std::string library; //!< where the plugin's creator came from ("" for the application)

    nvinfer1::LayerType type() const override
    {
        return family == plugin::PluginFamily::kV3 ? nvinfer1::LayerType::kPLUGIN_V3 : nvinfer1::LayerType::kPLUGIN_V2;
    }
    int32_t nbOutputs() const override
    {
        return outputCount;
    }
    bool infer(InferenceContext& ctx) const override;
    void write(serial::ByteWriter& writer) const override;
    bool read(serial::ByteReader& reader) override;
    std::unique_ptr<LayerParams> clone() const override
    {
        return std::make_unique<PluginParams>(*this);
    }
};

class PluginV2Layer final : public LayerBase<nvinfer1::IPluginV2Layer, PluginParams>
{
public:
    PluginV2Layer(Network& network, std::string name, std::vector<Tensor*> inputs, PluginParams params,
        int32_t minInputs, int32_t maxInputs, nvinfer1::IPluginV2& original)
        : LayerBase(network, std::move(name), std::move(inputs), std::move(params), minInputs, maxInputs)
        , mOriginal(original)
    {
    }
    //! The plugin the application passed to addPluginV2, as TensorRT returns it (the build uses the network's
    //! clone, so changes made through it after adding do not reach the plan).
    nvinfer1::IPluginV2& getPlugin() noexcept override
    {
        return mOriginal;
    }

private:
    nvinfer1::IPluginV2& mOriginal;
};

class PluginV3Layer final : public LayerBase<nvinfer1::IPluginV3Layer, PluginParams>
{
public:
    PluginV3Layer(Network& network, std::string name, std::vector<Tensor*> inputs, PluginParams params,
        int32_t minInputs, int32_t maxInputs, nvinfer1::IPluginV3& original)
        : LayerBase(network, std::move(name), std::move(inputs), std::move(params), minInputs, maxInputs)
        , mOriginal(original)
    {
    }
    nvinfer1::IPluginV3& getPlugin() noexcept override
    {
        return mOriginal;
    }

private:
    nvinfer1::IPluginV3& mOriginal;
};

} // namespace kiln::network
