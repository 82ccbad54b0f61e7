// The tiles both INT8 implicit GEMMs (int8_convolution.cu with mma.sync, int8_convolution_warp_groups.cu with
// Hopper's warp-group products) multiply, and how a block fills them. The product is [positions x taps] . [taps x
// maps], each position's row of taps its window's input in (r, s, channel) order, read where it lies in the
// channels-last input:
// - A block takes kBlockPositions positions by its maps and walks the taps kStepTaps at a time through a ring of
//   kStages shared-memory stages filled by cp.async, kStages - 1 steps ahead of the one the tensor cores consume. A
//   stage holds the position tile (a row of kStepTaps bytes per position) and then the map tile (a row per map).
// - Each thread fills the same 16-byte chunk of a few rows of each stage. Where the channels are a multiple of 16, a
//   chunk is 16 channels of one window position, copied as one vector (zeros where the window overhangs the input);
//   otherwise (channels a multiple of 4: a stem's 3 padded to 4 by the layer) as four words of 4 channels, each of
//   its own window position.
// - A row's 16-byte chunks are XOR-swizzled by the row (bits 4-5 of the address by bits 7-8), so that the eight rows
//   ldmatrix reads at once fall in eight different bank groups; this is also the 64-byte swizzle of the warp-group
//   products' shared-memory descriptors.
// - The map tile's rows hold the filters in an order (mapInColumn) that leaves each thread, after the product, with
//   the INT32 sums of 8 adjacent maps at each of its positions, which it finishes straight from its registers.
#pragma once

#include "backend/cuda/kernels/convolution/quantized_convolution_kernels.h"
#include "backend/cuda/kernels/convolution/quantized_epilogue.cuh"
#include "backend/cuda/kernels/tensor_core.cuh"

#include <cstdint>

