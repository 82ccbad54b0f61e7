#include "backend/cuda/kernels/nms/nms_selection.h"

#include "backend/cuda/cuda_error.h"
#include "backend/cuda/kernels/nms/nms_problem.cuh"

#include <algorithm>

namespace kiln::cuda::nms
{
namespace
{

constexpr int32_t kWordBits = 64;
constexpr int32_t kLanes = 32;
constexpr int32_t kMaxChunk = kWordBits * kLanes; //!< one 64-bit word a lane of the warp that walks the chunk
constexpr size_t kMaskBudget = size_t{64} << 20;  //!< bytes of masks in memory at once
constexpr int32_t kTestThreads = 256;
constexpr int32_t kSelectedSplits = 16; //!< blocks that share one tile's tests against the earlier selections
constexpr int32_t kResolveWarps = 4;
constexpr int32_t kRowsAhead = 32; //!< mask rows a lane loads before it walks them
constexpr int32_t kMaxGridY = 65535;

size_t alignUp(size_t bytes)
{
    constexpr size_t kAlignment = 256;
    return (bytes + kAlignment - 1) / kAlignment * kAlignment;
}

//! What one chunk's kernels share: lists firstList to firstList + listCount - 1, candidates chunkStart on.
struct Chunk
{
    int32_t firstList;
    int32_t listCount;
    int32_t start;
    int32_t size;        //!< SelectionPlan::chunk
    uint8_t* suppressed; //!< by (list - firstList, candidate of the chunk)
    uint64_t* mask;      //!< by (list - firstList, row of the chunk, word)

