// The implicit GEMM of int8_convolution.h. The product is [positions x taps] . [taps x maps], each position's row of
// taps its window's input in (r, s, channel) order, read where it lies in the channels-last input:
// - A block takes 128 positions (blockIdx.x) by 64 or 128 maps (blockIdx.y; 64 where a layer has no more) and walks the
//   taps 64 at a time through a ring of four shared-memory stages filled by cp.async, three steps ahead of the one the
//   tensor cores consume.
// - Each thread fills the same 16-byte chunk of a few rows of each stage. Where the channels are a multiple of 16, a
//   chunk is 16 channels of one window position, copied as one vector (zeros where the window overhangs the input);
//   otherwise (channels a multiple of 4: a stem's 3 padded to 4 by the layer) as four words of 4 channels, each of
//   its own window position.
// - Each warp takes 64 positions by 32 maps: four m16 tiles by four n8 tiles of m16n8k32 products, their operands
//   loaded by ldmatrix from stages whose 16-byte chunks are XOR-swizzled by row, so that the eight rows one ldmatrix
//   reads fall in eight different bank groups.
// - The map tile's rows hold the filters in an order (mapInColumn) that leaves each thread, after the product, with the
//   INT32 sums of 8 adjacent maps at each of its 8 positions. It scales them, adds the bias and the residual,
//   activates and quantizes (quantized_epilogue.cuh) straight from its registers, reading the residual and writing the
//   output 8 maps at a time. The residual's bytes are asked into L2 when the block starts, so that the epilogue does
//   not wait on DRAM for them after the product. Where the maps are not a multiple of 8 (or the output is FP8, or not
//   aligned), the sums go through shared memory instead and are finished one value at a time.
#include "backend/cuda/kernels/convolution/int8_convolution.h"

#include "backend/cuda/cuda_error.h"
#include "backend/cuda/kernels/convolution/quantized_epilogue.cuh"
#include "backend/cuda/kernels/tensor_core.cuh"

#include <stdexcept>
#include <string>

