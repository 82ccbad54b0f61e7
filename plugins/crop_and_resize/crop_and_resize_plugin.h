// CropAndResizeDynamic: version 1 (IPluginV2DynamicExt) and version 2 (IPluginV3). TensorFlow's crop_and_resize:
// feature_maps [N, C, H, W] and rois [N, B, 4, 1] (y1, x1, y2, x2, normalized; [N, B, 4] accepted too) give
// crops [N, B, C, crop_height, crop_width], FP32.
#pragma once

#include "common/family_plugins.h"

namespace kiln::plugins
{

struct CropAndResizeParams
{
    int32_t cropWidth{0};
    int32_t cropHeight{0};

    template <typename Visit>
    void visit(Visit&& field)
    {
        field("crop_width", cropWidth, Need::kREQUIRED);
        field("crop_height", cropHeight, Need::kREQUIRED);
    }
};

//! Both versions' operation (common/family_plugins.h).
struct CropAndResizeFamily
{
    using Params = CropAndResizeParams;
    static constexpr char const* kName = "CropAndResizeDynamic";
    static constexpr char const* kDynamicVersion = "1";
    static constexpr char const* kV3Version = "2";

    static void check(Params const& params);
    static nvinfer1::DimsExprs outputShape(Params const& params, nvinfer1::DimsExprs const* inputs, int32_t nbInputs,
        nvinfer1::IExprBuilder& exprBuilder);
    static bool supportsFormat(int32_t pos, nvinfer1::PluginTensorDesc const* inOut, int32_t nbInputs);
    static void runHost(Params const& params, PluginTensors const& io);
    static void runDevice(Params const& params, PluginTensors const& io, cudaStream_t stream);
};

using CropAndResizePluginV1 = FamilyDynamicPlugin<CropAndResizeFamily>;
using CropAndResizePluginV2 = FamilyV3Plugin<CropAndResizeFamily>;

} // namespace kiln::plugins
