#include "group_norm_kernels.h"

#include <cuda_fp16.h>

#include <algorithm>

namespace kiln::plugins
{
namespace
{

int32_t constexpr kThreads = 256;

//! The sum of `value` over the block; every thread gets it. `shared` holds kThreads / 32 floats.
__device__ float blockSum(float value, float* shared)
{
    for (int32_t offset = 16; offset > 0; offset /= 2)
    {
        value += __shfl_down_sync(0xffffffffU, value, offset);
    }
    int32_t const lane = threadIdx.x % 32;
    int32_t const warp = threadIdx.x / 32;
    if (lane == 0)
    {
        shared[warp] = value;
    }
    __syncthreads();
    if (warp == 0)
    {
        value = lane < kThreads / 32 ? shared[lane] : 0.F;
        for (int32_t offset = 16; offset > 0; offset /= 2)
        {
            value += __shfl_down_sync(0xffffffffU, value, offset);
        }
        if (lane == 0)
        {
            shared[0] = value;
        }
    }
    __syncthreads();
    float const total = shared[0];
    __syncthreads(); // the next call writes shared again
    return total;
}

// One block per row (an image's group of channels, contiguous in memory): its mean, then the mean of squared
// deviations (two passes, as the host kernel), then the normalized, scaled and shifted output.
template <typename T>
__global__ void __launch_bounds__(kThreads) groupNormKernel(
    T const* x, T* y, GroupNormShape shape, GroupNormAffine affine)
{
    __shared__ float shared[kThreads / 32];
    int64_t const channelsPerGroup = shape.channels / shape.groups;
    int64_t const rowLength = channelsPerGroup * shape.spatial;
    int64_t const rows = shape.batch * shape.groups;
    float const count = static_cast<float>(rowLength);
    for (int64_t row = blockIdx.x; row < rows; row += gridDim.x)
    {
        T const* in = x + row * rowLength;
        T* out = y + row * rowLength;
        float sum = 0.F;
        for (int64_t i = threadIdx.x; i < rowLength; i += kThreads)
        {
            sum += static_cast<float>(in[i]);
        }
        float const mean = blockSum(sum, shared) / count;
        float squares = 0.F;
        for (int64_t i = threadIdx.x; i < rowLength; i += kThreads)
        {
            float const deviation = static_cast<float>(in[i]) - mean;
            squares += deviation * deviation;
        }
        float const invStd = rsqrtf(blockSum(squares, shared) / count + affine.epsilon);
        int64_t const firstChannel = (row % shape.groups) * channelsPerGroup;
        for (int64_t i = threadIdx.x; i < rowLength; i += kThreads)
        {
            int64_t const channel = firstChannel + i / shape.spatial;
            float value = affine.scale[channel] * ((static_cast<float>(in[i]) - mean) * invStd) + affine.bias[channel];
            if (affine.leakyRelu && value < 0.F)
            {
                value *= affine.alpha;
            }
            out[i] = static_cast<T>(value);
        }
    }
}

} // namespace

cudaError_t launchGroupNorm(void const* x, void* y, bool half, GroupNormShape const& shape,
    GroupNormAffine const& affine, cudaStream_t stream)
{
    int64_t const rows = shape.batch * shape.groups;
    if (rows == 0 || shape.channels == 0 || shape.spatial == 0)
    {
        return cudaSuccess;
    }
    auto const blocks = static_cast<unsigned>(std::min<int64_t>(rows, int64_t{1} << 30));
    if (half)
    {
        groupNormKernel<<<blocks, kThreads, 0, stream>>>(
            static_cast<__half const*>(x), static_cast<__half*>(y), shape, affine);
    }
    else
    {
        groupNormKernel<<<blocks, kThreads, 0, stream>>>(
            static_cast<float const*>(x), static_cast<float*>(y), shape, affine);
    }
    return cudaGetLastError();
}

} // namespace kiln::plugins
