#include "backend/cuda/residual.h"

#include "backend/cuda/cuda_error.h"

#include <cuda_fp16.h>

#include <algorithm>
#include <stdexcept>

namespace kiln::cuda
{
namespace
{

__device__ float epilogue(float sum, bool relu)
{
    return relu && sum < 0.0F ? 0.0F : sum; // NaN compares false and passes through
}

__global__ void addResidualFloat(float* output, float const* residual, int64_t count, bool relu)
{
    for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < count; i += int64_t{gridDim.x} * blockDim.x)
    {
        output[i] = epilogue(output[i] + residual[i], relu);
    }
}

//! FP16 in pairs: `pairs` __half2 values (the caller handles an odd last element).
__global__ void addResidualHalf(__half2* output, __half2 const* residual, int64_t pairs, bool relu)
{
    for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < pairs; i += int64_t{gridDim.x} * blockDim.x)
    {
        float2 const a = __half22float2(output[i]);
        float2 const b = __half22float2(residual[i]);
        output[i] = __floats2half2_rn(epilogue(a.x + b.x, relu), epilogue(a.y + b.y, relu));
    }
}

__global__ void addResidualLastHalf(__half* output, __half const* residual, bool relu)
{
    *output = __float2half_rn(epilogue(__half2float(*output) + __half2float(*residual), relu));
}

//! Enough blocks to fill the GPU a few times over; the loops stride over the rest.
unsigned blocksFor(int64_t items, int threads)
{
    return static_cast<unsigned>(std::clamp<int64_t>((items + threads - 1) / threads, 1, 4096));
}

} // namespace

void addResidualOnDevice(
    void* output, void const* residual, int64_t count, nvinfer1::DataType type, bool relu, cudaStream_t stream)
{
    if (count <= 0)
    {
        return;
    }
    constexpr int kThreads = 256;
    if (type == nvinfer1::DataType::kFLOAT)
    {
        addResidualFloat<<<blocksFor(count, kThreads), kThreads, 0, stream>>>(
            static_cast<float*>(output), static_cast<float const*>(residual), count, relu);
    }
    else if (type == nvinfer1::DataType::kHALF)
    {
        // The convolution's tensors are 16-byte aligned, so pairs are 4-byte aligned.
        int64_t const pairs = count / 2;
        if (pairs > 0)
        {
            addResidualHalf<<<blocksFor(pairs, kThreads), kThreads, 0, stream>>>(
                static_cast<__half2*>(output), static_cast<__half2 const*>(residual), pairs, relu);
        }
        if (count % 2 != 0)
        {
            addResidualLastHalf<<<1, 1, 0, stream>>>(static_cast<__half*>(output) + count - 1,
                static_cast<__half const*>(residual) + count - 1, relu);
        }
    }
    else
    {
        throw std::invalid_argument("convolution: a residual is added to FP32 or FP16 data only");
    }
    check(cudaGetLastError(), "adding a convolution's residual");
}

} // namespace kiln::cuda
