// INMSLayer on the GPU, selecting what the CPU reference selects (backend/cpu/kernels/tensor/nms.h), in its order,
// with its overlap test (backend/shared/nms_box.h). Every (batch, class, box) triple is a flat position f in that
// order; then
//  1. a kernel marks the candidates (score above the threshold) and gives each a 32-bit key that orders scores
//     decreasing (-0.0 as 0.0);
//  2. where the top-k box limit can cut, CUB's stable radix sort orders the candidates by (batch item, key, f), and
//     those past the limit in their batch item stop being candidates;
//  3. a stable radix sort orders the candidates by (batch * classes + class, key, f): each class's candidates lie
//     together, in the order the reference considers them; a scan of the classes' counts gives where each starts;
//  4. the greedy selection of every class list (nms_selection.h), a chunk of candidates at a time;
//  5. a scan of the classes' selections places their rows in the output, and the count is written.
// The thresholds and maxOutputBoxesPerClass are read on the device. Any number of boxes: memory grows with
// batch * classes * boxes (the scores' count), which must be below 2^31, plus the selection's masks (64 MB at most,
// or one class list's).
#include "backend/cuda/layer_kernels.h"

#include "backend/cuda/cuda_error.h"
#include "backend/cuda/kernels/nms/nms_problem.cuh"
#include "backend/cuda/kernels/nms/nms_selection.h"
#include "backend/cuda/memory/device_buffer.h"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

