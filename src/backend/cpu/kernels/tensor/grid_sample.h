// IGridSampleLayer (ONNX GridSample-16).
//
// Samples input [N, C, H, W] at the points of grid [N, H_out, W_out, 2] into [N, C, H_out, W_out]. A grid point
// (x, y) in [-1, 1] maps to pixel coordinates: with alignCorners, -1 and 1 are the centres of the corner pixels;
// without, their outer edges. kNEAREST rounds half to even; kLINEAR blends the 2 x 2 neighbours, kCUBIC the 4 x 4
// with ONNX's coefficient -0.75. Points and neighbours outside the input follow the sample mode, as ONNX's reference
// places them: kFILL reads zeros; kCLAMP moves a point outside [low, high] (the pixel centres with alignCorners,
// the edges without) to the nearest edge pixel and clamps neighbours; kREFLECT reflects both at [low, high]. A NaN
// grid coordinate gives NaN. FP32/FP16/BF16, accumulated in double and rounded once on store.
#pragma once

#include "core/tensor_view.h"
#include "network/layers/grid_sample.h"

namespace kiln::cpu
{

Shape gridSampleOutputShape(Shape const& input, Shape const& grid);

void gridSample(ConstTensorView const& input, ConstTensorView const& grid, TensorView const& output,
    network::GridSampleParams const& params);

} // namespace kiln::cpu
