// Launch geometry and FP16 loads/stores shared by the seed plugins' kernels.
#pragma once

#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>

namespace kiln_seed
{
namespace cuda
{

constexpr int kTHREADS_PER_BLOCK = 256;

//! Blocks for a grid-stride loop over count elements (capped; each thread loops).
inline unsigned int blocksFor(int64_t count)
{
    int64_t const blocks = (count + kTHREADS_PER_BLOCK - 1) / kTHREADS_PER_BLOCK;
    return static_cast<unsigned int>(std::max<int64_t>(1, std::min<int64_t>(blocks, 65535)));
}

//! 0 if the last launch was accepted, else 1.
inline int32_t launchStatus()
{
    return cudaGetLastError() == cudaSuccess ? 0 : 1;
}

__device__ inline float loadAsFloat(float const* p, int64_t i)
{
    return p[i];
}

__device__ inline float loadAsFloat(__half const* p, int64_t i)
{
    return __half2float(p[i]);
}

__device__ inline void storeFromFloat(float* p, int64_t i, float v)
{
    p[i] = v;
}

__device__ inline void storeFromFloat(__half* p, int64_t i, float v)
{
    p[i] = __float2half_rn(v);
}

} // namespace cuda
} // namespace kiln_seed
