// Host-side entry points of the seed plugins' CUDA kernels (the .cu files next to this
// header). They exist only when the library is built with CUDA (KILN_WITH_CUDA); each
// enqueues its work on the given stream and returns 0, or 1 if the launch failed.
#pragma once

#include <NvInferRuntimeBase.h>

#include <cstddef>
#include <cstdint>

#ifdef KILN_WITH_CUDA

namespace kiln_seed
{
namespace cuda
{

//! MyCustomPlugin: y[o, c, i] = x[o, c, i] * weight[c] + bias[c]; weight and bias are device arrays.
int32_t launchChannelAffine(void const* x, void* y, bool isHalf, float const* weight, float const* bias, int64_t outer,
    int64_t channels, int64_t inner, cudaStream_t stream);

//! FooPlugin: y = x > 0 ? x : alpha * x.
int32_t launchLeakyRelu(void const* x, void* y, bool isHalf, float alpha, int64_t count, cudaStream_t stream);

//! CustomPlugin: y = min(max(x, lo), hi), FP32 only.
int32_t launchClamp(float const* x, float* y, float lo, float hi, int64_t count, cudaStream_t stream);

//! ScaledAddPlugin: y = a + alpha * b.
int32_t launchScaledAdd(
    void const* a, void const* b, void* y, bool isHalf, float alpha, int64_t count, cudaStream_t stream);

//! Copies count floats to newly allocated device memory (*device); 0 on success.
int32_t uploadFloats(float const* host, size_t count, float** device);

//! Frees memory from uploadFloats (nullptr is fine).
void freeDevice(void* device);

} // namespace cuda
} // namespace kiln_seed

#endif // KILN_WITH_CUDA
