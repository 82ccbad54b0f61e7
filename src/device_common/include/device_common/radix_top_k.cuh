// Top-k along one axis on the GPU, shared by the CUDA backend's ITopKLayer (topk.cu) and the TopkLastDim plugin
// (plugins/topk_last_dim): the k best elements of every row, best first, equal elements lower index first.
//
// The caller ranks elements through a Ranker: a functor giving each element (by its offset in the input) an
// unsigned key whose ascending order is the wanted order, best first (a largest-first top-k inverts its keys).
// `typename Ranker::Key` is uint32_t or unsigned long long. Values are copied bit for bit, never converted.
//
// Routes (they give the same result; the choice is only speed):
//  - few picks (k <= kFewPicks, k * extent <= kSelectionWork): a block per row picks the best remaining element k
//    times, reading the row k times and needing no scratch (ArgMax and ArgMin are k = 1).
//  - selection (2k < extent): a radix select finds each row's k-th key 8 bits at a time (a 256-bin histogram of
//    the elements still in the running per pass: 4 passes for 32-bit keys), then an ordered compaction keeps, in
//    index order, the elements below that key and the first of those equal to it, so that only k elements per row
//    are sorted. Many rows: a block per row, everything in one kernel. Few rows: each row cut into slices over
//    several blocks, whose histograms meet in global memory (the last block of a pass to finish settles the digit).
//  - whole rows (2k >= extent): each row is sorted whole. Selection costs about six reads of the row (four
//    histogram passes, a count, the compaction) on top of sorting k; sorting the n - k elements it spares costs
//    about as much per element (a radix sort reads and writes keys and indices on each of its passes), so once k
//    reaches half the row there is nothing left to gain. The bench's TopK cases beside torch.topk measure both.
// The sort of the m elements kept per row (k, or the whole row): up to kBlockSortItems in one block in shared memory
// (cub::BlockRadixSort); more, for up to kCompositeRows rows of 32-bit keys, with one cub::DeviceRadixSort of all
// the rows' elements at once, each key widened to 64 bits with its row above it (a segmented sort gives each
// segment one block, so a few long rows would leave the GPU nearly idle, and sorting row by row pays a sort's
// fixed cost per row); otherwise with cub::DeviceSegmentedRadixSort, or cub::DeviceRadixSort row by row when a few
// rows of 64-bit keys are long. Not cub::DeviceSegmentedSort: past a few hundred segments it copies their sizes to
// the host and synchronises the stream, which enqueueV3 must not do (and a CUDA graph cannot capture). All of CUB's
// radix sorts are stable: keys are kept in index order before they are sorted.
//
// Keys of FP16 and BF16 values widened to float have low bits that never decide the order (13 and 16 of them): a
// Ranker says so with `static constexpr int kLowBit`, and the selection's passes and the sorts skip those bits.
//
// Scratch: workspaceBytes() sizes it for a shape, and grows with every dimension (a workspace sized for a profile's
// largest shape serves every smaller one); rows are handled kItemsPerChunk kept elements at a time at most.
#pragma once