namespace kiln::cuda::int8_tiles
{

constexpr int kBlockPositions = 128;
constexpr int kStepTaps = 64; //!< bytes of a stage's row
constexpr int kChunksPerRow = kStepTaps / 16;
constexpr int kStages = 4;
constexpr int kMapGroup = 32; //!< maps whose filters mapInColumn reorders among themselves
constexpr int kOwnMaps = 8;   //!< adjacent maps whose sums a thread ends with at each of its positions

//! Where chunk `chunk` of row `row` lies in a stage's tile.
__device__ inline int swizzled(int row, int chunk)
{
    return row * kStepTaps + ((chunk ^ ((row >> 1) & 3)) << 4);
}

//! The map whose filter a block's map tile holds in row `column` (of the block's maps, from its first). The tensor
//! cores leave the sums of n-tile n (8 columns), column 2 (lane % 4) + b, with lane; putting map 8 (lane % 4) + 2 n + b
//! of each group of 32 there gives each thread 8 adjacent maps at each of its positions, which it finishes straight
//! from its registers and writes as one vector.
__device__ inline int mapInColumn(int column)
{
    int const inGroup = column % kMapGroup; // 8 n + 2 (lane % 4) + b
    int const tile = inGroup / 8;
    int const quad = (inGroup % 8) / 2;
    return column - inGroup + 8 * quad + 2 * tile + inGroup % 2;
}

//! Where an output position's window lies in the input.
struct Window
{
    int64_t
        origin; //!< the offset its tap (0, 0, channel 0) would have (outside the input where it lies in the padding)
    int32_t y0; //!< its top row (negative in the padding)
    int32_t x0; //!< its left column
    bool valid; //!< a position of the output, not past the last
};

__device__ inline Window windowOf(Im2colGeometry const& g, int64_t position, int64_t positions)
{
    int32_t const imagePositions = g.outputHeight * g.outputWidth;
    int64_t const image = position / imagePositions;
    auto const p = static_cast<int32_t>(position - image * imagePositions);
    int32_t const oy = p / g.outputWidth;
    int32_t const ox = p - oy * g.outputWidth;
    int32_t const y0 = oy * g.strideY - g.padY;
    int32_t const x0 = ox * g.strideX - g.padX;
    int64_t const origin = (image * g.height * g.width + static_cast<int64_t>(y0) * g.width + x0) * g.channels;
    return Window{origin, y0, x0, position < positions};
}

//! One tap of a window: its row and column in the window, and its channel.
struct Tap
{
    int32_t r;
    int32_t s;
    int32_t channel;
};

__device__ inline Tap tapOf(Im2colGeometry const& g, int32_t tap)
{
    int32_t const rs = tap / g.channels;
    int32_t const r = rs / g.kernelWidth;
    return Tap{r, rs - r * g.kernelWidth, tap - rs * g.channels};
}

//! `t` moved `taps` taps on, without dividing.
__device__ inline void advance(Im2colGeometry const& g, Tap& t, int32_t taps)
{
    t.channel += taps;
    while (t.channel >= g.channels)
    {
        t.channel -= g.channels;
        if (++t.s == g.kernelWidth)
        {
            t.s = 0;
            ++t.r;
        }
    }
}

//! Where a tap lies relative to any window's origin: the same for every window a thread fills in a step, so worked
//! out once for all of them.
struct TapPlace
{
    int32_t dy;    //!< rows below the window's top
    int32_t dx;    //!< columns right of its left
    int32_t delta; //!< bytes past its origin
    bool inWindow; //!< a tap of the window (not past its last row, nor past the row of taps)
};

__device__ inline TapPlace placeOf(Im2colGeometry const& g, Tap const& t, int32_t tap)
{
    int32_t const dy = t.r * g.dilationY;
    int32_t const dx = t.s * g.dilationX;
    return TapPlace{dy, dx, (dy * g.width + dx) * g.channels + t.channel, t.r < g.kernelHeight && tap < g.taps};
}

//! Where the tap at `place` of window `w` lies in the input, or -1 in the padding (or outside the window).
__device__ inline int64_t tapOffset(Im2colGeometry const& g, Window const& w, TapPlace const& place)
{
    // One unsigned comparison per axis: a row or column above or left of the input wraps to a large value.
    bool const inside = w.valid && place.inWindow
        && static_cast<uint32_t>(w.y0 + place.dy) < static_cast<uint32_t>(g.height)
        && static_cast<uint32_t>(w.x0 + place.dx) < static_cast<uint32_t>(g.width);
    return inside ? w.origin + place.delta : -1;
}

//! Copies 16 channels of one window position, at `place` of window `w`, into `shared` without waiting (zeros in the
//! padding).
__device__ inline void loadWindowVector(
    int8_t* shared, int8_t const* input, Im2colGeometry const& g, Window const& w, TapPlace const& place)
{
    int64_t const offset = tapOffset(g, w, place);
    copyAsync(shared, offset >= 0 ? input + offset : input, offset >= 0 ? 16U : 0U);
}

//! Copies chunk `tap` / 16 of window `w`'s row of taps, whose first tap is `first`, into `shared` without waiting, as
//! four words of 4 channels, each of its own window position (channels a multiple of 4, not of 16).
__device__ inline void loadWindowWords(
    int8_t* shared, int8_t const* input, Im2colGeometry const& g, Window const& w, int32_t tap, Tap const& first)
{
    Tap t = first;
#pragma unroll
    for (int j = 0; j < 4; ++j)
    {
        int64_t const offset = tapOffset(g, w, placeOf(g, t, tap + 4 * j));
        copyAsyncWord(shared + 4 * j, offset >= 0 ? input + offset : input, offset >= 0 ? 4U : 0U);
        t.channel += 4; // the channels are a multiple of 4: a word never straddles two window positions
        if (t.channel == g.channels)
        {
            t.channel = 0;
            if (++t.s == g.kernelWidth)
            {
                t.s = 0;
                ++t.r;
            }
        }
    }
}

//! Fills the stages of a block of `Threads` threads and `Maps` maps, one step of kStepTaps taps at a time, in order:
//! each thread copies its chunk of every kRowsApart-th row of the position tile (its windows) and of the map tile
//! (the filters, in mapInColumn's order).
template <int Threads, int Maps, int CopyBytes>
class StageLoader
{
public:
    static_assert(CopyBytes == 16 || CopyBytes == 4, "a chunk is one vector or four words");
    static constexpr int kRowsApart = Threads / kChunksPerRow; //!< between the rows one thread fills
    static constexpr int kPositionRows = kBlockPositions / kRowsApart;
    static constexpr int kMapRows = Maps / kRowsApart;
    static constexpr int kStageBytes = (kBlockPositions + Maps) * kStepTaps;
    static constexpr int kSharedBytes = kStages * kStageBytes;
    static_assert(kPositionRows * kRowsApart == kBlockPositions && kMapRows * kRowsApart == Maps,
        "every thread fills as many rows as the others");

