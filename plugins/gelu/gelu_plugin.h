// CustomGeluPluginDynamic 1: GELU (tanh approximation) of the input, plus an optional bias added first.
#pragma once

#include "common/device_weights.h"
#include "common/dynamic_plugin.h"

#include <vector>

namespace kiln::plugins
{

struct GeluParams
{
    int32_t typeId{-1};      //!< 0: FP32, 1: FP16 (the precision the layer runs in)
    std::vector<float> bias; //!< added to the input before GELU, repeating every bias.size() elements

    template <typename Visit>
    void visit(Visit&& field)
    {
        field("type_id", typeId, Need::kREQUIRED);
        field("bias", bias, Need::kOPTIONAL);
    }
};

class GeluPlugin : public DynamicPlugin<GeluPlugin, GeluParams>
{
public:
    static constexpr char const* kName = "CustomGeluPluginDynamic";
    static constexpr char const* kVersion = "1";
    using DynamicPlugin::DynamicPlugin;

    static void check(GeluParams const& params);

    int32_t getNbOutputs() const noexcept override;
    nvinfer1::DimsExprs getOutputDimensions(int32_t outputIndex, nvinfer1::DimsExprs const* inputs, int32_t nbInputs,
        nvinfer1::IExprBuilder& exprBuilder) noexcept override;
    bool supportsFormatCombination(
        int32_t pos, nvinfer1::PluginTensorDesc const* inOut, int32_t nbInputs, int32_t nbOutputs) noexcept override;
    nvinfer1::DataType getOutputDataType(
        int32_t index, nvinfer1::DataType const* inputTypes, int32_t nbInputs) const noexcept override;

    void runHost(PluginTensors const& io) const;
    void runDevice(PluginTensors const& io, cudaStream_t stream) const;

private:
    DeviceWeights mDeviceBias;
};

} // namespace kiln::plugins
