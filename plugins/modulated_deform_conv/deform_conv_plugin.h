// ModulatedDeformConv2d: version 1 (IPluginV2DynamicExt, deprecated by NVIDIA) and version 2 (IPluginV3), the same
// inputs and fields. The shared work lives in deform_conv_params.h and deform_conv_device.h.
#pragma once

#include "blas_handle.h"
#include "deform_conv_params.h"

#include "common/dynamic_plugin.h"
#include "common/v3_plugin.h"

namespace kiln::plugins
{

class DeformConvPluginV1 final : public DynamicPlugin<DeformConvPluginV1, DeformConvParams>
{
public:
    static constexpr char const* kName = kDeformConvName;
    static constexpr char const* kVersion = "1";
    using DynamicPlugin::DynamicPlugin;

    static void check(DeformConvParams const& params)
    {
        checkDeformConvParams(params);
    }

    int32_t getNbOutputs() const noexcept override;
    nvinfer1::DimsExprs getOutputDimensions(int32_t outputIndex, nvinfer1::DimsExprs const* inputs, int32_t nbInputs,
        nvinfer1::IExprBuilder& exprBuilder) noexcept override;
    bool supportsFormatCombination(
        int32_t pos, nvinfer1::PluginTensorDesc const* inOut, int32_t nbInputs, int32_t nbOutputs) noexcept override;
    nvinfer1::DataType getOutputDataType(
        int32_t index, nvinfer1::DataType const* inputTypes, int32_t nbInputs) const noexcept override;
    size_t getWorkspaceSize(nvinfer1::PluginTensorDesc const* inputs, int32_t nbInputs,
        nvinfer1::PluginTensorDesc const* outputs, int32_t nbOutputs) const noexcept override;
    void configurePlugin(nvinfer1::DynamicPluginTensorDesc const* in, int32_t nbInputs,
        nvinfer1::DynamicPluginTensorDesc const* out, int32_t nbOutputs) noexcept override;

    void runHost(PluginTensors const& io) const;
    void runDevice(PluginTensors const& io, cudaStream_t stream) const;

private:
    BlasHandle mBlas;
    int32_t mInputCount{0}; //!< 4, or 5 with a bias: enqueue is not told, configurePlugin is
};

class DeformConvPluginV2 final : public V3Plugin<DeformConvPluginV2, DeformConvParams>
{
public:
    static constexpr char const* kName = kDeformConvName;
    static constexpr char const* kVersion = "2";
    using V3Plugin::V3Plugin;

    static void check(DeformConvParams const& params)
    {
        checkDeformConvParams(params);
    }

    int32_t getNbOutputs() const noexcept override;
    int32_t getOutputDataTypes(nvinfer1::DataType* outputTypes, int32_t nbOutputs, nvinfer1::DataType const* inputTypes,
        int32_t nbInputs) const noexcept override;
    int32_t getOutputShapes(nvinfer1::DimsExprs const* inputs, int32_t nbInputs, nvinfer1::DimsExprs const* shapeInputs,
        int32_t nbShapeInputs, nvinfer1::DimsExprs* outputs, int32_t nbOutputs,
        nvinfer1::IExprBuilder& exprBuilder) noexcept override;
    bool supportsFormatCombination(int32_t pos, nvinfer1::DynamicPluginTensorDesc const* inOut, int32_t nbInputs,
        int32_t nbOutputs) noexcept override;
    size_t getWorkspaceSize(nvinfer1::DynamicPluginTensorDesc const* inputs, int32_t nbInputs,
        nvinfer1::DynamicPluginTensorDesc const* outputs, int32_t nbOutputs) const noexcept override;
    int32_t configurePlugin(nvinfer1::DynamicPluginTensorDesc const* in, int32_t nbInputs,
        nvinfer1::DynamicPluginTensorDesc const* out, int32_t nbOutputs) noexcept override;
    int32_t onShapeChange(nvinfer1::PluginTensorDesc const* in, int32_t nbInputs, nvinfer1::PluginTensorDesc const* out,
        int32_t nbOutputs) noexcept override;

    void runHost(PluginTensors const& io) const;
    void runDevice(PluginTensors const& io, cudaStream_t stream) const;

private:
    BlasHandle mBlas;
    int32_t mInputCount{0}; //!< 4, or 5 with a bias: enqueue is not told, configurePlugin and onShapeChange are
};

} // namespace kiln::plugins
