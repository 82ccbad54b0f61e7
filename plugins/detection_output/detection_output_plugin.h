// NMS_TRT 1 (IPluginV2Ext) and NMSDynamic_TRT 1 (IPluginV2DynamicExt): SSD's DetectionOutput layer, box decoding
// then per-class NMS and the best keepTopK detections of each image (README.md). Both run the same kernels.
#pragma once

#include "common/dynamic_plugin.h"
#include "common/legacy_plugin.h"
#include "detection_output_params.h"

namespace kiln::plugins
{

class NmsPlugin : public LegacyPlugin<NmsPlugin, DetectionOutputParams>
{
public:
    static constexpr char const* kName = "NMS_TRT";
    static constexpr char const* kVersion = "1";
    using LegacyPlugin::LegacyPlugin;

    static void check(DetectionOutputParams const& params)
    {
        checkDetectionOutputParams(kName, params);
    }

    int32_t getNbOutputs() const noexcept override
    {
        return 2;
    }
    nvinfer1::Dims getOutputDimensions(
        int32_t index, nvinfer1::Dims const* inputs, int32_t nbInputDims) noexcept override;
    bool supportsFormat(nvinfer1::DataType type, nvinfer1::PluginFormat format) const noexcept override;
    nvinfer1::DataType getOutputDataType(
        int32_t index, nvinfer1::DataType const* inputTypes, int32_t nbInputs) const noexcept override;
    size_t getWorkspaceSize(int32_t maxBatchSize) const noexcept override;

    void runHost(PluginTensors const& io) const;
    void runDevice(PluginTensors const& io, cudaStream_t stream) const;
};

class NmsDynamicPlugin : public DynamicPlugin<NmsDynamicPlugin, DetectionOutputParams>
{
public:
    static constexpr char const* kName = "NMSDynamic_TRT";
    static constexpr char const* kVersion = "1";
    using DynamicPlugin::DynamicPlugin;

    static void check(DetectionOutputParams const& params)
    {
        checkDetectionOutputParams(kName, params);
    }

    int32_t getNbOutputs() const noexcept override
    {
        return 2;
    }
    nvinfer1::DimsExprs getOutputDimensions(int32_t outputIndex, nvinfer1::DimsExprs const* inputs, int32_t nbInputs,
        nvinfer1::IExprBuilder& exprBuilder) noexcept override;
    bool supportsFormatCombination(
        int32_t pos, nvinfer1::PluginTensorDesc const* inOut, int32_t nbInputs, int32_t nbOutputs) noexcept override;
    nvinfer1::DataType getOutputDataType(
        int32_t index, nvinfer1::DataType const* inputTypes, int32_t nbInputs) const noexcept override;
    size_t getWorkspaceSize(nvinfer1::PluginTensorDesc const* inputs, int32_t nbInputs,
        nvinfer1::PluginTensorDesc const* outputs, int32_t nbOutputs) const noexcept override;

    void runHost(PluginTensors const& io) const;
    void runDevice(PluginTensors const& io, cudaStream_t stream) const;
};

} // namespace kiln::plugins