    __device__ StageLoader(
        Im2colGeometry const& g, int64_t firstPosition, int64_t positions, int32_t firstMap, int32_t maps)
        : mFirstMap(firstMap)
        , mMaps(maps)
        , mNextTap(tapOf(g, chunk() * 16))
    {
#pragma unroll
        for (int i = 0; i < kPositionRows; ++i)
        {
            mWindows[i] = windowOf(g, firstPosition + firstRow() + i * kRowsApart, positions);
        }
    }

    //! Copies the first kStages - 1 of `steps` steps without waiting, each its own group of copies (empty past the
    //! last step), so that awaitCopies<kStages - 2>() before step s waits for step s alone.
    __device__ __forceinline__ void loadFirstSteps(
        int8_t* stages, int8_t const* input, int8_t const* filters, Im2colGeometry const& g, int steps)
    {
        for (int step = 0; step < kStages - 1; ++step)
        {
            if (step < steps)
            {
                load(stages, input, filters, g, step);
            }
            commitCopies();
        }
    }

    //! Copies step `step`'s taps into its stage without waiting; steps are loaded in order, one after another.
    __device__ __forceinline__ void load(
        int8_t* stages, int8_t const* input, int8_t const* filters, Im2colGeometry const& g, int step)
    {
        int8_t* const positionTile = stages + (step % kStages) * kStageBytes;
        int8_t* const mapTile = positionTile + kBlockPositions * kStepTaps;
        int const ownChunk = chunk();
        int32_t const tap = step * kStepTaps + ownChunk * 16;
        TapPlace const place = placeOf(g, mNextTap, tap);
#pragma unroll
        for (int i = 0; i < kPositionRows; ++i)
        {
            int8_t* const shared = positionTile + swizzled(firstRow() + i * kRowsApart, ownChunk);
            if constexpr (CopyBytes == 16)
            {
                loadWindowVector(shared, input, g, mWindows[i], place);
            }
            else
            {
                loadWindowWords(shared, input, g, mWindows[i], tap, mNextTap);
            }
        }
        advance(g, mNextTap, kStepTaps);
#pragma unroll
        for (int i = 0; i < kMapRows; ++i)
        {
            int const row = firstRow() + i * kRowsApart;
            int32_t const map = mFirstMap + mapInColumn(row);
            bool const inside = map < mMaps && tap < g.rowLength;
            int8_t const* source = filters + static_cast<int64_t>(map) * g.rowLength + tap;
            copyAsync(mapTile + swizzled(row, ownChunk), inside ? source : filters, inside ? 16U : 0U);
        }
    }

private:
    //! The chunk of its rows a thread copies.
    __device__ static int chunk()
    {
        return static_cast<int>(threadIdx.x) % kChunksPerRow;
    }

    //! The first of the rows a thread copies.
    __device__ static int firstRow()
    {
        return static_cast<int>(threadIdx.x) / kChunksPerRow;
    }

    int32_t mFirstMap;
    int32_t mMaps;
    Tap mNextTap; //!< the first tap of this thread's chunk in the next step to load
    Window mWindows[kPositionRows];
};

//! Asks L2 for the residual's bytes of 8 maps from `map` at `Count` positions, firstPosition + rowOf(i), which are
//! read only once the product is done.
template <int Count, typename RowOf>
__device__ inline void prefetchResiduals(
    QuantizedEpilogue const& e, int64_t firstPosition, RowOf rowOf, int32_t map, int64_t positions, int32_t maps)
{
    if (e.residual == nullptr || map >= maps)
    {
        return;
    }
    int64_t const elementBytes = e.residualType == nvinfer1::DataType::kINT8 ? 1 : 4;
#pragma unroll
    for (int i = 0; i < Count; ++i)
    {
        int64_t const position = firstPosition + rowOf(i);
        if (position < positions)
        {
            auto const* const bytes = static_cast<char const*>(e.residual) + (position * maps + map) * elementBytes;
            asm volatile("prefetch.global.L2 [%0];\n" ::"l"(bytes));
        }
    }
}

} // namespace kiln::cuda::int8_tiles
