// ROIAlign_TRT: version 1 (IPluginV2DynamicExt) and version 2 (IPluginV3), one arithmetic (roi_align_math.h).
// Inputs X [N, C, H, W], rois [R, 4] (x1, y1, x2, y2), batch_indices [R] INT32; output [R, C, oh, ow].
#pragma once

#include "common/dynamic_plugin.h"
#include "common/v3_plugin.h"

namespace kiln::plugins
{

struct RoiAlignParams
{
    int32_t coordinateTransformationMode{1}; //!< 1: half_pixel, 0: output_half_pixel
    int32_t mode{1};                         //!< 1: average, 0: max
    int32_t outputHeight{1};
    int32_t outputWidth{1};
    int32_t samplingRatio{0}; //!< 0: adaptive
    float spatialScale{1.F};

    template <typename Visit>
    void visit(Visit&& field)
    {
        field("coordinate_transformation_mode", coordinateTransformationMode, Need::kOPTIONAL);
        field("mode", mode, Need::kOPTIONAL);
        field("output_height", outputHeight, Need::kOPTIONAL);
        field("output_width", outputWidth, Need::kOPTIONAL);
        field("sampling_ratio", samplingRatio, Need::kOPTIONAL);
        field("spatial_scale", spatialScale, Need::kOPTIONAL);
    }
};

//! What both versions share: field rules, shapes, formats and the two kernels. Throws PluginError naming `plugin`.
namespace roi_align
{
void check(char const* plugin, RoiAlignParams const& params);
nvinfer1::DimsExprs outputShape(char const* plugin, RoiAlignParams const& params, nvinfer1::DimsExprs const* inputs,
    int32_t nbInputs, nvinfer1::IExprBuilder& exprBuilder);
bool supportsFormat(int32_t pos, nvinfer1::PluginTensorDesc const* inOut);
void runHost(char const* plugin, RoiAlignParams const& params, PluginTensors const& io);
void runDevice(char const* plugin, RoiAlignParams const& params, PluginTensors const& io, cudaStream_t stream);
} // namespace roi_align

class RoiAlignPluginV1 : public DynamicPlugin<RoiAlignPluginV1, RoiAlignParams>
{
public:
    static constexpr char const* kName = "ROIAlign_TRT";
    static constexpr char const* kVersion = "1";
    using DynamicPlugin::DynamicPlugin;

    static void check(RoiAlignParams const& params)
    {
        roi_align::check(kName, params);
    }

    int32_t getNbOutputs() const noexcept override;
    nvinfer1::DimsExprs getOutputDimensions(int32_t outputIndex, nvinfer1::DimsExprs const* inputs, int32_t nbInputs,
        nvinfer1::IExprBuilder& exprBuilder) noexcept override;
    bool supportsFormatCombination(
        int32_t pos, nvinfer1::PluginTensorDesc const* inOut, int32_t nbInputs, int32_t nbOutputs) noexcept override;
    nvinfer1::DataType getOutputDataType(
        int32_t index, nvinfer1::DataType const* inputTypes, int32_t nbInputs) const noexcept override;

    void runHost(PluginTensors const& io) const
    {
        roi_align::runHost(kName, mParams, io);
    }
    void runDevice(PluginTensors const& io, cudaStream_t stream) const
    {
        roi_align::runDevice(kName, mParams, io, stream);
    }
};

class RoiAlignPluginV2 : public V3Plugin<RoiAlignPluginV2, RoiAlignParams>
{
public:
    static constexpr char const* kName = "ROIAlign_TRT";
    static constexpr char const* kVersion = "2";
    using V3Plugin::V3Plugin;

    static void check(RoiAlignParams const& params)
    {
        roi_align::check(kName, params);
    }

    int32_t getNbOutputs() const noexcept override;
    int32_t getOutputDataTypes(nvinfer1::DataType* outputTypes, int32_t nbOutputs,
        nvinfer1::DataType const* inputTypes, int32_t nbInputs) const noexcept override;
    int32_t getOutputShapes(nvinfer1::DimsExprs const* inputs, int32_t nbInputs,
        nvinfer1::DimsExprs const* shapeInputs, int32_t nbShapeInputs, nvinfer1::DimsExprs* outputs,
        int32_t nbOutputs, nvinfer1::IExprBuilder& exprBuilder) noexcept override;
    bool supportsFormatCombination(int32_t pos, nvinfer1::DynamicPluginTensorDesc const* inOut, int32_t nbInputs,
        int32_t nbOutputs) noexcept override;

    void runHost(PluginTensors const& io) const
    {
        roi_align::runHost(kName, mParams, io);
    }
    void runDevice(PluginTensors const& io, cudaStream_t stream) const
    {
        roi_align::runDevice(kName, mParams, io, stream);
    }
};

} // namespace kiln::plugins
