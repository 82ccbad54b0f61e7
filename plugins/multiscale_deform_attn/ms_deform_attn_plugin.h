// MultiscaleDeformableAttnPlugin_TRT: version 1 (IPluginV2DynamicExt, deprecated by NVIDIA) and version 2
// (IPluginV3), the same inputs and no fields. The shared work lives in ms_deform_attn_params.h.
#pragma once

#include "ms_deform_attn_params.h"

#include "common/dynamic_plugin.h"
#include "common/v3_plugin.h"

namespace kiln::plugins
{

class MsDeformAttnPluginV1 final : public DynamicPlugin<MsDeformAttnPluginV1, MsDeformAttnParams>
{
public:
    static constexpr char const* kName = kMsDeformAttnName;
    static constexpr char const* kVersion = "1";
    using DynamicPlugin::DynamicPlugin;

    int32_t getNbOutputs() const noexcept override;
    nvinfer1::DimsExprs getOutputDimensions(int32_t outputIndex, nvinfer1::DimsExprs const* inputs, int32_t nbInputs,
        nvinfer1::IExprBuilder& exprBuilder) noexcept override;
    bool supportsFormatCombination(
        int32_t pos, nvinfer1::PluginTensorDesc const* inOut, int32_t nbInputs, int32_t nbOutputs) noexcept override;
    nvinfer1::DataType getOutputDataType(
        int32_t index, nvinfer1::DataType const* inputTypes, int32_t nbInputs) const noexcept override;

    void runHost(PluginTensors const& io) const;
    void runDevice(PluginTensors const& io, cudaStream_t stream) const;
};

class MsDeformAttnPluginV2 final : public V3Plugin<MsDeformAttnPluginV2, MsDeformAttnParams>
{
public:
    static constexpr char const* kName = kMsDeformAttnName;
    static constexpr char const* kVersion = "2";
    using V3Plugin::V3Plugin;

    int32_t getNbOutputs() const noexcept override;
    int32_t getOutputDataTypes(nvinfer1::DataType* outputTypes, int32_t nbOutputs, nvinfer1::DataType const* inputTypes,
        int32_t nbInputs) const noexcept override;
    int32_t getOutputShapes(nvinfer1::DimsExprs const* inputs, int32_t nbInputs, nvinfer1::DimsExprs const* shapeInputs,
        int32_t nbShapeInputs, nvinfer1::DimsExprs* outputs, int32_t nbOutputs,
        nvinfer1::IExprBuilder& exprBuilder) noexcept override;
    bool supportsFormatCombination(int32_t pos, nvinfer1::DynamicPluginTensorDesc const* inOut, int32_t nbInputs,
        int32_t nbOutputs) noexcept override;

    void runHost(PluginTensors const& io) const;
    void runDevice(PluginTensors const& io, cudaStream_t stream) const;
};

} // namespace kiln::plugins
