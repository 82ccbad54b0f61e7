#include "skip_layer_norm_kernels.h"

#include "common/block_reduce.cuh"
#include "common/int8_scales.h"
#include "common/warp_layer_norm.cuh"

#include <cuda_fp16.h>

#include <algorithm>

namespace kiln::plugins
{
namespace
{

// One warp per row, the row in registers (warp_layer_norm.cuh): input, skip and bias are read once, in 16-byte
// vectors, and the output written once. Rows that do not fit take skipLayerNormKernel below.
template <typename T, int kChunks>
__global__ void __launch_bounds__(kWarpRowsPerBlock * 32) skipLayerNormWarpKernel(T const* input, T const* skip,
    T* output, float const* gamma, float const* beta, float const* bias, int64_t rows, int64_t width, float epsilon)
{
    constexpr int kVec = kVectorElements<T>;
    int const lane = static_cast<int>(threadIdx.x % 32);
    int64_t const row = static_cast<int64_t>(blockIdx.x) * kWarpRowsPerBlock + threadIdx.x / 32;
    if (row >= rows)
    {
        return; // the whole warp: the shuffles below involve this warp alone
    }
    int64_t const offset = row * width;
    float values[kChunks][kVec];
    float skipped[kChunks][kVec];
#pragma unroll
    for (int c = 0; c < kChunks; ++c)
    {
        if (chunkInRow<kVec>(c, lane, width))
        {
            loadElements(input + offset + chunkOffset<kVec>(c, lane), values[c]);
            loadElements(skip + offset + chunkOffset<kVec>(c, lane), skipped[c]);
        }
    }
#pragma unroll
    for (int c = 0; c < kChunks; ++c)
    {
        if (chunkInRow<kVec>(c, lane, width))
        {
            float added[kVec] = {};
            if (bias != nullptr)
            {
                loadFloats(bias + chunkOffset<kVec>(c, lane), added);
            }
#pragma unroll
            for (int i = 0; i < kVec; ++i)
            {
                values[c][i] = values[c][i] + skipped[c][i];
                values[c][i] = bias != nullptr ? values[c][i] + added[i] : values[c][i];
            }
        }
    }
    warpLayerNorm(values, lane, width, gamma, beta, epsilon);
#pragma unroll
    for (int c = 0; c < kChunks; ++c)
    {
        if (chunkInRow<kVec>(c, lane, width))
        {
            storeElements(values[c], output + offset + chunkOffset<kVec>(c, lane));
        }
    }
}

// One block per row (striding over rows when there are more rows than blocks); the row's values are recomputed from
// input, skip and bias in each pass rather than kept in shared memory, so any hidden size works.
template <typename T>
__global__ void skipLayerNormKernel(T const* input, T const* skip, T* output, float const* gamma, float const* beta,
    float const* bias, int64_t rows, int64_t width, float epsilon)
{
    for (int64_t row = blockIdx.x; row < rows; row += gridDim.x)
    {
        int64_t const offset = row * width;
        auto valueAt = [&](int64_t i) {
            float const value = static_cast<float>(input[offset + i]) + static_cast<float>(skip[offset + i]);
            return bias != nullptr ? value + bias[i] : value;
        };
        auto store = [&](int64_t i, float y) { output[offset + i] = static_cast<T>(y); };
        layerNormBlockRow(width, valueAt, gamma, beta, epsilon, store);
    }
}

// The INT8 form, a block per row as skipLayerNormKernel: the values are dequantized where they are read and the
// result quantized where it is stored.
__global__ void skipLayerNormInt8Kernel(int8_t const* input, int8_t const* skip, int8_t* output, float const* gamma,
    float const* beta, float const* bias, int64_t rows, int64_t width, int64_t rowStride, Int8Scales scales,
    float epsilon)
{
    for (int64_t row = blockIdx.x; row < rows; row += gridDim.x)
    {
        int64_t const offset = row * rowStride;
        auto valueAt = [&](int64_t i) {
            float const value = static_cast<float>(input[offset + i]) * scales.input
                + static_cast<float>(skip[offset + i]) * scales.skip;
            return bias != nullptr ? value + bias[i] : value;
        };
        auto store = [&](int64_t i, float y) { output[offset + i] = quantizeInt8(y, scales.output); };
        layerNormBlockRow(width, valueAt, gamma, beta, epsilon, store);
    }
}

template <typename T>
struct WarpLaunch
{
    T const* input;
    T const* skip;
    T* output;
    float const* gamma;
    float const* beta;
    float const* bias;
    int64_t rows;
    int64_t width;
    float epsilon;
    cudaStream_t stream;

    template <int kChunks>
    cudaError_t operator()() const
    {
        auto const blocks = static_cast<unsigned>((rows + kWarpRowsPerBlock - 1) / kWarpRowsPerBlock);
        skipLayerNormWarpKernel<T, kChunks><<<blocks, kWarpRowsPerBlock * 32, 0, stream>>>(
            input, skip, output, gamma, beta, bias, rows, width, epsilon);
        return cudaGetLastError();
    }
};

template <typename T>
cudaError_t launchTyped(void const* input, void const* skip, void* output, float const* gamma, float const* beta,
    float const* bias, int64_t rows, int64_t width, float epsilon, cudaStream_t stream)
{
    auto const* in = static_cast<T const*>(input);
    auto const* added = static_cast<T const*>(skip);
    auto* out = static_cast<T*>(output);
    void const* const pointers[] = {input, skip, output};
    int const chunks = warpRowChunks(width, sizeof(T), pointers, 3);
    // The grid of the warp path stays within the grid's x extent for any row count of an int32 tensor volume.
    if (chunks > 0 && (rows + kWarpRowsPerBlock - 1) / kWarpRowsPerBlock < (int64_t{1} << 31))
    {
        return withWarpChunks(chunks, WarpLaunch<T>{in, added, out, gamma, beta, bias, rows, width, epsilon, stream});
    }
    int constexpr kThreads = 256;
    auto const blocks = static_cast<unsigned>(std::min<int64_t>(rows, 65535 * 16));
    skipLayerNormKernel<<<blocks, kThreads, 0, stream>>>(in, added, out, gamma, beta, bias, rows, width, epsilon);
    return cudaGetLastError();
}

} // namespace

cudaError_t launchSkipLayerNorm(void const* input, void const* skip, void* output, bool half, float const* gamma,
    float const* beta, float const* bias, int64_t rows, int64_t width, float epsilon, cudaStream_t stream)
{
    if (rows == 0 || width == 0)
    {
        return cudaSuccess;
    }
    return half ? launchTyped<__half>(input, skip, output, gamma, beta, bias, rows, width, epsilon, stream)
                : launchTyped<float>(input, skip, output, gamma, beta, bias, rows, width, epsilon, stream);
}

cudaError_t launchSkipLayerNormInt8(int8_t const* input, int8_t const* skip, int8_t* output, float const* gamma,
    float const* beta, float const* bias, int64_t rows, int64_t width, int64_t rowStride, Int8Scales scales,
    float epsilon, cudaStream_t stream)
{
    if (rows == 0 || width == 0)
    {
        return cudaSuccess;
    }
    int constexpr kThreads = 256;
    auto const blocks = static_cast<unsigned>(std::min<int64_t>(rows, 65535 * 16));
    skipLayerNormInt8Kernel<<<blocks, kThreads, 0, stream>>>(
        input, skip, output, gamma, beta, bias, rows, width, rowStride, scales, epsilon);
    return cudaGetLastError();
}

} // namespace kiln::plugins
