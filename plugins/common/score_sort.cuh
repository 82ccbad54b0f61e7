// Sorting scores on the GPU for the NMS plugins: scores become unsigned keys whose order is the scores' order (0
// is kept for "not a candidate", so rejected entries sink to the end), and CUB's segmented radix sort orders each
// segment by descending key. CUB's radix sorts are stable: equal scores keep their index order.
#pragma once

#include <cub/device/device_segmented_radix_sort.cuh>
#include <cuda_runtime_api.h>

#include <cstdint>

namespace kiln::plugins
{

//! A key that orders as `score` does (+0 and -0 alike); never 0.
__device__ inline uint32_t orderedScoreKey(float score)
{
    uint32_t const bits = __float_as_uint(score == 0.F ? 0.F : score);
    uint32_t const key = (bits & 0x80000000U) != 0U ? ~bits : (bits | 0x80000000U);
    return key == 0U ? 1U : key;
}

//! offsets[i] = i * segmentLength for i in [0, segments]. (A template, so that every .cu may include it.)
template <typename Unused = void>
__global__ void fillSegmentOffsets(int32_t* offsets, int32_t segments, int32_t segmentLength)
{
    for (int32_t i = blockIdx.x * blockDim.x + threadIdx.x; i <= segments; i += gridDim.x * blockDim.x)
    {
        offsets[i] = i * segmentLength;
    }
}

//! Sorts each segment [offsets[s], offsets[s + 1]) of (key, value) pairs by descending key. With temp == null,
//! only sets tempBytes.
inline cudaError_t sortSegmentsDescending(void* temp, size_t& tempBytes, uint32_t const* keysIn, uint32_t* keysOut,
    int32_t const* valuesIn, int32_t* valuesOut, int32_t items, int32_t segments, int32_t const* offsets,
    cudaStream_t stream)
{
    return cub::DeviceSegmentedRadixSort::SortPairsDescending(
        temp, tempBytes, keysIn, keysOut, valuesIn, valuesOut, items, segments, offsets, offsets + 1, 0, 32, stream);
}

//! The temporary bytes sortSegmentsDescending needs for `items` in `segments`.
inline size_t sortSegmentsTempBytes(int32_t items, int32_t segments)
{
    size_t bytes = 0;
    sortSegmentsDescending(nullptr, bytes, nullptr, nullptr, nullptr, nullptr, items, segments, nullptr, nullptr);
    return bytes;
}

} // namespace kiln::plugins