    __device__ int32_t words() const
    {
        return size / kWordBits;
    }
    //! How many of list s's candidates lie in the chunk (none: 0).
    __device__ int32_t candidatesIn(ClassLists const& lists, int32_t s) const
    {
        return max(0, min(lists.counts[s] - start, size));
    }
};

__device__ int32_t limitOf(Problem const& p)
{
    return max(*p.maxOutputBoxesPerClass, 0);
}

//! Marks the chunk's candidates that a box selected in an earlier chunk suppresses. Block (tile, list, split) tests
//! kTestThreads candidates against every gridDim.z-th piece of kTestThreads selected boxes.
__global__ void __launch_bounds__(kTestThreads) testAgainstSelectedKernel(Problem p, ClassLists lists, Chunk chunk)
{
    __shared__ Box pieceBoxes[kTestThreads];
    float const iouThreshold = p.iouThreshold != nullptr ? *p.iouThreshold : 0.0F;
    int32_t const limit = limitOf(p);
    for (int32_t list = blockIdx.y; list < chunk.listCount; list += gridDim.y)
    {
        int32_t const s = chunk.firstList + list;
        int32_t const selected = lists.selectedCounts[s];
        int32_t const k = static_cast<int32_t>(blockIdx.x) * kTestThreads + static_cast<int32_t>(threadIdx.x);
        if (selected >= limit || static_cast<int32_t>(blockIdx.x) * kTestThreads >= chunk.candidatesIn(lists, s))
        {
            continue; // the same for the whole block
        }
        int32_t const b = s / p.classes;
        int32_t const c = s % p.classes;
        bool const mine = k < chunk.candidatesIn(lists, s);
        Box const box = mine ? p.box(b, c, lists.boxOf(p, s, chunk.start + k)) : Box{};
        bool alive = mine;
        for (int32_t piece = blockIdx.z * kTestThreads; piece < selected; piece += gridDim.z * kTestThreads)
        {
            __syncthreads(); // the previous piece is read no more
            if (piece + static_cast<int32_t>(threadIdx.x) < selected)
            {
                pieceBoxes[threadIdx.x] = p.box(b, c, lists.selectedBoxes[lists.offsets[s] + piece + threadIdx.x]);
            }
            __syncthreads();
            int32_t const inPiece = min(kTestThreads, selected - piece);
            for (int32_t j = 0; j < inPiece && alive; ++j)
            {
                alive = !nms_detail::suppresses(pieceBoxes[j], box, iouThreshold);
            }
        }
        if (mine && !alive)
        {
            chunk.suppressed[static_cast<size_t>(list) * chunk.size + k] = 1;
        }
        __syncthreads(); // pieceBoxes is rewritten for the next list
    }
}

//! Block (word pair, list): for the 64 rows of row word r and the 64 columns of column word w >= r, bit j - 64 w of
//! mask[row i][w] says whether candidate i suppresses candidate j > i. Words left of the diagonal are never read.
__global__ void __launch_bounds__(kWordBits) chunkMaskKernel(Problem p, ClassLists lists, Chunk chunk)
{
    __shared__ Box columns[kWordBits];
    float const iouThreshold = p.iouThreshold != nullptr ? *p.iouThreshold : 0.0F;
    int32_t const words = chunk.words();
    int32_t const rowWord = static_cast<int32_t>(blockIdx.x) / words;
    int32_t const columnWord = static_cast<int32_t>(blockIdx.x) % words;
    if (columnWord < rowWord)
    {
        return;
    }
    for (int32_t list = blockIdx.y; list < chunk.listCount; list += gridDim.y)
    {
        int32_t const s = chunk.firstList + list;
        int32_t const candidates = chunk.candidatesIn(lists, s);
        int32_t const firstColumn = columnWord * kWordBits;
        if (firstColumn >= candidates || lists.selectedCounts[s] >= limitOf(p))
        {
            continue; // the same for the whole block
        }
        int32_t const b = s / p.classes;
        int32_t const c = s % p.classes;
        __syncthreads(); // the previous list's columns are read no more
        if (firstColumn + static_cast<int32_t>(threadIdx.x) < candidates)
        {
            columns[threadIdx.x] = p.box(b, c, lists.boxOf(p, s, chunk.start + firstColumn + threadIdx.x));
        }
        __syncthreads();
        int32_t const i = rowWord * kWordBits + static_cast<int32_t>(threadIdx.x);
        if (i < candidates)
        {
            Box const row = p.box(b, c, lists.boxOf(p, s, chunk.start + i));
            int32_t const columnsHere = min(kWordBits, candidates - firstColumn);
            uint64_t bits = 0;
            for (int32_t t = 0; t < columnsHere; ++t)
            {
                if (firstColumn + t > i && nms_detail::suppresses(row, columns[t], iouThreshold))
                {
                    bits |= uint64_t{1} << t;
                }
            }
            chunk.mask[(static_cast<size_t>(list) * chunk.size + i) * words + columnWord] = bits;
        }
    }
}

//! One warp per list walks the chunk's candidates in order: lane w holds word w of what is suppressed, a candidate not
//! suppressed is selected and its mask row OR-ed in, until the list reaches the limit.
__global__ void __launch_bounds__(kLanes* kResolveWarps) resolveChunkKernel(Problem p, ClassLists lists, Chunk chunk)
{
    int32_t const lane = static_cast<int32_t>(threadIdx.x) % kLanes;
    int32_t const words = chunk.words();
    int32_t const limit = limitOf(p);
    int32_t const warps = static_cast<int32_t>(gridDim.x) * kResolveWarps;
    for (int32_t list = static_cast<int32_t>(blockIdx.x * kResolveWarps + threadIdx.x / kLanes); list < chunk.listCount;
         list += warps)
    {
        int32_t const s = chunk.firstList + list;
        int32_t const candidates = chunk.candidatesIn(lists, s);
        int32_t selected = lists.selectedCounts[s];
        if (candidates == 0 || selected >= limit)
        {
            continue; // the same for the whole warp
        }
        uint8_t const* suppressed = chunk.suppressed + static_cast<size_t>(list) * chunk.size;
        uint64_t removed = 0;
        for (int32_t t = 0; t < kWordBits && lane < words; ++t)
        {
            int32_t const k = lane * kWordBits + t;
            removed |= k < candidates && suppressed[k] != 0 ? uint64_t{1} << t : 0;
        }
        uint64_t const* rows = chunk.mask + static_cast<size_t>(list) * chunk.size * words;
        for (int32_t first = 0; first < candidates && selected < limit; first += kRowsAhead)
        {
            // Loaded before the walk, so that the loads overlap; a lane reads only words on or right of the diagonal.
            uint64_t row[kRowsAhead];
#pragma unroll
            for (int32_t r = 0; r < kRowsAhead; ++r)
            {
                int32_t const i = first + r;
                bool const written = i < candidates && lane >= i / kWordBits
                    && lane * kWordBits < candidates; // see chunkMaskKernel
                row[r] = written ? rows[static_cast<size_t>(i) * words + lane] : 0;
            }
#pragma unroll
            for (int32_t r = 0; r < kRowsAhead; ++r)
            {
                int32_t const i = first + r;
                if (i >= candidates || selected >= limit)
                {
                    break; // the same in every lane
                }
                uint64_t const word = __shfl_sync(0xFFFFFFFFU, removed, i / kWordBits);
                if ((word >> (i % kWordBits) & 1U) == 0)
                {
                    if (lane == 0)
                    {
                        lists.selectedBoxes[lists.offsets[s] + selected] = lists.boxOf(p, s, chunk.start + i);
                    }
                    ++selected;
                    removed |= row[r];
                }
            }
        }
        if (lane == 0)
        {
            lists.selectedCounts[s] = selected;
        }
    }
}

} // namespace

size_t SelectionPlan::scratchBytes() const
{
    return alignUp(suppressedBytes) + alignUp(maskBytes);
}

SelectionPlan planSelection(int32_t classLists, int32_t boxCount)
{
    SelectionPlan plan;
    while (plan.chunk < kMaxChunk && plan.chunk < boxCount)
    {
        plan.chunk *= 2;
    }
    plan.chunks = (boxCount + plan.chunk - 1) / plan.chunk;
    size_t const maskPerList = static_cast<size_t>(plan.chunk) * plan.chunk / 8;
    plan.listsPerPass = static_cast<int32_t>(
        std::clamp<size_t>(kMaskBudget / maskPerList, 1, static_cast<size_t>(std::max(classLists, 1))));
    plan.suppressedBytes = static_cast<size_t>(plan.listsPerPass) * plan.chunk;
    plan.maskBytes = static_cast<size_t>(plan.listsPerPass) * maskPerList;
    return plan;
}

void selectGreedily(Problem const& p, ClassLists const& lists, int32_t classLists, SelectionPlan const& plan,
    void* scratch, cudaStream_t stream)
{
    auto* const bytes = static_cast<std::byte*>(scratch);
    Chunk chunk{0, 0, 0, plan.chunk, reinterpret_cast<uint8_t*>(bytes),
        reinterpret_cast<uint64_t*>(bytes + alignUp(plan.suppressedBytes))};
    int32_t const words = plan.chunk / kWordBits;
    check(cudaMemsetAsync(lists.selectedCounts, 0, static_cast<size_t>(classLists) * sizeof(int32_t), stream),
        "nms: clearing the selections' counts");
    for (chunk.firstList = 0; chunk.firstList < classLists; chunk.firstList += plan.listsPerPass)
    {
        chunk.listCount = std::min(plan.listsPerPass, classLists - chunk.firstList);
        auto const listBlocks = static_cast<unsigned>(std::min(chunk.listCount, kMaxGridY));
        for (int32_t k = 0; k < plan.chunks; ++k)
        {
            chunk.start = k * plan.chunk;
            check(cudaMemsetAsync(chunk.suppressed, 0, static_cast<size_t>(chunk.listCount) * plan.chunk, stream),
                "nms: clearing a chunk's suppressions");
            if (k > 0)
            {
                dim3 const grid((plan.chunk + kTestThreads - 1) / kTestThreads, listBlocks, kSelectedSplits);
                testAgainstSelectedKernel<<<grid, kTestThreads, 0, stream>>>(p, lists, chunk);
                check(cudaGetLastError(), "nms: launching the tests against earlier selections");
            }
            chunkMaskKernel<<<dim3(words * words, listBlocks), kWordBits, 0, stream>>>(p, lists, chunk);
            check(cudaGetLastError(), "nms: launching a chunk's mask");
            auto const resolveBlocks
                = static_cast<unsigned>(std::min((chunk.listCount + kResolveWarps - 1) / kResolveWarps, 65535 * 8));
            resolveChunkKernel<<<resolveBlocks, kLanes * kResolveWarps, 0, stream>>>(p, lists, chunk);
            check(cudaGetLastError(), "nms: launching a chunk's selection");
        }
    }
}

} // namespace kiln::cuda::nms
