// The sum of a value over the 32 lanes of a warp, returned to every lane.
#pragma once

namespace kiln::cuda::device
{

__device__ __forceinline__ float warpSum(float value)
{
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2)
    {
        value += __shfl_xor_sync(0xFFFFFFFFU, value, offset);
    }
    return value;
}

} // namespace kiln::cuda::device
