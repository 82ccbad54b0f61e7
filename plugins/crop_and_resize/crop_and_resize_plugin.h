// CropAndResizeDynamic: version 1 (IPluginV2DynamicExt) and version 2 (IPluginV3). TensorFlow's crop_and_resize:
// feature_maps [N, C, H, W] and rois [N, B, 4, 1] (y1, x1, y2, x2, normalized; [N, B, 4] accepted too) give
// crops [N, B, C, crop_height, crop_width], FP32.
#pragma once

#include "common/twin_plugin.h"

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

//! Both versions' operation (common/twin_plugin.h).
struct CropAndResizeFamily : TwinCoreDefaults
{
    using Params = CropAndResizeParams;
    static constexpr char const* kName = "CropAndResizeDynamic";
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

using CropAndResizePluginV1 = TwinV2Plugin<CropAndResizeFamily>;
using CropAndResizePluginV2 = TwinV3Plugin<CropAndResizeFamily>;

} // namespace kiln::plugins