namespace kiln::cuda
{
namespace
{

constexpr int kBlockPositions = 128;
constexpr int kStepTaps = 64; //!< bytes of a stage's row
constexpr int kChunksPerRow = kStepTaps / 16;
constexpr int kStages = 4;
constexpr int kWarpPositions = 64;
constexpr int kWarpMaps = 32;
constexpr int kPositionTiles = kWarpPositions / 16;
constexpr int kMapTiles = kWarpMaps / 8;
constexpr int kOwnMaps = 8; //!< adjacent maps whose sums a thread ends with at each of its positions (mapInColumn)

//! A block's shape with `WarpColumns` warps across the maps (and two down the positions).
template <int WarpColumns>
struct BlockShape
{
    static constexpr int kMaps = WarpColumns * kWarpMaps;
    static constexpr int kThreads = 2 * WarpColumns * 32;
    static constexpr int kRowsApart = kThreads / kChunksPerRow; //!< between the rows one thread fills
    static constexpr int kPositionRows = kBlockPositions / kRowsApart;
    static constexpr int kMapRows = kMaps / kRowsApart;
    static constexpr int kStageBytes = (kBlockPositions + kMaps) * kStepTaps;
    static constexpr int kSharedBytes = kStages * kStageBytes;
    //! Blocks an SM should hold at once, which caps the registers a thread may take (2 x 256 threads: 128).
    static constexpr int kBlocksPerSm = WarpColumns == 4 ? 2 : 3;
};

//! Where chunk `chunk` of row `row` lies in a stage's tile.
__device__ inline int swizzled(int row, int chunk)
{
    return row * kStepTaps + ((chunk ^ ((row >> 1) & 3)) << 4);
}

//! Where an output position's window lies in the input.
struct Window
{
    int64_t image; //!< the offset of its image's first byte
    int32_t y0;    //!< its top row (negative in the padding)
    int32_t x0;    //!< its left column
    bool valid;    //!< a position of the output, not past the last
};

__device__ inline Window windowOf(Im2colGeometry const& g, int64_t position, int64_t positions)
{
    int32_t const imagePositions = g.outputHeight * g.outputWidth;
    int64_t const image = position / imagePositions;
    auto const p = static_cast<int32_t>(position - image * imagePositions);
    int32_t const oy = p / g.outputWidth;
    int32_t const ox = p - oy * g.outputWidth;
    return Window{image * g.height * g.width * g.channels, oy * g.strideY - g.padY, ox * g.strideX - g.padX,
        position < positions};
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

//! Where tap `t` of window `w` lies in the input, or -1 in the padding (or past the window's last row).
__device__ inline int64_t tapOffset(Im2colGeometry const& g, Window const& w, Tap const& t)
{
    int32_t const y = w.y0 + t.r * g.dilationY;
    int32_t const x = w.x0 + t.s * g.dilationX;
    bool const inside = w.valid && t.r < g.kernelHeight && y >= 0 && y < g.height && x >= 0 && x < g.width;
    return inside ? w.image + (static_cast<int64_t>(y) * g.width + x) * g.channels + t.channel : -1;
}

//! Chunk `tap` / 16 of a window's row of taps, whose first tap is `first`, into `shared` without waiting, in copies of
//! `CopyBytes` channels of one window position: 16 (the chunk) where the channels are a multiple of 16, else 4.
template <int CopyBytes>
__device__ inline void loadWindowChunk(
    int8_t* shared, int8_t const* input, Im2colGeometry const& g, Window const& w, int32_t tap, Tap const& first)
{
    static_assert(CopyBytes == 16 || CopyBytes == 4, "a chunk is one vector or four words");
    if constexpr (CopyBytes == 16)
    {
        int64_t const offset = tap < g.taps ? tapOffset(g, w, first) : -1;
        copyAsync(shared, offset >= 0 ? input + offset : input, offset >= 0 ? 16U : 0U);
    }
    else
    {
        Tap t = first;
#pragma unroll
        for (int j = 0; j < 4; ++j)
        {
            int64_t const offset = tap + 4 * j < g.taps ? tapOffset(g, w, t) : -1;
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
}

//! The operands of one mma step (32 taps) for a warp: its four position tiles' a fragments and its four map tiles'
//! b fragments, from the stage's tiles.
__device__ inline void multiplyStep(int32_t (&sums)[kPositionTiles][kMapTiles][4], int8_t const* positionTile,
    int8_t const* mapTile, int warpRow, int warpMap, int halfStep)
{
    int const lane = static_cast<int>(threadIdx.x) % 32;
    uint32_t a[kPositionTiles][4];
#pragma unroll
    for (int m = 0; m < kPositionTiles; ++m)
    {
        // Lanes 0-15 give rows 0-15 at the first 16 taps, lanes 16-31 the same rows 16 taps on.
        loadMatrices(a[m], positionTile + swizzled(warpRow + m * 16 + lane % 16, halfStep * 2 + lane / 16));
    }
    uint32_t b[kMapTiles][2];
#pragma unroll
    for (int pair = 0; pair < kMapTiles / 2; ++pair)
    {
        // Matrices: map tile 2 pair (taps 0-15, 16-31), then map tile 2 pair + 1 (the same).
        uint32_t r[4];
        int const row = warpMap + pair * 16 + lane % 8 + (lane / 16) * 8;
        loadMatrices(r, mapTile + swizzled(row, halfStep * 2 + (lane / 8) % 2));
        b[2 * pair][0] = r[0];
        b[2 * pair][1] = r[1];
        b[2 * pair + 1][0] = r[2];
        b[2 * pair + 1][1] = r[3];
    }
#pragma unroll
    for (int m = 0; m < kPositionTiles; ++m)
    {
#pragma unroll
        for (int n = 0; n < kMapTiles; ++n)
        {
            mma16832(sums[m][n], a[m], b[n][0], b[n][1]);
        }
    }
}

//! The map whose filter a block's map tile holds in row `column` (of the block's maps, from its first). The tensor
//! cores leave the sums of a warp's n-tile n, column 2 (lane % 4) + b, with lane; putting map 8 (lane % 4) + 2 n + b of
//! the warp's 32 there gives each thread 8 adjacent maps at each of its positions, which it finishes straight from its
//! registers and writes as one vector.
__device__ inline int mapInColumn(int column)
{
    int const inWarp = column % kWarpMaps; // 8 n + 2 (lane % 4) + b
    int const tile = inWarp / 8;
    int const quad = (inWarp % 8) / 2;
    return column - inWarp + 8 * quad + 2 * tile + inWarp % 2;
}

//! Where the sum of (row, map) lies in a block's sums staged in shared memory: [kBlockPositions][Maps] INT32, each
//! row's 16-byte units XOR-swizzled by the row, so that the eight rows an mma tile's lanes write spread over the banks.
template <int Maps>
__device__ inline int stagedSum(int row, int map)
{
    return row * Maps + (((map / 4) ^ (row % 8)) * 4) + map % 4;
}

//! A warp's sums into the staged tile. Accumulators j of tile (m, n): position row lane / 4 (+ 8 for j >= 2), maps
//! 8 (lane % 4) + 2 n and the next (mapInColumn).
template <int Maps>
__device__ inline void stageSums(
    int32_t* staged, int32_t const (&sums)[kPositionTiles][kMapTiles][4], int warpRow, int warpMap)
{
    int const lane = static_cast<int>(threadIdx.x) % 32;
#pragma unroll
    for (int m = 0; m < kPositionTiles; ++m)
    {
#pragma unroll
        for (int half = 0; half < 2; ++half)
        {
            int const row = warpRow + m * 16 + lane / 4 + half * 8;
#pragma unroll
            for (int n = 0; n < kMapTiles; ++n)
            {
                int const map = warpMap + (lane % 4) * 8 + n * 2;
                *reinterpret_cast<int2*>(staged + stagedSum<Maps>(row, map))
                    = int2{sums[m][n][half * 2], sums[m][n][half * 2 + 1]};
            }
        }
    }
}

//! The position (row of the block) of a thread's sums [m][n][2 half + b].
__device__ inline int rowOfSums(int warpRow, int m, int half)
{
    return warpRow + m * 16 + static_cast<int>(threadIdx.x) % 32 / 4 + half * 8;
}

//! Asks L2 for the residual's bytes of this thread's positions and maps, which are read only once the product is
//! done.
__device__ inline void prefetchResidual(
    QuantizedEpilogue const& e, int64_t firstPosition, int warpRow, int32_t map, int64_t positions, int32_t maps)
{
    if (e.residual == nullptr || map >= maps)
    {
        return;
    }
    int64_t const elementBytes = e.residualType == nvinfer1::DataType::kINT8 ? 1 : 4;
#pragma unroll
    for (int m = 0; m < kPositionTiles; ++m)
    {
#pragma unroll
        for (int half = 0; half < 2; ++half)
        {
            int64_t const position = firstPosition + rowOfSums(warpRow, m, half);
            if (position < positions)
            {
                auto const* const bytes = static_cast<char const*>(e.residual) + (position * maps + map) * elementBytes;
                asm volatile("prefetch.global.L2 [%0];\n" ::"l"(bytes));
            }
        }
    }
}

//! The epilogue from a thread's own sums, where the output is INT8 or float in whole aligned vectors of 8 maps: the
//! thread finishes maps `map` .. `map` + 7 (mapInColumn) at each of its 8 positions, as finishEight writes them. An
//! INT8 residual's codes are read for the 4 positions of two position tiles before any of them is finished, so that
//! the reads wait on L2 together.
template <EpilogueActivations Activations>
__device__ void finishOwnSums(int32_t const (&sums)[kPositionTiles][kMapTiles][4], int64_t firstPosition, int warpRow,
    int32_t map, int64_t positions, int32_t maps, void* output, QuantizedEpilogue const& e)
{
    if (map >= maps)
    {
        return;
    }
    EightMaps const coefficients = eightMapsOf(e, map);
    constexpr int kTilesAtOnce = 2;
#pragma unroll
    for (int first = 0; first < kPositionTiles; first += kTilesAtOnce)
    {
        uint2 residuals[kTilesAtOnce][2];
#pragma unroll
        for (int m = 0; m < kTilesAtOnce; ++m)
        {
#pragma unroll
            for (int half = 0; half < 2; ++half)
            {
                int64_t const position = firstPosition + rowOfSums(warpRow, first + m, half);
                residuals[m][half] = position < positions ? int8ResidualAt(e, position * maps + map) : uint2{};
            }
        }
#pragma unroll
        for (int m = 0; m < kTilesAtOnce; ++m)
        {
#pragma unroll
            for (int half = 0; half < 2; ++half)
            {
                int64_t const position = firstPosition + rowOfSums(warpRow, first + m, half);
                if (position >= positions)
                {
                    continue;
                }
                int32_t eight[8];
#pragma unroll
                for (int n = 0; n < kMapTiles; ++n)
                {
                    eight[2 * n] = sums[first + m][n][2 * half];
                    eight[2 * n + 1] = sums[first + m][n][2 * half + 1];
                }
                finishEight<Activations>(e, eight, coefficients, residuals[m][half], output, position * maps + map);
            }
        }
    }
}

//! The epilogue where the output is not in whole aligned vectors (maps not a multiple of 8): the block's sums staged
//! in shared memory (stageSums), each thread finishing one value at a time (a loop, not unrolled: the kernel's code
//! would grow by a copy of every activation for each value).
template <typename Shape>
__device__ void finishStagedSums(int32_t const* staged, int64_t firstPosition, int32_t firstMap, int64_t positions,
    int32_t maps, void* output, QuantizedEpilogue const& e)
{
#pragma unroll 1
    for (int k = static_cast<int>(threadIdx.x); k < kBlockPositions * Shape::kMaps; k += Shape::kThreads)
    {
        int const row = k / Shape::kMaps;
        int const column = k % Shape::kMaps;
        int64_t const position = firstPosition + row;
        int32_t const map = firstMap + column;
        if (position < positions && map < maps)
        {
            finishValue(e, staged[stagedSum<Shape::kMaps>(row, column)], output, position * maps + map, map);
        }
    }
}

template <int WarpColumns, int CopyBytes, EpilogueActivations Activations>
__global__ void __launch_bounds__(BlockShape<WarpColumns>::kThreads, BlockShape<WarpColumns>::kBlocksPerSm)
    int8ConvolutionKernel(int8_t const* input, int8_t const* filters, void* output, Im2colGeometry g, int64_t positions,
        int32_t maps, QuantizedEpilogue e, bool vectorOutput)
{
    using Shape = BlockShape<WarpColumns>;
    static_assert(kBlockPositions * Shape::kMaps * sizeof(int32_t) <= Shape::kSharedBytes, "the sums fit the stages");
    extern __shared__ __align__(16) int8_t stages[];
    int const thread = static_cast<int>(threadIdx.x);
    int const chunk = thread % kChunksPerRow;
    int const firstRow = thread / kChunksPerRow;
    int64_t const firstPosition = static_cast<int64_t>(blockIdx.x) * kBlockPositions;
    int32_t const firstMap = static_cast<int32_t>(blockIdx.y) * Shape::kMaps;
    int const warp = thread / 32;
    int const warpRow = (warp % 2) * kWarpPositions;
    int const warpMap = (warp / 2) * kWarpMaps;
    int32_t const ownMap = firstMap + warpMap + (thread % 4) * 8; // the first of the 8 maps whose sums it ends with
    prefetchResidual(e, firstPosition, warpRow, ownMap, positions, maps);

    Window windows[Shape::kPositionRows];
#pragma unroll
    for (int i = 0; i < Shape::kPositionRows; ++i)
    {
        windows[i] = windowOf(g, firstPosition + firstRow + i * Shape::kRowsApart, positions);
    }
    // The first tap of this thread's chunk in the next step to load: steps are loaded in order, one after another.
    Tap nextTap = tapOf(g, chunk * 16);
    auto const load = [&](int step) {
        int8_t* const positionTile = stages + (step % kStages) * Shape::kStageBytes;
        int8_t* const mapTile = positionTile + kBlockPositions * kStepTaps;
        int32_t const tap = step * kStepTaps + chunk * 16;
#pragma unroll
        for (int i = 0; i < Shape::kPositionRows; ++i)
        {
            int const row = firstRow + i * Shape::kRowsApart;
            loadWindowChunk<CopyBytes>(positionTile + swizzled(row, chunk), input, g, windows[i], tap, nextTap);
        }
        advance(g, nextTap, kStepTaps);
#pragma unroll
        for (int i = 0; i < Shape::kMapRows; ++i)
        {
            int const row = firstRow + i * Shape::kRowsApart;
            int32_t const map = firstMap + mapInColumn(row);
            bool const inside = map < maps && tap < g.rowLength;
            int8_t const* source = filters + static_cast<int64_t>(map) * g.rowLength + tap;
            copyAsync(mapTile + swizzled(row, chunk), inside ? source : filters, inside ? 16U : 0U);
        }
    };

    int const steps = (g.rowLength + kStepTaps - 1) / kStepTaps;
    for (int step = 0; step < kStages - 1; ++step)
    {
        if (step < steps)
        {
            load(step);
        }
        commitCopies();
    }
    int32_t sums[kPositionTiles][kMapTiles][4] = {};
    for (int step = 0; step < steps; ++step)
    {
        awaitCopies<kStages - 2>();
        __syncthreads(); // this step's stage has arrived, and every warp is done with the one refilled next
        if (step + kStages - 1 < steps)
        {
            load(step + kStages - 1);
        }
        commitCopies();
        int8_t const* const positionTile = stages + (step % kStages) * Shape::kStageBytes;
#pragma unroll
        for (int halfStep = 0; halfStep < kStepTaps / 32; ++halfStep)
        {
            multiplyStep(sums, positionTile, positionTile + kBlockPositions * kStepTaps, warpRow, warpMap, halfStep);
        }
    }

    if (vectorOutput)
    {
        finishOwnSums<Activations>(sums, firstPosition, warpRow, ownMap, positions, maps, output, e);
        return;
    }
    awaitCopies<0>();
    __syncthreads(); // every warp is done with the stages, which now hold the sums
    auto* const staged = reinterpret_cast<int32_t*>(stages);
    stageSums<Shape::kMaps>(staged, sums, warpRow, warpMap);
    __syncthreads();
    finishStagedSums<Shape>(staged, firstPosition, firstMap, positions, maps, output, e);
}

template <int WarpColumns, int CopyBytes>
void launchShape(int8_t const* input, int8_t const* filters, void* output, Im2colGeometry const& g, int64_t positions,
    int32_t maps, QuantizedEpilogue const& e, cudaStream_t stream)
{
    using Shape = BlockShape<WarpColumns>;
    EpilogueActivations const activations = activationsOf(e);
    auto const kernel = activations == EpilogueActivations::kReluAtMost
        ? int8ConvolutionKernel<WarpColumns, CopyBytes, EpilogueActivations::kReluAtMost>
        : activations == EpilogueActivations::kSelfGated
        ? int8ConvolutionKernel<WarpColumns, CopyBytes, EpilogueActivations::kSelfGated>
        : int8ConvolutionKernel<WarpColumns, CopyBytes, EpilogueActivations::kAny>;
    // The grant is the current device's; asking again costs little next to a launch.
    check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, Shape::kSharedBytes),
        "quantized convolution: granting the INT8 kernel its shared memory");
    dim3 const grid(static_cast<unsigned>((positions + kBlockPositions - 1) / kBlockPositions),
        static_cast<unsigned>((maps + Shape::kMaps - 1) / Shape::kMaps));
    // A thread's 8 maps of the output and the residual are aligned vectors where the maps are a multiple of 8 (an FP8
    // output, which no export makes, is left to the staged epilogue, which holds less code).
    auto const aligned = [](void const* pointer) { return reinterpret_cast<uintptr_t>(pointer) % 16 == 0; };
    bool const vectorOutput = maps % kOwnMaps == 0 && aligned(output) && aligned(e.residual)
        && !(e.outputScale > 0.0F && e.quantizedType == nvinfer1::DataType::kFP8);
    kernel<<<grid, Shape::kThreads, Shape::kSharedBytes, stream>>>(
        input, filters, output, g, positions, maps, e, vectorOutput);
    check(cudaGetLastError(), "quantized convolution: launching the INT8 kernel");
}

//! Whether a block takes 128 maps (four warp columns) rather than 64.
bool wideBlocks(int64_t maps)
{
    return maps > BlockShape<2>::kMaps;
}

} // namespace

bool int8ConvolutionFillsGpu(Im2colGeometry const& g, int64_t images, int64_t maps, int32_t multiprocessors)
{
    int64_t const positions = images * g.outputHeight * g.outputWidth;
    int64_t const perBlock = wideBlocks(maps) ? BlockShape<4>::kMaps : BlockShape<2>::kMaps;
    int64_t const blocks = (positions + kBlockPositions - 1) / kBlockPositions * ((maps + perBlock - 1) / perBlock);
    return 2 * blocks >= multiprocessors;
}

void launchInt8Convolution(int8_t const* input, int8_t const* filters, void* output, Im2colGeometry const& g,
    int64_t images, QuantizedEpilogue const& e, cudaStream_t stream)
{
    int64_t const positions = images * g.outputHeight * g.outputWidth;
    auto const maps = static_cast<int32_t>(e.maps);
    if (positions == 0)
    {
        return;
    }
    if (g.channels % 4 != 0)
    {
        throw std::invalid_argument("quantized convolution: the INT8 kernel reads 4 channels at a time at least, "
                                    "and the input has "
            + std::to_string(g.channels) + " (the layer pads such inputs)");
    }
    bool const vectorCopies = g.channels % 16 == 0;
    bool const wide = wideBlocks(maps);
    if (wide && vectorCopies)
    {
        launchShape<4, 16>(input, filters, output, g, positions, maps, e, stream);
    }
    else if (wide)
    {
        launchShape<4, 4>(input, filters, output, g, positions, maps, e, stream);
    }
    else if (vectorCopies)
    {
        launchShape<2, 16>(input, filters, output, g, positions, maps, e, stream);
    }
    else
    {
        launchShape<2, 4>(input, filters, output, g, positions, maps, e, stream);
    }
}

} // namespace kiln::cuda
