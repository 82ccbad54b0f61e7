// ModulatedDeformConv2d's fields, shapes and the work its two versions share (1: IPluginV2DynamicExt,
// 2: IPluginV3): DCNv2 as mmcv and mmdeploy define it, which torchvision's deform_conv2d with a mask matches.
#pragma once

#include "common/fields.h"
#include "common/plugin_tensors.h"

#include <NvInferRuntime.h>

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::plugins
{

inline constexpr char kDeformConvName[] = "ModulatedDeformConv2d";

struct DeformConvParams
{
    std::vector<int32_t> stride{1, 1};   //!< [h, w]
    std::vector<int32_t> padding{0, 0};  //!< [h, w]
    std::vector<int32_t> dilation{1, 1}; //!< [h, w]
    int32_t group{1};                    //!< convolution groups: split input and output channels
    int32_t deformableGroup{1};          //!< offset and mask groups: split the input channels

    template <typename Visit>
    void visit(Visit&& field)
    {
        field("stride", stride, Need::kOPTIONAL);
        field("padding", padding, Need::kOPTIONAL);
        field("dilation", dilation, Need::kOPTIONAL);
        field("group", group, Need::kOPTIONAL);
        field("deformable_group", deformableGroup, Need::kOPTIONAL);
    }
};

//! The extents of one run (inputs x [N, C, H, W], weight [O, C / group, KH, KW], output [N, O, OH, OW]).
struct DeformConvShape
{
    int64_t batch{0};
    int64_t inChannels{0};
    int64_t height{0};
    int64_t width{0};
    int64_t outChannels{0};
    int64_t kernelH{0};
    int64_t kernelW{0};
    int64_t outH{0};
    int64_t outW{0};
    int32_t strideH{1};
    int32_t strideW{1};
    int32_t padH{0};
    int32_t padW{0};
    int32_t dilationH{1};
    int32_t dilationW{1};
    int32_t group{1};
    int32_t deformableGroup{1};
    bool hasBias{false};
};

//! Throws PluginError naming the field and value unless the fields are valid.
void checkDeformConvParams(DeformConvParams const& params);

//! "" when inputs of these extents (-1: not known yet) fit the plugin, else what is wrong.
std::string deformConvShapeError(DeformConvParams const& params, std::vector<std::vector<int64_t>> const& inputs);

//! The output's dimensions [N, O, OH, OW] (OH, OW: the mask's), or rank -1 with the error logged.
nvinfer1::DimsExprs deformConvOutputDims(
    DeformConvParams const& params, nvinfer1::DimsExprs const* inputs, int32_t nbInputs);

//! The formats: every tensor linear, FP32 or FP16, all of one type.
bool deformConvSupports(nvinfer1::PluginTensorDesc const& desc, nvinfer1::PluginTensorDesc const& first);

//! A run's shape from its descriptors; throws PluginError if they do not fit.
DeformConvShape deformConvShapeOf(
    DeformConvParams const& params, nvinfer1::PluginTensorDesc const* inputs, int32_t nbInputs);

//! Device workspace bytes for a run of `shape` in FP32 or FP16.
size_t deformConvWorkspaceSize(DeformConvShape const& shape, bool half);

void runDeformConvHost(DeformConvShape const& shape, PluginTensors const& io);

} // namespace kiln::plugins
