// ITopKLayer on the GPU, as the CPU reference (backend/cpu/kernels/tensor/top_k.h): the k largest (kMAX) or
// smallest (kMIN) elements along one axis, best first, with their indices. Any k up to the axis extent (no 3840
// cap); equal values come out lower index first; NaN ranks above every number (first for kMAX, last for kMIN);
// -0 and +0 are equal.
#include "backend/cuda/layer_kernels.h"
#include "backend/cuda/cuda_error.h"
#include "backend/cuda/device_access.cuh"
#include "backend/cuda/device_buffer.h"
#include "backend/cuda/strided_index.cuh"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_segmented_radix_sort.cuh>

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

namespace kiln::cuda
{
namespace
{

using device::DataType;

constexpr int kWarpSize = 32;
constexpr unsigned kWholeWarp = 0xffffffffU;

// Which route a top-k takes (they give the same result; the choice is only about speed):
//  - k <= kFewPicks with k * extent <= kSelectionWork: a block per row picks the best remaining element k times,
//    reading the row k times and needing no scratch memory (ArgMax and ArgMin are k = 1);
//  - otherwise every row is sorted with CUB's stable radix sorts, and the first k of each are written out: rows
//    of at least kLongRow elements, when there are at most kFewRows of them, one by one with the whole device
//    (cub::DeviceRadixSort); the rest together, kItemsPerChunk elements at a time at most, a block per row
//    (cub::DeviceSegmentedRadixSort). Not cub::DeviceSegmentedSort: past a few hundred segments it copies their
//    sizes to the host and synchronises the stream, which enqueueV3 must not do (and a CUDA graph cannot capture).
constexpr int64_t kFewPicks = 16;
constexpr int64_t kSelectionWork = int64_t{1} << 20;
constexpr int64_t kLongRow = int64_t{1} << 16;
constexpr int64_t kFewRows = 8;
constexpr int64_t kItemsPerChunk = int64_t{1} << 26; // bounds the scratch, and fits the segmented sort's int counts

//! The rows to pick from: element j of row r is at ((r / inner) * extent + j) * inner + r % inner, and the row's
//! j-th pick goes to ((r / inner) * k + j) * inner + r % inner.
struct Rows
{
    int64_t count{0};
    int64_t extent{0};
    int64_t inner{1};
    int64_t k{0};
};

__device__ int64_t inputOffset(Rows const& rows, int64_t row, int64_t j)
{
    return (row / rows.inner * rows.extent + j) * rows.inner + row % rows.inner;
}

__device__ int64_t outputOffset(Rows const& rows, int64_t row, int64_t j)
{
    return (row / rows.inner * rows.k + j) * rows.inner + row % rows.inner;
}

//! An unsigned key whose order is the CPU's numeric order of `value`: all NaNs one key above +inf (the CPU ranks
//! NaN above every number and NaNs equal), -0 the key of +0 (the CPU finds them equal).
__device__ unsigned int floatRankKey(float value)
{
    if (isnan(value))
    {
        return 0xffffffffU;
    }
    unsigned int const bits = __float_as_uint(value == 0.0F ? 0.0F : value);
    // Positive floats order as their bits once above the negatives; negative ones order backwards.
    return (bits & 0x80000000U) != 0 ? ~bits : bits | 0x80000000U;
}

//! The sort key of input element i: ascending keys are the order the CPU ranks in, best first. kMAX inverts the
//! keys, so that an ascending stable sort still keeps equal elements in index order, as the CPU breaks ties.
template <typename Key>
__device__ Key rankKey(void const* input, DataType type, int64_t i, bool largestFirst)
{
    Key key;
    if (isFloatType(type))
    {
        key = static_cast<Key>(floatRankKey(device::loadFloat(input, type, i)));
    }
    else
    {
        // Two's complement with the sign bit flipped orders as unsigned (the key's width is the type's).
        key = static_cast<Key>(device::loadInteger(input, type, i)) ^ (Key{1} << (sizeof(Key) * 8 - 1));
    }
    return largestFirst ? static_cast<Key>(~key) : key;
}

//! The CPU's strict total order: by key, then by index.
template <typename Key>
__device__ bool ranksBefore(Key keyA, int64_t indexA, Key keyB, int64_t indexB)
{
    return keyA < keyB || (keyA == keyB && indexA < indexB);
}

//! Few picks: a block per row finds, k times over, the best element ranking after the previous pick.
template <typename Key, typename T>
__global__ void selectFewKernel(T const* input, DataType type, T* values, void* indices, DataType indexType,
    Rows rows, bool largestFirst)
{
    constexpr int kMaxWarps = device::kThreadsPerBlock / kWarpSize;
    __shared__ Key warpKeys[kMaxWarps];
    __shared__ int64_t warpIndices[kMaxWarps];
    __shared__ Key pickedKey;
    __shared__ int64_t pickedIndex;
    int const lane = static_cast<int>(threadIdx.x % kWarpSize);
    int const warp = static_cast<int>(threadIdx.x / kWarpSize);
    int const warps = static_cast<int>(blockDim.x / kWarpSize);
    for (int64_t row = blockIdx.x; row < rows.count; row += gridDim.x)
    {
        Key previousKey = 0;
        int64_t previousIndex = -1;
        for (int64_t pick = 0; pick < rows.k; ++pick)
        {
            // "None yet" ranks after every element (their indices are below INT64_MAX).
            Key bestKey = static_cast<Key>(~Key{0});
            int64_t bestIndex = INT64_MAX;
            for (int64_t j = threadIdx.x; j < rows.extent; j += blockDim.x)
            {
                Key const key = rankKey<Key>(input, type, inputOffset(rows, row, j), largestFirst);
                bool const remaining = pick == 0 || ranksBefore(previousKey, previousIndex, key, j);
                if (remaining && ranksBefore(key, j, bestKey, bestIndex))
                {
                    bestKey = key;
                    bestIndex = j;
                }
            }
            for (int offset = kWarpSize / 2; offset > 0; offset /= 2)
            {
                Key const otherKey = __shfl_down_sync(kWholeWarp, bestKey, offset);
                int64_t const otherIndex = __shfl_down_sync(kWholeWarp, bestIndex, offset);
                if (ranksBefore(otherKey, otherIndex, bestKey, bestIndex))
                {
                    bestKey = otherKey;
                    bestIndex = otherIndex;
                }
            }
            if (lane == 0)
            {
                warpKeys[warp] = bestKey;
                warpIndices[warp] = bestIndex;
            }
            __syncthreads();
            if (threadIdx.x == 0)
            {
                for (int w = 1; w < warps; ++w)
                {
                    if (ranksBefore(warpKeys[w], warpIndices[w], bestKey, bestIndex))
                    {
                        bestKey = warpKeys[w];
                        bestIndex = warpIndices[w];
                    }
                }
                int64_t const target = outputOffset(rows, row, pick);
                values[target] = input[inputOffset(rows, row, bestIndex)];
                device::storeInteger(indices, indexType, target, bestIndex);
                pickedKey = bestKey;
                pickedIndex = bestIndex;
            }
            __syncthreads();
            // Read before the next pick's first barrier, after which thread 0 may write them again.
            previousKey = pickedKey;
            previousIndex = pickedIndex;
        }
    }
}

//! The sort's input for rows [firstRow, firstRow + rowCount): each row's keys and positions, contiguous, and the
//! segment offsets (row r of the chunk is [offsets[r], offsets[r + 1])).
template <typename Key>
__global__ void prepareSortKernel(void const* input, DataType type, Rows rows, int64_t firstRow, int64_t rowCount,
    bool largestFirst, Key* keys, int32_t* positions, int64_t* offsets)
{
    KILN_GRID_STRIDE_LOOP(e, rowCount * rows.extent)
    {
        int64_t const j = e % rows.extent;
        keys[e] = rankKey<Key>(input, type, inputOffset(rows, firstRow + e / rows.extent, j), largestFirst);
        positions[e] = static_cast<int32_t>(j);
    }
    KILN_GRID_STRIDE_LOOP(r, rowCount + 1)
    {
        offsets[r] = r * rows.extent;
    }
}

//! The first k positions of each sorted row: their elements, copied exactly, and their indices.
template <typename T>
__global__ void writePicksKernel(T const* input, T* values, void* indices, DataType indexType, Rows rows,
    int64_t firstRow, int64_t rowCount, int32_t const* sortedPositions)
{
    KILN_GRID_STRIDE_LOOP(e, rowCount * rows.k)
    {
        int64_t const local = e / rows.k;
        int64_t const pick = e % rows.k;
        int64_t const row = firstRow + local;
        int64_t const chosen = sortedPositions[local * rows.extent + pick];
        int64_t const target = outputOffset(rows, row, pick);
        values[target] = input[inputOffset(rows, row, chosen)];
        device::storeInteger(indices, indexType, target, chosen);
    }
}

size_t alignUp(size_t bytes)
{
    constexpr size_t kAlignment = 256;
    return (bytes + kAlignment - 1) / kAlignment * kAlignment;
}

//! Bytes of CUB's temporary storage to sort `chunkRows` rows of `extent` keys (one row: device-wide).
template <typename Key>
size_t sortTemporaryBytes(int64_t chunkRows, int64_t extent, cudaStream_t stream)
{
    size_t bytes = 0;
    Key* const noKeys = nullptr;
    int32_t* const noPositions = nullptr;
    int64_t* const noOffsets = nullptr; // the types of the real call's arguments, so CUB sizes that very sort
    if (chunkRows == 1)
    {
        check(cub::DeviceRadixSort::SortPairs(nullptr, bytes, noKeys, noKeys, noPositions, noPositions, extent, 0,
                  static_cast<int>(sizeof(Key) * 8), stream),
            "top-k: sizing the sort");
    }
    else
    {
        check(cub::DeviceSegmentedRadixSort::SortPairs(nullptr, bytes, noKeys, noKeys, noPositions, noPositions,
                  static_cast<int>(chunkRows * extent), static_cast<int>(chunkRows), noOffsets, noOffsets, 0,
                  static_cast<int>(sizeof(Key) * 8), stream),
            "top-k: sizing the sort");
    }
    return bytes;
}

template <typename Key, typename T>
void sortRowsAndWritePicks(Rows const& rows, bool largestFirst, ConstTensorView const& input,
    TensorView const& values, TensorView const& indices, DeviceBuffer& scratch, cudaStream_t stream)
{
    int64_t const n = rows.extent;
    int64_t const rowsPerChunk
        = rows.count <= kFewRows && n >= kLongRow ? 1 : std::clamp<int64_t>(kItemsPerChunk / n, 1, rows.count);
    int64_t const lastChunkRows = rows.count - (rows.count - 1) / rowsPerChunk * rowsPerChunk;
    size_t const temporaryBytes = std::max(sortTemporaryBytes<Key>(rowsPerChunk, n, stream),
        sortTemporaryBytes<Key>(lastChunkRows, n, stream));
    auto const items = static_cast<size_t>(rowsPerChunk * n);
    size_t const keyBytes = alignUp(items * sizeof(Key));
    size_t const positionBytes = alignUp(items * sizeof(int32_t));
    size_t const offsetBytes = alignUp(static_cast<size_t>(rowsPerChunk + 1) * sizeof(int64_t));
    scratch.reserve(2 * keyBytes + 2 * positionBytes + offsetBytes + temporaryBytes, stream);
    std::byte* next = scratch.data();
    auto take = [&next](size_t bytes) { return std::exchange(next, next + bytes); };
    auto* const keysIn = reinterpret_cast<Key*>(take(keyBytes));
    auto* const keysOut = reinterpret_cast<Key*>(take(keyBytes));
    auto* const positionsIn = reinterpret_cast<int32_t*>(take(positionBytes));
    auto* const positionsOut = reinterpret_cast<int32_t*>(take(positionBytes));
    auto* const offsets = reinterpret_cast<int64_t*>(take(offsetBytes));
    void* const temporary = take(temporaryBytes);
    for (int64_t first = 0; first < rows.count; first += rowsPerChunk)
    {
        int64_t const chunkRows = std::min(rowsPerChunk, rows.count - first);
        prepareSortKernel<Key><<<device::blocksFor(chunkRows * n), device::kThreadsPerBlock, 0, stream>>>(
            input.data, input.type, rows, first, chunkRows, largestFirst, keysIn, positionsIn, offsets);
        check(cudaGetLastError(), "top-k: launching the sort's preparation");
        size_t bytes = temporaryBytes;
        if (chunkRows == 1)
        {
            check(cub::DeviceRadixSort::SortPairs(temporary, bytes, keysIn, keysOut, positionsIn, positionsOut, n, 0,
                      static_cast<int>(sizeof(Key) * 8), stream),
                "top-k: sorting a row");
        }
        else
        {
            check(cub::DeviceSegmentedRadixSort::SortPairs(temporary, bytes, keysIn, keysOut, positionsIn,
                      positionsOut, static_cast<int>(chunkRows * n), static_cast<int>(chunkRows), offsets, offsets + 1,
                      0, static_cast<int>(sizeof(Key) * 8), stream),
                "top-k: sorting the rows");
        }
        writePicksKernel<T><<<device::blocksFor(chunkRows * rows.k), device::kThreadsPerBlock, 0, stream>>>(
            static_cast<T const*>(input.data), static_cast<T*>(values.data), indices.data, indices.type, rows, first,
            chunkRows, positionsOut);
        check(cudaGetLastError(), "top-k: launching the output copy");
    }
}

template <typename Key, typename T>
void topKOfRows(Rows const& rows, bool largestFirst, ConstTensorView const& input, TensorView const& values,
    TensorView const& indices, DeviceBuffer& scratch, cudaStream_t stream)
{
    if (rows.k <= kFewPicks && rows.k * rows.extent <= kSelectionWork)
    {
        // Whole warps, no more than a row's worth of them.
        int64_t const warps = std::min<int64_t>((rows.extent + kWarpSize - 1) / kWarpSize,
            device::kThreadsPerBlock / kWarpSize);
        auto const blocks = static_cast<unsigned>(std::min<int64_t>(rows.count, 65535 * 8));
        selectFewKernel<Key, T><<<blocks, static_cast<unsigned>(warps * kWarpSize), 0, stream>>>(
            static_cast<T const*>(input.data), input.type, static_cast<T*>(values.data), indices.data, indices.type,
            rows, largestFirst);
        check(cudaGetLastError(), "top-k: launching the selection");
        return;
    }
    sortRowsAndWritePicks<Key, T>(rows, largestFirst, input, values, indices, scratch, stream);
}

//! k is the outputs' extent along the axis (a k from the layer's shape-tensor input is already resolved into it);
//! it must be 1 to the axis extent. Values have the input's type (FP32, FP16, BF16, INT32, INT64) and are copied
//! exactly; indices are INT32 or INT64. Large k sorts every row with CUB, in `scratch` (grown on the stream as
//! needed). Throws std::invalid_argument for what the CPU reference refuses.
void topKOnDevice(nvinfer1::TopKOperation operation, uint32_t reduceAxes, ConstTensorView const& input,
    TensorView const& values, TensorView const& indices, DeviceBuffer& scratch, cudaStream_t stream)
{
    int32_t axis = 0;
    while (axis < 31 && (reduceAxes & (1U << axis)) == 0)
    {
        ++axis;
    }
    if (reduceAxes != (1U << axis) || axis >= input.rank())
    {
        throw std::invalid_argument("top-k: reduceAxes must name exactly one axis of the input");
    }
    auto const a = static_cast<size_t>(axis);
    int64_t const k = values.shape.size() == input.shape.size() ? values.shape[a] : -1;
    if (k < 1 || k > input.shape[a])
    {
        throw std::invalid_argument("top-k: k is " + std::to_string(k) + "; must be in [1, "
            + std::to_string(input.shape[a]) + "] (the extent of axis " + std::to_string(axis) + ")");
    }
    Shape expected = input.shape;
    expected[a] = k;
    if (values.shape != expected || indices.shape != expected)
    {
        throw std::invalid_argument("top-k: the outputs must have the input's shape with k along the axis");
    }
    if (values.type != input.type)
    {
        throw std::invalid_argument("top-k: the values must have the input's type");
    }
    if (!isIndexType(indices.type))
    {
        throw std::invalid_argument("top-k: the indices must be INT32 or INT64");
    }
    if (!isFloatType(input.type) && !isIndexType(input.type))
    {
        throw std::invalid_argument("top-k: the input must be FP32, FP16, BF16, INT32 or INT64");
    }
    if (input.shape[a] > INT32_MAX)
    {
        throw std::invalid_argument("top-k: the CUDA backend takes axes of at most 2^31 - 1 elements");
    }
    if (values.count() == 0)
    {
        return;
    }
    Rows rows;
    rows.extent = input.shape[a];
    for (size_t d = a + 1; d < input.shape.size(); ++d)
    {
        rows.inner *= input.shape[d];
    }
    rows.count = input.count() / rows.extent;
    rows.k = k;
    bool const largestFirst = operation == nvinfer1::TopKOperation::kMAX;
    // Keys as wide as the ranked value: 32 bits for FP32, FP16, BF16 and INT32, 64 for INT64.
    switch (input.type)
    {
    case DataType::kINT64:
        topKOfRows<unsigned long long, uint64_t>(rows, largestFirst, input, values, indices, scratch, stream);
        break;
    case DataType::kHALF:
    case DataType::kBF16:
        topKOfRows<unsigned int, uint16_t>(rows, largestFirst, input, values, indices, scratch, stream);
        break;
    default: topKOfRows<unsigned int, uint32_t>(rows, largestFirst, input, values, indices, scratch, stream); break;
    }
}

//! The layer in one execution context. Its only state is the sort's scratch memory: kept for the context's life,
//! so that runs after the first allocate nothing, and allocated through the context's allocator (a DeviceBuffer
//! made while the context makes its layers), as all the backend's device memory is.
class TopKLayer final : public DeviceLayer
{
public:
    explicit TopKLayer(network::TopKParams const& params)
        : mOperation(params.operation)
        , mReduceAxes(params.reduceAxes)
    {
    }

    //! Input 1, when given, held k; the outputs' shape already has it.
    void run(std::vector<ConstTensorView> const& inputs, std::vector<TensorView> const& outputs,
        cudaStream_t stream) override
    {
        if (outputs.size() != 2)
        {
            throw std::invalid_argument("top-k: the layer has two outputs, values and indices");
        }
        topKOnDevice(mOperation, mReduceAxes, inputs.at(0), outputs[0], outputs[1], mScratch, stream);
    }

private:
    nvinfer1::TopKOperation mOperation;
    uint32_t mReduceAxes;
    DeviceBuffer mScratch;
};

} // namespace

std::unique_ptr<DeviceLayer> lower(network::TopKParams const& params, LayerContext const& /*context*/)
{
    return std::make_unique<TopKLayer>(params);
}

} // namespace kiln::cuda