namespace kiln::cuda
{
namespace
{

using device::DataType;
using nms::ClassLists;
using nms::Problem;

//! A grid-stride loop's first position and stride, in 64 bits so that the last stride cannot overflow.
__device__ int64_t firstThread()
{
    return static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ int64_t threadCount()
{
    return static_cast<int64_t>(gridDim.x) * blockDim.x;
}

//! Position f's score, of batch item f / (classes * boxes), class f / boxes % classes and box f % boxes.
__device__ float scoreAt(Problem const& p, int64_t f)
{
    int64_t const b = f / (static_cast<int64_t>(p.classes) * p.boxCount);
    int64_t const c = f / p.boxCount % p.classes;
    int64_t const n = f % p.boxCount;
    return device::loadFloat(p.scores, p.type, (b * p.boxCount + n) * p.classes + c);
}

//! A key that orders scores decreasing as unsigned integers, -0.0 as 0.0 (candidates are never NaN).
__device__ uint32_t decreasingScoreKey(float score)
{
    uint32_t const bits = __float_as_uint(score == 0.0F ? 0.0F : score);
    uint32_t const increasing = (bits & 0x80000000U) != 0 ? ~bits : bits | 0x80000000U;
    return ~increasing;
}

__global__ void markCandidatesKernel(Problem p, uint8_t* candidate, uint32_t* scoreKey)
{
    float const threshold = p.scoreThreshold != nullptr ? *p.scoreThreshold : 0.0F;
    int32_t const items = p.items();
    for (int64_t f = firstThread(); f < items; f += threadCount())
    {
        float const score = scoreAt(p, f);
        candidate[f] = score > threshold ? 1 : 0;
        scoreKey[f] = decreasingScoreKey(score);
    }
}

//! Sort keys (group << 32 | score key) and values f, the group being f's batch item (`byClass` false) or its
//! (batch item, class); non-candidates get group `groups`, after every real one. With `counts`, counts each group's
//! candidates.
__global__ void groupKeysKernel(Problem p, bool byClass, uint8_t const* candidate, uint32_t const* scoreKey,
    uint64_t* keys, int32_t* positions, int32_t* counts)
{
    int32_t const groups = byClass ? p.batch * p.classes : p.batch;
    int32_t const items = p.items();
    int32_t const perGroup = byClass ? p.boxCount : p.classes * p.boxCount;
    for (int64_t f = firstThread(); f < items; f += threadCount())
    {
        int32_t const group = candidate[f] != 0 ? static_cast<int32_t>(f / perGroup) : groups;
        keys[f] = static_cast<uint64_t>(group) << 32 | scoreKey[f];
        positions[f] = static_cast<int32_t>(f);
        if (counts != nullptr && group < groups)
        {
            atomicAdd(counts + group, 1);
        }
    }
}

//! After the sort by batch item: `first[b]` receives where batch item b's candidates start.
__global__ void markFirstOfBatchKernel(int32_t items, int32_t batch, uint64_t const* keys, int32_t* first)
{
    for (int64_t j = firstThread(); j < items; j += threadCount())
    {
        auto const b = static_cast<int32_t>(keys[j] >> 32);
        if (b < batch && (j == 0 || static_cast<int32_t>(keys[j - 1] >> 32) != b))
        {
            first[b] = static_cast<int32_t>(j);
        }
    }
}

//! The candidates past the top-k box limit in their batch item stop being candidates.
__global__ void applyTopKLimitKernel(int32_t items, int32_t batch, int32_t limit, uint64_t const* keys,
    int32_t const* positions, int32_t const* first, uint8_t* candidate)
{
    for (int64_t j = firstThread(); j < items; j += threadCount())
    {
        auto const b = static_cast<int32_t>(keys[j] >> 32);
        if (b < batch && j - first[b] >= limit)
        {
            candidate[positions[j]] = 0;
        }
    }
}

//! Writes class s's selected triples at rows rowOffsets[s] on, and the total count.
__global__ void writeRowsKernel(
    Problem p, ClassLists lists, int32_t const* rowOffsets, int64_t capacity, void* rows, DataType rowType)
{
    int32_t const classLists = p.batch * p.classes;
    for (int32_t s = blockIdx.x; s < classLists; s += gridDim.x)
    {
        for (int32_t k = threadIdx.x; k < lists.selectedCounts[s]; k += blockDim.x)
        {
            int64_t const row = static_cast<int64_t>(rowOffsets[s]) + k;
            if (row < capacity)
            {
                device::storeInteger(rows, rowType, row * 3, s / p.classes);
                device::storeInteger(rows, rowType, row * 3 + 1, s % p.classes);
                device::storeInteger(rows, rowType, row * 3 + 2, lists.selectedBoxes[lists.offsets[s] + k]);
            }
        }
    }
}

__global__ void writeCountKernel(
    int32_t classLists, int32_t const* rowOffsets, int32_t const* selectedCounts, void* count, DataType countType)
{
    int64_t const total
        = classLists == 0 ? 0 : static_cast<int64_t>(rowOffsets[classLists - 1]) + selectedCounts[classLists - 1];
    device::storeInteger(count, countType, 0, total);
}

size_t alignUp(size_t bytes)
{
    constexpr size_t kAlignment = 256;
    return (bytes + kAlignment - 1) / kAlignment * kAlignment;
}

//! The number of bits that hold every value up to `largest`.
int bitsFor(int64_t largest)
{
    int bits = 1;
    while (bits < 63 && (int64_t{1} << bits) <= largest)
    {
        ++bits;
    }
    return bits;
}

//! Throws std::invalid_argument, as the CPU reference does, for inputs and outputs it does not take.
Problem checkViews(
    std::vector<ConstTensorView> const& in, std::vector<TensorView> const& out, network::NMSParams const& params)
{
    std::string const kernel = "nms: ";
    ConstTensorView const& boxes = in.at(0);
    ConstTensorView const& scores = in.at(1);
    if (!isFloatType(boxes.type) || scores.type != boxes.type || (boxes.rank() != 3 && boxes.rank() != 4)
        || boxes.shape.back() != 4 || scores.rank() != 3)
    {
        throw std::invalid_argument(kernel
            + "boxes must be FLOAT, HALF or BF16 [batch, boxes, 4] or [batch, boxes, "
              "classes, 4], and scores [batch, boxes, classes] of their type");
    }
    bool const perClass = boxes.rank() == 4;
    if (boxes.shape[0] != scores.shape[0] || boxes.shape[1] != scores.shape[1]
        || (perClass && boxes.shape[2] != scores.shape[2]))
    {
        throw std::invalid_argument(kernel + "the boxes' extents do not match the scores' [batch, boxes, classes]");
    }
    if (in.at(2).type != DataType::kINT32 || !isIndexType(out.at(0).type) || out.at(0).rank() != 2
        || !isIndexType(out.at(1).type))
    {
        throw std::invalid_argument(kernel + "maxOutputBoxesPerClass must be INT32 and the outputs INT32 or INT64");
    }
    if (scores.count() > std::numeric_limits<int32_t>::max())
    {
        throw std::invalid_argument(
            kernel + "the CUDA kernel takes fewer than 2^31 scores, not " + std::to_string(scores.count()));
    }
    auto const floatInput = [&in](size_t i) {
        return i < in.size() && in[i].data != nullptr ? static_cast<float const*>(in[i].data) : nullptr;
    };
    return Problem{boxes.data, scores.data, boxes.type, static_cast<int32_t>(scores.shape[0]),
        static_cast<int32_t>(scores.shape[1]), static_cast<int32_t>(scores.shape[2]), perClass,
        params.boxFormat == nvinfer1::BoundingBoxFormat::kCENTER_SIZES, static_cast<int32_t const*>(in[2].data),
        floatInput(3), floatInput(4)};
}

//! The layer's scratch, carved out of one buffer for `items` positions in `classLists` classes of `batch` items.
struct Scratch
{
    uint8_t* candidate;
    uint32_t* scoreKey;
    uint64_t* keysIn;
    uint64_t* keysOut;
    int32_t* positionsIn;
    int32_t* positionsOut;
    int32_t* selectedBoxes;
    int32_t* counts;
    int32_t* offsets;
    int32_t* selectedCounts;
    int32_t* rowOffsets;
    int32_t* firstOfBatch;
    void* temporary;
    size_t temporaryBytes;
    void* selection; //!< the greedy selection's (nms::selectGreedily)
};

//! CUB's temporary storage for the sorts of `items` keys and the scans of `classLists` counts.
size_t temporaryBytesFor(int32_t items, int32_t classLists, cudaStream_t stream)
{
    size_t sortBytes = 0;
    size_t scanBytes = 0;
    uint64_t* const noKeys = nullptr;
    int32_t* const noValues = nullptr;
    check(cub::DeviceRadixSort::SortPairs(nullptr, sortBytes, noKeys, noKeys, noValues, noValues, items, 0, 64, stream),
        "nms: sizing the sort");
    check(cub::DeviceScan::ExclusiveSum(nullptr, scanBytes, noValues, noValues, classLists, stream),
        "nms: sizing the scan");
    return std::max(sortBytes, scanBytes);
}

Scratch carve(DeviceBuffer& buffer, int32_t items, int32_t classLists, int32_t batch,
    nms::SelectionPlan const& selection, cudaStream_t stream)
{
    auto const n = static_cast<size_t>(items);
    auto const lists = static_cast<size_t>(classLists);
    size_t const temporaryBytes = temporaryBytesFor(items, classLists, stream);
    size_t const sizes[] = {alignUp(n), alignUp(n * 4), alignUp(n * 8), alignUp(n * 8), alignUp(n * 4), alignUp(n * 4),
        alignUp(n * 4), alignUp(lists * 4), alignUp(lists * 4), alignUp(lists * 4), alignUp(lists * 4),
        alignUp(static_cast<size_t>(batch) * 4), alignUp(temporaryBytes), selection.scratchBytes()};
    size_t total = 0;
    for (size_t size : sizes)
    {
        total += size;
    }
    buffer.reserve(total, stream, "the NMS layer's scratch");
    std::byte* next = buffer.data();
    size_t part = 0;
    auto take = [&]() { return std::exchange(next, next + sizes[part++]); };
    Scratch s{};
    s.candidate = reinterpret_cast<uint8_t*>(take());
    s.scoreKey = reinterpret_cast<uint32_t*>(take());
    s.keysIn = reinterpret_cast<uint64_t*>(take());
    s.keysOut = reinterpret_cast<uint64_t*>(take());
    s.positionsIn = reinterpret_cast<int32_t*>(take());
    s.positionsOut = reinterpret_cast<int32_t*>(take());
    s.selectedBoxes = reinterpret_cast<int32_t*>(take());
    s.counts = reinterpret_cast<int32_t*>(take());
    s.offsets = reinterpret_cast<int32_t*>(take());
    s.selectedCounts = reinterpret_cast<int32_t*>(take());
    s.rowOffsets = reinterpret_cast<int32_t*>(take());
    s.firstOfBatch = reinterpret_cast<int32_t*>(take());
    s.temporary = take();
    s.temporaryBytes = temporaryBytes;
    s.selection = take();
    return s;
}

class NmsLayer final : public DeviceLayer
{
public:
    explicit NmsLayer(network::NMSParams const& params)
        : mParams(params)
    {
    }

    void run(std::vector<ConstTensorView> const& inputs, std::vector<TensorView> const& outputs,
        cudaStream_t stream) override
    {
        Problem const p = checkViews(inputs, outputs, mParams);
        int32_t const classLists = p.batch * p.classes;
        auto const items = static_cast<int32_t>(inputs[1].count());
        if (items == 0)
        {
            writeCountKernel<<<1, 1, 0, stream>>>(0, nullptr, nullptr, outputs[1].data, outputs[1].type);
            check(cudaGetLastError(), "nms: launching the count's kernel");
            return;
        }
        nms::SelectionPlan const selection = nms::planSelection(classLists, p.boxCount);
        Scratch const s = carve(mScratch, items, classLists, p.batch, selection, stream);
        markCandidatesKernel<<<device::blocksFor(items), device::kThreadsPerBlock, 0, stream>>>(
            p, s.candidate, s.scoreKey);
        check(cudaGetLastError(), "nms: launching the candidates' kernel");
        if (static_cast<int64_t>(mParams.topKBoxLimit) < static_cast<int64_t>(p.classes) * p.boxCount)
        {
            applyTopKLimit(p, s, items, stream);
        }
        check(cudaMemsetAsync(s.counts, 0, static_cast<size_t>(classLists) * 4, stream), "nms: clearing the counts");
        groupKeysKernel<<<device::blocksFor(items), device::kThreadsPerBlock, 0, stream>>>(
            p, true, s.candidate, s.scoreKey, s.keysIn, s.positionsIn, s.counts);
        check(cudaGetLastError(), "nms: launching the class keys' kernel");
        sort(s, items, classLists, stream);
        scan(s, s.counts, s.offsets, classLists, stream);
        ClassLists const lists{s.positionsOut, s.counts, s.offsets, s.selectedBoxes, s.selectedCounts};
        nms::selectGreedily(p, lists, classLists, selection, s.selection, stream);
        scan(s, s.selectedCounts, s.rowOffsets, classLists, stream);
        auto const blocks = static_cast<unsigned>(std::min(classLists, 65535 * 8));
        writeRowsKernel<<<blocks, device::kThreadsPerBlock, 0, stream>>>(
            p, lists, s.rowOffsets, outputs[0].shape[0], outputs[0].data, outputs[0].type);
        check(cudaGetLastError(), "nms: launching the rows' kernel");
        writeCountKernel<<<1, 1, 0, stream>>>(
            classLists, s.rowOffsets, s.selectedCounts, outputs[1].data, outputs[1].type);
        check(cudaGetLastError(), "nms: launching the count's kernel");
    }

private:
    //! Sorts keysIn and positionsIn into keysOut and positionsOut, on the bits the keys use (group, score key).
    static void sort(Scratch const& s, int32_t items, int32_t groups, cudaStream_t stream)
    {
        size_t bytes = s.temporaryBytes;
        check(cub::DeviceRadixSort::SortPairs(s.temporary, bytes, s.keysIn, s.keysOut, s.positionsIn, s.positionsOut,
                  items, 0, 32 + bitsFor(groups), stream),
            "nms: sorting the candidates");
    }

    static void scan(Scratch const& s, int32_t const* in, int32_t* out, int32_t count, cudaStream_t stream)
    {
        size_t bytes = s.temporaryBytes;
        check(cub::DeviceScan::ExclusiveSum(s.temporary, bytes, in, out, count, stream), "nms: scanning the counts");
    }

    //! Keeps the top-k box limit's count of candidates in each batch item, by score (then class and box).
    void applyTopKLimit(Problem const& p, Scratch const& s, int32_t items, cudaStream_t stream) const
    {
        groupKeysKernel<<<device::blocksFor(items), device::kThreadsPerBlock, 0, stream>>>(
            p, false, s.candidate, s.scoreKey, s.keysIn, s.positionsIn, nullptr);
        check(cudaGetLastError(), "nms: launching the batch keys' kernel");
        sort(s, items, p.batch, stream);
        markFirstOfBatchKernel<<<device::blocksFor(items), device::kThreadsPerBlock, 0, stream>>>(
            items, p.batch, s.keysOut, s.firstOfBatch);
        check(cudaGetLastError(), "nms: launching the batch starts' kernel");
        applyTopKLimitKernel<<<device::blocksFor(items), device::kThreadsPerBlock, 0, stream>>>(
            items, p.batch, mParams.topKBoxLimit, s.keysOut, s.positionsOut, s.firstOfBatch, s.candidate);
        check(cudaGetLastError(), "nms: launching the top-k limit's kernel");
    }

    network::NMSParams mParams;
    DeviceBuffer mScratch; //!< grown as the inputs grow
};

} // namespace

std::unique_ptr<DeviceLayer> lower(network::NMSParams const& params, LayerContext const& /*context*/)
{
    return std::make_unique<NmsLayer>(params);
}

} // namespace kiln::cuda
