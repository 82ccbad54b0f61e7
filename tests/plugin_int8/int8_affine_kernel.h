// The device side of the Int8ChannelAffine test plugin (int8_affine_kernel.cu, built with CUDA only): its kernel and
// the upload of its weights.
#pragma once

#include "device_common/vector_layout.h"

#include <NvInferRuntimeBase.h>

#include <cstdint>
#include <vector>

namespace kiln_int8_test
{

//! Enqueues int8_affine_math.h over every element of `layout` on `stream`; weight and bias are device arrays.
int32_t launchInt8Affine(int8_t const* x, int8_t* y, kiln::VectorLayout layout, float inScale, float outScale,
    float const* weight, float const* bias, cudaStream_t stream);

//! Copies weight and bias into device memory (*weightOut, *biasOut); 0 on success.
int32_t uploadAffine(
    std::vector<float> const& weight, std::vector<float> const& bias, float** weightOut, float** biasOut);

//! Frees what uploadAffine allocated (null pointers are fine).
void releaseAffine(float* weight, float* bias);

} // namespace kiln_int8_test
