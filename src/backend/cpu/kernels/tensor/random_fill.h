// IFillLayer's kRANDOM_UNIFORM and kRANDOM_NORMAL (ONNX RandomUniform, RandomNormal).
//
// TensorRT documents the distributions, not its generator, so no backend can repeat TensorRT's numbers. This
// reference draws from the counter-based generator in counter_random.h with a constant seed, so a layer gives the
// same values on every run and every platform, and the CUDA backend computes the same values in parallel.
// kRANDOM_UNIFORM: alpha + (beta - alpha) * u, u uniform in [0, 1) (53 bits), clamped to beta, so values lie in
// [alpha, beta] once rounded to the output type. kRANDOM_NORMAL: alpha + beta * z, z standard normal by the
// Box-Muller transform. Output: FP32, FP16 or BF16.
#pragma once

#include "core/tensor_view.h"

#include <NvInferLayerEnums.h>

namespace kiln::cpu
{

struct RandomFill
{
    nvinfer1::FillOperation operation{nvinfer1::FillOperation::kRANDOM_UNIFORM};
    double alpha{0.0}; //!< the minimum (uniform) or the mean (normal)
    double beta{1.0};  //!< the maximum (uniform) or the standard deviation (normal)
};

void randomFill(TensorView const& output, RandomFill const& params);

} // namespace kiln::cpu