#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_segmented_radix_sort.cuh>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace kiln::cuda::topk
{

constexpr int64_t kFewPicks = 16;
constexpr int64_t kSelectionWork = int64_t{1} << 20;
constexpr int64_t kItemsPerChunk = int64_t{1} << 26; // bounds the scratch, and fits the segmented sort's int counts
constexpr int64_t kLongRow = int64_t{1} << 16;
constexpr int64_t kFewRows = 8;
constexpr int64_t kBlockSortItems = 4096;
// Slicing rows over blocks: only below kManyRows rows (with more, a block per row fills the GPU), into slices of
// at least kMinSlice elements, aiming at about kTargetBlocks blocks in all (two per SM on an H100). Fixed numbers,
// not the device's SM count, so that a workspace sized at build time fits any device the plan runs on.
constexpr int64_t kManyRows = 128;
constexpr int64_t kMinSlice = 8192;
constexpr int64_t kTargetBlocks = 256;
constexpr int64_t kMaxSlices = kTargetBlocks;

// Rows sorted together by one composite-key sort: their index takes the bits above the 32-bit key.
constexpr int64_t kCompositeRows = 64;

constexpr int kWarpSize = 32;
constexpr int kFewPicksThreads = 256;
constexpr int kRadixBits = 8;
constexpr int kBins = 1 << kRadixBits;
constexpr int kSelectThreads = kBins; // settling a digit gives each thread one bin

//! The rows to pick from: element j of row r is at rowStart(r) + j * inner, and the row's j-th pick goes to
//! ((r / inner) * k + j) * inner + r % inner.
struct Rows
{
    int64_t count{0};
    int64_t extent{0};
    int64_t inner{1};
    int64_t k{0};
};

//! Where the picks go. T is the element's storage (uint16_t, uint32_t or uint64_t); indices are INT32 or INT64.
template <typename T>
struct Picks
{
    T const* input{nullptr};
    T* values{nullptr};
    void* indices{nullptr};
    bool wideIndices{false};
};

//! The lowest key bit that can decide the order: keys that agree on every bit from it up are equal (Ranker::kLowBit
//! where the Ranker gives one, else 0).
template <typename Ranker, typename = void>
struct LowBit
{
    static constexpr int value = 0;
};

template <typename Ranker>
struct LowBit<Ranker, std::void_t<decltype(Ranker::kLowBit)>>
{
    static constexpr int value = Ranker::kLowBit;
};

//! Whether the selection's pass for the digit at `shift` can still tell keys apart.
template <typename Ranker>
__host__ __device__ constexpr bool digitCounts(int shift)
{
    return shift >= 0 && shift + kRadixBits > LowBit<Ranker>::value;
}

__host__ __device__ inline int64_t rowStart(Rows const& rows, int64_t row)
{
    return row / rows.inner * rows.extent * rows.inner + row % rows.inner;
}

template <typename T>
__device__ void writePick(Picks<T> const& picks, Rows const& rows, int64_t row, int64_t rank, int64_t index)
{
    int64_t const target = (row / rows.inner * rows.k + rank) * rows.inner + row % rows.inner;
    picks.values[target] = picks.input[rowStart(rows, row) + index * rows.inner];
    if (picks.wideIndices)
    {
        static_cast<int64_t*>(picks.indices)[target] = index;
    }
    else
    {
        static_cast<int32_t*>(picks.indices)[target] = static_cast<int32_t>(index);
    }
}

//! The strict total order of the output: by key, then by index.
template <typename Key>
__device__ bool ranksBefore(Key keyA, int64_t indexA, Key keyB, int64_t indexB)
{
    return keyA < keyB || (keyA == keyB && indexA < indexB);
}

//! Few picks: a block per row finds, k times over, the best element ranking after the previous pick.
template <typename Ranker, typename T>
__global__ void __launch_bounds__(kFewPicksThreads) fewPicksKernel(Ranker rank, Rows rows, Picks<T> picks)
{
    using Key = typename Ranker::Key;
    constexpr int kMaxWarps = kFewPicksThreads / kWarpSize;
    __shared__ Key warpKeys[kMaxWarps];
    __shared__ int64_t warpIndices[kMaxWarps];
    __shared__ Key pickedKey;
    __shared__ int64_t pickedIndex;
    int const lane = static_cast<int>(threadIdx.x % kWarpSize);
    int const warp = static_cast<int>(threadIdx.x / kWarpSize);
    int const warps = static_cast<int>(blockDim.x / kWarpSize);
    for (int64_t row = blockIdx.x; row < rows.count; row += gridDim.x)
    {
        int64_t const start = rowStart(rows, row);
        Key previousKey = 0;
        int64_t previousIndex = -1;
        for (int64_t pick = 0; pick < rows.k; ++pick)
        {
            // "None yet" ranks after every element (their indices are below INT64_MAX).
            Key bestKey = static_cast<Key>(~Key{0});
            int64_t bestIndex = INT64_MAX;
            for (int64_t j = threadIdx.x; j < rows.extent; j += blockDim.x)
            {
                Key const key = rank(start + j * rows.inner);
                bool const remaining = pick == 0 || ranksBefore(previousKey, previousIndex, key, j);
                if (remaining && ranksBefore(key, j, bestKey, bestIndex))
                {
                    bestKey = key;
                    bestIndex = j;
                }
            }
            for (int offset = kWarpSize / 2; offset > 0; offset /= 2)
            {
                Key const otherKey = __shfl_down_sync(0xffffffffU, bestKey, offset);
                int64_t const otherIndex = __shfl_down_sync(0xffffffffU, bestIndex, offset);
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
                writePick(picks, rows, row, pick, bestIndex);
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

//! A row's k-th key as far as the passes so far have found it: elements whose key, masked, is below `prefix` are
//! all kept; of those equal to it, masked, the first `need` in index order are kept. `settled`: no later pass can
//! change that (every digit is known, or every element at the threshold is kept). `arrived`: slices done this pass.
template <typename Key>
struct Threshold
{
    Key prefix;
    Key mask;
    uint32_t need;
    uint32_t settled;
    uint32_t arrived;
};

using BinScan = cub::BlockScan<uint32_t, kSelectThreads>;
// Below-threshold count in the high half, at-threshold count in the low half: one scan finds both.
using PairScan = cub::BlockScan<unsigned long long, kSelectThreads>;
constexpr unsigned long long kBelowOne = 1ULL << 32;

//! Adds to `bins` the digit at `shift` of the elements of [begin, end) still at the threshold.
template <typename Ranker, typename Key>
__device__ void countDigits(Ranker const& rank, int64_t start, int64_t inner, int64_t begin, int64_t end, Key prefix,
    Key mask, int shift, uint32_t* bins)
{
    for (int64_t j = begin + threadIdx.x; j < end; j += blockDim.x)
    {
        Key const key = rank(start + j * inner);
        if ((key & mask) == prefix)
        {
            atomicAdd(&bins[static_cast<uint32_t>(key >> shift) & (kBins - 1)], 1U);
        }
    }
}

//! One pass's verdict: thread t holds bin t's count; the bin holding the threshold's need-th element becomes the
//! digit at `shift`. Every thread of the block calls it; `threshold` may be in shared or global memory.
template <typename Key>
__device__ void settleDigit(uint32_t binCount, Threshold<Key>& threshold, int shift, BinScan::TempStorage& temp)
{
    uint32_t const need = threshold.need;
    uint32_t before = 0;
    BinScan(temp).ExclusiveSum(binCount, before);
    __syncthreads(); // every thread has read `need` before the one below writes it
    if (before < need && need <= before + binCount)
    {
        uint32_t const left = need - before;
        threshold.prefix |= static_cast<Key>(threadIdx.x) << shift;
        threshold.mask |= static_cast<Key>(kBins - 1) << shift;
        threshold.need = left;
        threshold.settled = (left == binCount || shift == 0) ? 1U : 0U;
    }
}

//! Writes the kept elements of [begin, end) with their keys to `keys`/`indices`, each at its place in index order
//! among the row's kept elements. `below`/`at`: the row's elements below and at the threshold before `begin`.
template <typename Ranker, typename Key>
__device__ void keepSelected(Ranker const& rank, int64_t start, int64_t inner, int64_t begin, int64_t end,
    Threshold<Key> const threshold, uint32_t below, uint32_t at, uint32_t k, Key* keys, int32_t* indices,
    PairScan::TempStorage& temp)
{
    for (int64_t tile = begin; tile < end; tile += blockDim.x)
    {
        // Every kept element is written: the rest of the row has nothing to keep.
        if (below + min(at, threshold.need) >= k)
        {
            break;
        }
        int64_t const j = tile + threadIdx.x;
        Key key = 0;
        unsigned long long flags = 0;
        if (j < end)
        {
            key = rank(start + j * inner);
            Key const masked = key & threshold.mask;
            flags = masked < threshold.prefix ? kBelowOne : (masked == threshold.prefix ? 1ULL : 0ULL);
        }
        unsigned long long before = 0;
        unsigned long long total = 0;
        PairScan(temp).ExclusiveSum(flags, before, total);
        uint32_t const belowBefore = below + static_cast<uint32_t>(before >> 32);
        uint32_t const atBefore = at + static_cast<uint32_t>(before);
        bool const kept = flags == kBelowOne || (flags == 1ULL && atBefore < threshold.need);
        if (kept)
        {
            uint32_t const place = belowBefore + min(atBefore, threshold.need);
            keys[place] = key;
            indices[place] = static_cast<int32_t>(j);
        }
        below += static_cast<uint32_t>(total >> 32);
        at += static_cast<uint32_t>(total);
        __syncthreads(); // the scan's storage serves the next tile
    }
}

//! Selection with a block per row: every pass, then the compaction, of row firstRow + blockIdx.x.
template <typename Ranker>
__global__ void __launch_bounds__(kSelectThreads)
    selectRowsKernel(Ranker rank, Rows rows, int64_t firstRow, typename Ranker::Key* keys, int32_t* indices)
{
    using Key = typename Ranker::Key;
    __shared__ uint32_t bins[kBins];
    __shared__ Threshold<Key> threshold;
    __shared__ union
    {
        BinScan::TempStorage bins;
        PairScan::TempStorage pairs;
    } temp;
    int64_t const row = firstRow + blockIdx.x;
    int64_t const start = rowStart(rows, row);
    if (threadIdx.x == 0)
    {
        threshold = Threshold<Key>{0, 0, static_cast<uint32_t>(rows.k), 0, 0};
    }
    for (int shift = static_cast<int>(sizeof(Key) * 8) - kRadixBits; digitCounts<Ranker>(shift); shift -= kRadixBits)
    {
        bins[threadIdx.x] = 0;
        __syncthreads(); // the bins are clear, and the last pass's threshold is seen by all
        if (threshold.settled != 0)
        {
            break;
        }
        countDigits(rank, start, rows.inner, 0, rows.extent, threshold.prefix, threshold.mask, shift, bins);
        __syncthreads();
        settleDigit(bins[threadIdx.x], threshold, shift, temp.bins);
    }
    __syncthreads();
    int64_t const kept = static_cast<int64_t>(blockIdx.x) * rows.k;
    keepSelected(rank, start, rows.inner, 0, rows.extent, threshold, 0U, 0U, static_cast<uint32_t>(rows.k), keys + kept,
        indices + kept, temp.pairs);
}

//! Selection over slices: every row's threshold before the first pass.
template <typename Key>
__global__ void startThresholdsKernel(Threshold<Key>* thresholds, uint32_t* bins, Rows rows)
{
    bins[blockIdx.x * kBins + threadIdx.x] = 0;
    if (threadIdx.x == 0)
    {
        thresholds[blockIdx.x] = Threshold<Key>{0, 0, static_cast<uint32_t>(rows.k), 0, 0};
    }
}

//! One pass over slice blockIdx.x of row firstRow + blockIdx.y: its histogram joins the row's; the last slice to
//! arrive settles the digit and clears the row's histogram for the next pass.
template <typename Ranker>
__global__ void __launch_bounds__(kSelectThreads) sliceDigitsKernel(Ranker rank, Rows rows, int64_t firstRow,
    int64_t sliceLength, Threshold<typename Ranker::Key>* thresholds, uint32_t* rowBins, int shift)
{
    using Key = typename Ranker::Key;
    __shared__ uint32_t bins[kBins];
    __shared__ BinScan::TempStorage temp;
    __shared__ bool last;
    Threshold<Key>& threshold = thresholds[blockIdx.y];
    // Written by an earlier launch: the same for every thread of every block of this one.
    if (threshold.settled != 0)
    {
        return;
    }
    int64_t const begin = blockIdx.x * sliceLength;
    int64_t const end = min(begin + sliceLength, rows.extent);
    bins[threadIdx.x] = 0;
    __syncthreads();
    countDigits(rank, rowStart(rows, firstRow + blockIdx.y), rows.inner, begin, end, threshold.prefix, threshold.mask,
        shift, bins);
    __syncthreads();
    uint32_t* const myBins = rowBins + static_cast<int64_t>(blockIdx.y) * kBins;
    if (bins[threadIdx.x] != 0)
    {
        atomicAdd(&myBins[threadIdx.x], bins[threadIdx.x]);
    }
    __threadfence(); // this block's counts are in the row's histogram before it says it arrived
    __syncthreads();
    if (threadIdx.x == 0)
    {
        last = atomicAdd(&threshold.arrived, 1U) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last)
    {
        return;
    }
    __threadfence();
    uint32_t const count = atomicExch(&myBins[threadIdx.x], 0U); // read from L2, and cleared for the next pass
    settleDigit(count, threshold, shift, temp);
    if (threadIdx.x == 0)
    {
        threshold.arrived = 0;
    }
}

//! Each slice's elements below and at its row's settled threshold, for the compaction's starting places.
template <typename Ranker>
__global__ void __launch_bounds__(kSelectThreads) sliceCountsKernel(Ranker rank, Rows rows, int64_t firstRow,
    int64_t sliceLength, Threshold<typename Ranker::Key> const* thresholds, uint2* counts)
{
    using Key = typename Ranker::Key;
    __shared__ unsigned long long blockTotal;
    Threshold<Key> const threshold = thresholds[blockIdx.y];
    int64_t const start = rowStart(rows, firstRow + blockIdx.y);
    int64_t const begin = blockIdx.x * sliceLength;
    int64_t const end = min(begin + sliceLength, rows.extent);
    if (threadIdx.x == 0)
    {
        blockTotal = 0;
    }
    __syncthreads();
    unsigned long long mine = 0;
    for (int64_t j = begin + threadIdx.x; j < end; j += blockDim.x)
    {
        Key const masked = rank(start + j * rows.inner) & threshold.mask;
        mine += masked < threshold.prefix ? kBelowOne : (masked == threshold.prefix ? 1ULL : 0ULL);
    }
    if (mine != 0)
    {
        atomicAdd(&blockTotal, mine);
    }
    __syncthreads();
    if (threadIdx.x == 0)
    {
        counts[blockIdx.y * gridDim.x + blockIdx.x]
            = make_uint2(static_cast<uint32_t>(blockTotal >> 32), static_cast<uint32_t>(blockTotal));
    }
}

//! The compaction of slice blockIdx.x of row firstRow + blockIdx.y, after the counts of the slices before it.
template <typename Ranker>
__global__ void __launch_bounds__(kSelectThreads) sliceKeepKernel(Ranker rank, Rows rows, int64_t firstRow,
    int64_t sliceLength, Threshold<typename Ranker::Key> const* thresholds, uint2 const* counts,
    typename Ranker::Key* keys, int32_t* indices)
{
    __shared__ PairScan::TempStorage temp;
    __shared__ uint2 before;
    if (threadIdx.x == 0)
    {
        uint2 sum = make_uint2(0, 0);
        for (unsigned slice = 0; slice < blockIdx.x; ++slice)
        {
            uint2 const c = counts[blockIdx.y * gridDim.x + slice];
            sum.x += c.x;
            sum.y += c.y;
        }
        before = sum;
    }
    __syncthreads();
    int64_t const begin = blockIdx.x * sliceLength;
    int64_t const end = min(begin + sliceLength, rows.extent);
    int64_t const kept = static_cast<int64_t>(blockIdx.y) * rows.k;
    keepSelected(rank, rowStart(rows, firstRow + blockIdx.y), rows.inner, begin, end, thresholds[blockIdx.y], before.x,
        before.y, static_cast<uint32_t>(rows.k), keys + kept, indices + kept, temp);
}

//! Sorts the m kept elements of row firstRow + blockIdx.x in shared memory and writes the first k: from `keys` and
//! `indices` (m per row) after a selection, or read from the row itself when `keys` is null.
template <typename Ranker, typename T, int kThreads, int kItems>
__global__ void __launch_bounds__(kThreads) sortInBlockKernel(Ranker rank, Rows rows, int64_t firstRow, int64_t m,
    typename Ranker::Key const* keys, int32_t const* indices, Picks<T> picks)
{
    using Key = typename Ranker::Key;
    using Sort = cub::BlockRadixSort<Key, kThreads, kItems, int32_t>;
    __shared__ typename Sort::TempStorage temp;
    int64_t const row = firstRow + blockIdx.x;
    int64_t const start = rowStart(rows, row);
    int64_t const kept = static_cast<int64_t>(blockIdx.x) * m;
    Key itemKeys[kItems];
    int32_t itemIndices[kItems];
    for (int i = 0; i < kItems; ++i)
    {
        // Blocked: thread t holds places t * kItems onwards, so the stable sort keeps places (index order) for ties.
        int64_t const place = static_cast<int64_t>(threadIdx.x) * kItems + i;
        if (place >= m)
        {
            itemKeys[i] = static_cast<Key>(~Key{0}); // after every real element, which precede it in place
            itemIndices[i] = INT32_MAX;
        }
        else if (keys != nullptr)
        {
            itemKeys[i] = keys[kept + place];
            itemIndices[i] = indices[kept + place];
        }
        else
        {
            itemKeys[i] = rank(start + place * rows.inner);
            itemIndices[i] = static_cast<int32_t>(place);
        }
    }
    Sort(temp).Sort(itemKeys, itemIndices, LowBit<Ranker>::value, static_cast<int>(sizeof(Key) * 8));
    for (int i = 0; i < kItems; ++i)
    {
        int64_t const place = static_cast<int64_t>(threadIdx.x) * kItems + i;
        if (place < rows.k)
        {
            writePick(picks, rows, row, place, itemIndices[i]);
        }
    }
}

//! A whole-row sort's input for CUB: each row's keys and places, m = extent per row, and the segment offsets.
template <typename Ranker>
__global__ void wholeRowKeysKernel(
    Ranker rank, Rows rows, int64_t firstRow, int64_t rowCount, typename Ranker::Key* keys, int32_t* indices)
{
    for (int64_t e = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; e < rowCount * rows.extent;
         e += static_cast<int64_t>(gridDim.x) * blockDim.x)
    {
        int64_t const j = e % rows.extent;
        keys[e] = rank(rowStart(rows, firstRow + e / rows.extent) + j * rows.inner);
        indices[e] = static_cast<int32_t>(j);
    }
}

//! The composite sort's keys: (row within the chunk) << 32 | key, from the kept `keys` after a selection, or read
//! from the rows themselves (with their places written to `indices`) when keys is null and m is the extent.
template <typename Ranker>
__global__ void compositeKeysKernel(Ranker rank, Rows rows, int64_t firstRow, int64_t rowCount, int64_t m,
    typename Ranker::Key const* keys, int32_t* indices, unsigned long long* composite)
{
    static_assert(sizeof(typename Ranker::Key) == 4, "a row index above a 32-bit key");
    for (int64_t e = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; e < rowCount * m;
         e += static_cast<int64_t>(gridDim.x) * blockDim.x)
    {
        int64_t const local = e / m;
        unsigned long long key = 0;
        if (keys != nullptr)
        {
            key = keys[e];
        }
        else
        {
            int64_t const j = e - local * m;
            key = rank(rowStart(rows, firstRow + local) + j * rows.inner);
            indices[e] = static_cast<int32_t>(j);
        }
        composite[e] = static_cast<unsigned long long>(local) << 32 | key;
    }
}

template <typename Offset>
__global__ void segmentOffsetsKernel(Offset* offsets, int64_t rowCount, int64_t m)
{
    for (int64_t r = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; r <= rowCount;
         r += static_cast<int64_t>(gridDim.x) * blockDim.x)
    {
        offsets[r] = r * m;
    }
}

//! The first k of each row's m sorted places.
template <typename T>
__global__ void writeSortedKernel(
    Picks<T> picks, Rows rows, int64_t firstRow, int64_t rowCount, int64_t m, int32_t const* sortedIndices)
{
    for (int64_t e = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; e < rowCount * rows.k;
         e += static_cast<int64_t>(gridDim.x) * blockDim.x)
    {
        int64_t const local = e / rows.k;
        int64_t const pick = e % rows.k;
        writePick(picks, rows, firstRow + local, pick, sortedIndices[local * m + pick]);
    }
}

constexpr unsigned kGridThreads = 256;

inline unsigned gridFor(int64_t count)
{
    return static_cast<unsigned>(std::clamp<int64_t>((count + kGridThreads - 1) / kGridThreads, 1, 65535 * 8));
}

//! How one shape is computed.
struct Plan
{
    bool fewPicks{false};
    bool select{false}; //!< false: whole rows are sorted
    int64_t kept{0};    //!< m: elements per row to sort (k after a selection, else the extent)
    int64_t rowsPerChunk{0};
    int64_t slices{1}; //!< blocks per row in the selection
    int64_t sliceLength{0};
};

inline Plan planFor(Rows const& rows)
{
    Plan plan;
    plan.fewPicks = rows.k <= kFewPicks && rows.k * rows.extent <= kSelectionWork;
    plan.select = 2 * rows.k < rows.extent;
    plan.kept = plan.select ? rows.k : rows.extent;
    plan.rowsPerChunk = std::clamp<int64_t>(kItemsPerChunk / std::max<int64_t>(plan.kept, 1), 1, rows.count);
    if (rows.count < kManyRows)
    {
        int64_t const bySize = (rows.extent + kMinSlice - 1) / kMinSlice;
        int64_t const byGrid = (kTargetBlocks + rows.count - 1) / rows.count;
        plan.slices = std::clamp<int64_t>(std::min(bySize, byGrid), 1, kMaxSlices);
    }
    plan.sliceLength = (rows.extent + plan.slices - 1) / plan.slices;
    return plan;
}

//! Carves one scratch allocation into 256-byte aligned arrays; on a null base it only adds up their sizes.
class ScratchCarver
{
public:
    explicit ScratchCarver(void* base)
        : mBase(static_cast<unsigned char*>(base))
    {
    }
    template <typename T>
    T* take(size_t count)
    {
        size_t const offset = mSize;
        mSize += (count * sizeof(T) + 255) / 256 * 256;
        return mBase == nullptr ? nullptr : reinterpret_cast<T*>(mBase + offset);
    }
    size_t size() const
    {
        return mSize;
    }

private:
    unsigned char* mBase;
    size_t mSize{0};
};

//! The scratch arrays, sized by bounds that grow with every dimension of the shape (so a workspace sized for the
//! largest shape fits all smaller ones): at most min(extent, 2k) elements kept per row (a selection keeps k, whole
//! rows are sorted only when the extent is at most 2k), at most kItemsPerChunk (or one row) at a time.
template <typename Key>
struct Scratch
{
    Threshold<Key>* thresholds{nullptr};
    uint32_t* bins{nullptr};
    uint2* sliceCounts{nullptr};
    Key* keys{nullptr};
    int32_t* indices{nullptr};
    Key* sortedKeys{nullptr};
    int32_t* sortedIndices{nullptr};
    int64_t* offsets{nullptr};
    unsigned long long* composite{nullptr}; //!< the composite sort's keys, for up to kCompositeRows rows
    unsigned long long* sortedComposite{nullptr};
    void* sortTemporary{nullptr};
    size_t sortBytes{0};

    Scratch(ScratchCarver& carver, Rows const& rows)
    {
        int64_t const slicedRows = std::min(rows.count, kManyRows - 1);
        thresholds = carver.take<Threshold<Key>>(static_cast<size_t>(slicedRows));
        bins = carver.take<uint32_t>(static_cast<size_t>(slicedRows * kBins));
        sliceCounts = carver.take<uint2>(static_cast<size_t>(slicedRows * kMaxSlices));
        int64_t const keptPerRow = std::min(rows.extent, 2 * rows.k);
        int64_t const items = std::min(rows.count * keptPerRow, std::max(kItemsPerChunk, keptPerRow));
        keys = carver.take<Key>(static_cast<size_t>(items));
        indices = carver.take<int32_t>(static_cast<size_t>(items));
        if (keptPerRow <= kBlockSortItems)
        {
            return; // sorted in shared memory
        }
        sortedKeys = carver.take<Key>(static_cast<size_t>(items));
        sortedIndices = carver.take<int32_t>(static_cast<size_t>(items));
        int64_t const segments = std::min(rows.count, items);
        offsets = carver.take<int64_t>(static_cast<size_t>(segments + 1));
        size_t segmentedBytes = 0;
        size_t rowBytes = 0;
        Key* const noKeys = nullptr;
        int32_t* const noIndices = nullptr;
        int64_t* const noOffsets = nullptr; // the real calls' argument types, so CUB sizes those very sorts
        cub::DeviceSegmentedRadixSort::SortPairs(nullptr, segmentedBytes, noKeys, noKeys, noIndices, noIndices,
            static_cast<int>(items), static_cast<int>(segments), noOffsets, noOffsets, 0,
            static_cast<int>(sizeof(Key) * 8));
        cub::DeviceRadixSort::SortPairs(
            nullptr, rowBytes, noKeys, noKeys, noIndices, noIndices, keptPerRow, 0, static_cast<int>(sizeof(Key) * 8));
        sortBytes = std::max(segmentedBytes, rowBytes);
        if constexpr (sizeof(Key) == 4)
        {
            // Every bit, so that the storage covers every pass count a composite sort may take.
            int64_t const compositeItems = std::min(items, std::min(rows.count, kCompositeRows) * keptPerRow);
            composite = carver.take<unsigned long long>(static_cast<size_t>(compositeItems));
            sortedComposite = carver.take<unsigned long long>(static_cast<size_t>(compositeItems));
            unsigned long long* const noComposite = nullptr;
            size_t compositeBytes = 0;
            cub::DeviceRadixSort::SortPairs(
                nullptr, compositeBytes, noComposite, noComposite, noIndices, noIndices, compositeItems, 0, 64);
            sortBytes = std::max(sortBytes, compositeBytes);
        }
        sortTemporary = carver.take<unsigned char>(sortBytes);
    }
};

//! Scratch bytes topKOfRows needs for `rows` with keys of type Key (never fewer for a larger shape, same k).
template <typename Key>
size_t workspaceBytes(Rows const& rows)
{
    if (rows.count == 0 || rows.k == 0 || planFor(rows).fewPicks)
    {
        return 0; // a shorter row with the same k picks few too
    }
    ScratchCarver carver(nullptr);
    Scratch<Key> const scratch(carver, rows);
    (void) scratch;
    return carver.size();
}

template <typename Ranker, typename T, int kThreads, int kItems>
void sortInBlock(Ranker const& rank, Rows const& rows, int64_t first, int64_t rowCount, int64_t m,
    typename Ranker::Key const* keys, int32_t const* indices, Picks<T> const& picks, cudaStream_t stream)
{
    sortInBlockKernel<Ranker, T, kThreads, kItems>
        <<<static_cast<unsigned>(rowCount), kThreads, 0, stream>>>(rank, rows, first, m, keys, indices, picks);
}

//! Sorts m places per row of rows [first, first + rowCount), from `keys`/`indices` (or the rows themselves when
//! keys is null and m is the extent), and writes each row's first k.
template <typename Ranker, typename T>
cudaError_t sortKept(Ranker const& rank, Rows const& rows, int64_t first, int64_t rowCount, int64_t m,
    Scratch<typename Ranker::Key> const& scratch, bool keysWritten, Picks<T> const& picks, cudaStream_t stream)
{
    using Key = typename Ranker::Key;
    Key const* keys = keysWritten ? scratch.keys : nullptr;
    if (m <= 256)
    {
        sortInBlock<Ranker, T, 64, 4>(rank, rows, first, rowCount, m, keys, scratch.indices, picks, stream);
        return cudaGetLastError();
    }
    if (m <= 1024)
    {
        sortInBlock<Ranker, T, 128, 8>(rank, rows, first, rowCount, m, keys, scratch.indices, picks, stream);
        return cudaGetLastError();
    }
    if (m <= kBlockSortItems)
    {
        sortInBlock<Ranker, T, 512, 8>(rank, rows, first, rowCount, m, keys, scratch.indices, picks, stream);
        return cudaGetLastError();
    }
    int constexpr kBits = static_cast<int>(sizeof(Key) * 8);
    int constexpr kLowBit = LowBit<Ranker>::value;
    cudaError_t status = cudaSuccess;
    if constexpr (sizeof(Key) == 4)
    {
        if (rowCount <= kCompositeRows)
        {
            compositeKeysKernel<<<gridFor(rowCount * m), kGridThreads, 0, stream>>>(
                rank, rows, first, rowCount, m, keys, scratch.indices, scratch.composite);
            int rowBits = 0;
            while ((int64_t{1} << rowBits) < rowCount)
            {
                ++rowBits;
            }
            size_t bytes = scratch.sortBytes;
            status = cub::DeviceRadixSort::SortPairs(scratch.sortTemporary, bytes, scratch.composite,
                scratch.sortedComposite, scratch.indices, scratch.sortedIndices, rowCount * m, kLowBit, 32 + rowBits,
                stream);
            if (status != cudaSuccess)
            {
                return status;
            }
            writeSortedKernel<<<gridFor(rowCount * rows.k), kGridThreads, 0, stream>>>(
                picks, rows, first, rowCount, m, scratch.sortedIndices);
            return cudaGetLastError();
        }
    }
    if (!keysWritten)
    {
        wholeRowKeysKernel<<<gridFor(rowCount * m), kGridThreads, 0, stream>>>(
            rank, rows, first, rowCount, scratch.keys, scratch.indices);
    }
    if (rowCount <= kFewRows && m >= kLongRow)
    {
        for (int64_t r = 0; r < rowCount && status == cudaSuccess; ++r)
        {
            size_t bytes = scratch.sortBytes;
            status = cub::DeviceRadixSort::SortPairs(scratch.sortTemporary, bytes, scratch.keys + r * m,
                scratch.sortedKeys + r * m, scratch.indices + r * m, scratch.sortedIndices + r * m, m, kLowBit, kBits,
                stream);
        }
    }
    else
    {
        segmentOffsetsKernel<<<gridFor(rowCount + 1), kGridThreads, 0, stream>>>(scratch.offsets, rowCount, m);
        size_t bytes = scratch.sortBytes;
        status = cub::DeviceSegmentedRadixSort::SortPairs(scratch.sortTemporary, bytes, scratch.keys,
            scratch.sortedKeys, scratch.indices, scratch.sortedIndices, static_cast<int>(rowCount * m),
            static_cast<int>(rowCount), scratch.offsets, scratch.offsets + 1, kLowBit, kBits, stream);
    }
    if (status != cudaSuccess)
    {
        return status;
    }
    writeSortedKernel<<<gridFor(rowCount * rows.k), kGridThreads, 0, stream>>>(
        picks, rows, first, rowCount, m, scratch.sortedIndices);
    return cudaGetLastError();
}

//! Selection of rows [first, first + rowCount): each row's kept elements, in index order, k per row in scratch.
template <typename Ranker>
void selectKept(Ranker const& rank, Rows const& rows, Plan const& plan, int64_t first, int64_t rowCount,
    Scratch<typename Ranker::Key> const& scratch, cudaStream_t stream)
{
    using Key = typename Ranker::Key;
    if (plan.slices == 1)
    {
        selectRowsKernel<<<static_cast<unsigned>(rowCount), kSelectThreads, 0, stream>>>(
            rank, rows, first, scratch.keys, scratch.indices);
        return;
    }
    dim3 const grid(static_cast<unsigned>(plan.slices), static_cast<unsigned>(rowCount));
    startThresholdsKernel<<<static_cast<unsigned>(rowCount), kBins, 0, stream>>>(
        scratch.thresholds, scratch.bins, rows);
    for (int shift = static_cast<int>(sizeof(Key) * 8) - kRadixBits; digitCounts<Ranker>(shift); shift -= kRadixBits)
    {
        sliceDigitsKernel<<<grid, kSelectThreads, 0, stream>>>(
            rank, rows, first, plan.sliceLength, scratch.thresholds, scratch.bins, shift);
    }
    sliceCountsKernel<<<grid, kSelectThreads, 0, stream>>>(
        rank, rows, first, plan.sliceLength, scratch.thresholds, scratch.sliceCounts);
    sliceKeepKernel<<<grid, kSelectThreads, 0, stream>>>(
        rank, rows, first, plan.sliceLength, scratch.thresholds, scratch.sliceCounts, scratch.keys, scratch.indices);
}

//! The top k of every row into `picks`, in `workspace` of workspaceBytes<Key>(rows) bytes or more. rows.extent
//! must fit in int32 (indices are computed as such) and k must be in [1, extent].
template <typename Ranker, typename T>
cudaError_t topKOfRows(
    Ranker const& rank, Rows const& rows, Picks<T> const& picks, void* workspace, cudaStream_t stream)
{
    using Key = typename Ranker::Key;
    if (rows.count == 0 || rows.k == 0)
    {
        return cudaSuccess;
    }
    Plan const plan = planFor(rows);
    if (plan.fewPicks)
    {
        // Whole warps, no more than a row's worth of them.
        int64_t const warps
            = std::min<int64_t>((rows.extent + kWarpSize - 1) / kWarpSize, kFewPicksThreads / kWarpSize);
        auto const blocks = static_cast<unsigned>(std::min<int64_t>(rows.count, 65535 * 8));
        fewPicksKernel<<<blocks, static_cast<unsigned>(warps * kWarpSize), 0, stream>>>(rank, rows, picks);
        return cudaGetLastError();
    }
    ScratchCarver carver(workspace);
    Scratch<Key> const scratch(carver, rows);
    for (int64_t first = 0; first < rows.count; first += plan.rowsPerChunk)
    {
        int64_t const rowCount = std::min(plan.rowsPerChunk, rows.count - first);
        if (plan.select)
        {
            selectKept(rank, rows, plan, first, rowCount, scratch, stream);
        }
        cudaError_t const status
            = sortKept(rank, rows, first, rowCount, plan.kept, scratch, plan.select, picks, stream);
        if (status != cudaSuccess)
        {
            return status;
        }
    }
    return cudaGetLastError();
}

} // namespace kiln::cuda::topk
