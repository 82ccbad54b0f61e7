// ScatterND 1: ONNX ScatterND without reduction. Inputs data, indices (INT32; INT64 accepted too), updates; the
// output is data with each slice of updates written where its index tuple points.
#pragma once

#include "common/dynamic_plugin.h"

namespace kiln::plugins
{

struct ScatterNdParams //!< ScatterND has no fields
{
    template <typename Visit>
    void visit(Visit&& /*field*/)
    {
    }
};

class ScatterNdPlugin : public DynamicPlugin<ScatterNdPlugin, ScatterNdParams>
{
public:
    static constexpr char const* kName = "ScatterND";
    static constexpr char const* kVersion = "1";
    using DynamicPlugin::DynamicPlugin;

    int32_t getNbOutputs() const noexcept override;
    nvinfer1::DimsExprs getOutputDimensions(int32_t outputIndex, nvinfer1::DimsExprs const* inputs, int32_t nbInputs,
        nvinfer1::IExprBuilder& exprBuilder) noexcept override;
    bool supportsFormatCombination(
        int32_t pos, nvinfer1::PluginTensorDesc const* inOut, int32_t nbInputs, int32_t nbOutputs) noexcept override;
    nvinfer1::DataType getOutputDataType(
        int32_t index, nvinfer1::DataType const* inputTypes, int32_t nbInputs) const noexcept override;
    //! One int32 per slice of data (its first k axes): which update tuple, if any, writes it (the CUDA kernels).
    size_t getWorkspaceSize(nvinfer1::PluginTensorDesc const* inputs, int32_t nbInputs,
        nvinfer1::PluginTensorDesc const* outputs, int32_t nbOutputs) const noexcept override;

    void runHost(PluginTensors const& io) const;
    void runDevice(PluginTensors const& io, cudaStream_t stream) const;
};

} // namespace kiln::plugins
