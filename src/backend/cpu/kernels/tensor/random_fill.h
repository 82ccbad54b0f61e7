// IFillLayer's kRANDOM_UNIFORM and kRANDOM_NORMAL (ONNX RandomUniform, RandomNormal).
//
// TensorRT documents the distributions, not its generator, so no backend can repeat TensorRT's numbers. This
// reference draws from the counter-based generator in backend/shared/counter_random.h with a constant seed, so a layer
// gives the same values on every run and every platform, and the CUDA backend computes the same values in parallel.
// kRANDOM_UNIFORM: alpha + (beta - alpha) * u, u uniform in [0, 1) (53 bits), clamped to beta, so values lie in
// [alpha, beta] once rounded to the output type. kRANDOM_NORMAL: alpha + beta * z, z standard normal by the
// Box-Muller transform. Output: FP32, FP16 or BF16.
#pragma once

#include "backend/cpu/layer_kernels.h"
#include "core/tensor_view.h"
#include "network/layers/fill.h"

namespace kiln::cpu
{

//! Alpha (the minimum, or the mean) is input 1 when given, else params.alpha; beta (the maximum, or the standard
//! deviation) is input 2 when given, else params.beta.
void randomFill(LayerInputs const& inputs, TensorView const& output, network::FillParams const& params);

} // namespace kiln::cpu
