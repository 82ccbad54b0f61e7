// Elements of the kernels templated on their storage type, FP32 or FP16, read into float and written back from it
// (round to nearest even), and what a value becomes once stored.
#pragma once

#include <cuda_fp16.h>

namespace kiln::cuda::device
{

__device__ __forceinline__ float toFloat(float value)
{
    return value;
}

__device__ __forceinline__ float toFloat(__half value)
{
    return __half2float(value);
}

template <typename T>
__device__ __forceinline__ T fromFloat(float value);

template <>
__device__ __forceinline__ float fromFloat<float>(float value)
{
    return value;
}

template <>
__device__ __forceinline__ __half fromFloat<__half>(float value)
{
    return __float2half_rn(value);
}

//! `value` as a tensor of T holds it.
template <typename T>
__device__ __forceinline__ float storedAs(float value)
{
    return toFloat(fromFloat<T>(value));
}

} // namespace kiln::cuda::device
