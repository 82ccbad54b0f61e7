// ROIAlign_TRT: version 1 (IPluginV2DynamicExt) and version 2 (IPluginV3), one arithmetic (roi_align_math.h).
// Inputs X [N, C, H, W], rois [R, 4] (x1, y1, x2, y2), batch_indices [R] INT32; output [R, C, oh, ow].
#pragma once

#include "common/twin_plugin.h"

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

//! Both versions' operation (common/twin_plugin.h).
struct RoiAlignFamily : TwinCoreDefaults
{
    using Params = RoiAlignParams;
    static constexpr char const* kName = "ROIAlign_TRT";
    static constexpr char const* kV2Version = "1";
    static constexpr char const* kV3Version = "2";
    static constexpr int32_t kNbOutputs = 1;

    static void check(Params const& params);
    static nvinfer1::DimsExprs outputShape(Params const& params, int32_t index, nvinfer1::DimsExprs const* inputs,
        int32_t nbInputs, nvinfer1::IExprBuilder& exprBuilder);
    static bool supports(Params const& params, int32_t pos, nvinfer1::PluginTensorDesc const* inOut, int32_t nbInputs,
        int32_t nbOutputs);
    static void runHost(Params const& params, PluginTensors const& io);
    static void runDevice(Params const& params, PluginTensors const& io, cudaStream_t stream);
};

using RoiAlignPluginV1 = TwinV2Plugin<RoiAlignFamily>;
using RoiAlignPluginV2 = TwinV3Plugin<RoiAlignFamily>;

} // namespace kiln::plugins
