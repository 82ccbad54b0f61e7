// The implicit GEMM of int8_convolution.h on mma.sync, over the tiles of int8_convolution_tiles.cuh (a block of 128
// positions by 64 or 128 maps; 64 where a layer has no more):
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
#include "backend/cuda/kernels/convolution/int8_convolution_tiles.cuh"
#include "backend/cuda/kernels/convolution/int8_convolution_warp_groups.h"

#include <stdexcept>
#include <string>

namespace kiln::cuda
{
namespace
{

using namespace int8_tiles;

constexpr int kWarpPositions = 64;
constexpr int kWarpMaps = 32;
constexpr int kPositionTiles = kWarpPositions / 16;
constexpr int kMapTiles = kWarpMaps / 8;

//! A block's shape with `WarpColumns` warps across the maps (and two down the positions).
template <int WarpColumns, int CopyBytes>
struct BlockShape
{
    static constexpr int kMaps = WarpColumns * kWarpMaps;
    static constexpr int kThreads = 2 * WarpColumns * 32;
    using Loader = StageLoader<kThreads, kMaps, CopyBytes>;
    //! Blocks an SM should hold at once, which caps the registers a thread may take (2 x 256 threads: 128).
    static constexpr int kBlocksPerSm = WarpColumns == 4 ? 2 : 3;
};

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
__global__ void __launch_bounds__(BlockShape<WarpColumns, CopyBytes>::kThreads,
    BlockShape<WarpColumns, CopyBytes>::kBlocksPerSm) int8ConvolutionKernel(int8_t const* input, int8_t const* filters,
    void* output, Im2colGeometry g, int64_t positions, int32_t maps, QuantizedEpilogue e, bool vectorOutput)
{
    using Shape = BlockShape<WarpColumns, CopyBytes>;
    using Loader = typename Shape::Loader;
    static_assert(kBlockPositions * Shape::kMaps * sizeof(int32_t) <= Loader::kSharedBytes, "the sums fit the stages");
    extern __shared__ __align__(16) int8_t stages[];
    int const thread = static_cast<int>(threadIdx.x);
    int64_t const firstPosition = static_cast<int64_t>(blockIdx.x) * kBlockPositions;
    int32_t const firstMap = static_cast<int32_t>(blockIdx.y) * Shape::kMaps;
    int const warp = thread / 32;
    int const warpRow = (warp % 2) * kWarpPositions;
    int const warpMap = (warp / 2) * kWarpMaps;
    int32_t const ownMap = firstMap + warpMap + (thread % 4) * 8; // the first of the 8 maps whose sums it ends with
    prefetchResiduals<kPositionTiles * 2>(
        e, firstPosition, [&](int i) { return rowOfSums(warpRow, i / 2, i % 2); }, ownMap, positions, maps);

    Loader loader(g, firstPosition, positions, firstMap, maps);
    int const steps = (g.rowLength + kStepTaps - 1) / kStepTaps;
    loader.loadFirstSteps(stages, input, filters, g, steps);
    int32_t sums[kPositionTiles][kMapTiles][4] = {};
    for (int step = 0; step < steps; ++step)
    {
        awaitCopies<kStages - 2>();
        __syncthreads(); // this step's stage has arrived, and every warp is done with the one refilled next
        if (step + kStages - 1 < steps)
        {
            loader.load(stages, input, filters, g, step + kStages - 1);
        }
        commitCopies();
        int8_t const* const positionTile = stages + (step % kStages) * Loader::kStageBytes;
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
    int32_t maps, QuantizedEpilogue const& e, bool vectorOutput, cudaStream_t stream)
{
    using Shape = BlockShape<WarpColumns, CopyBytes>;
    constexpr int kSharedBytes = Shape::Loader::kSharedBytes;
    EpilogueActivations const activations = activationsOf(e);
    auto const kernel = activations == EpilogueActivations::kReluAtMost
        ? int8ConvolutionKernel<WarpColumns, CopyBytes, EpilogueActivations::kReluAtMost>
        : activations == EpilogueActivations::kSelfGated
        ? int8ConvolutionKernel<WarpColumns, CopyBytes, EpilogueActivations::kSelfGated>
        : int8ConvolutionKernel<WarpColumns, CopyBytes, EpilogueActivations::kAny>;
    // The grant is the current device's; asking again costs little next to a launch.
    check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSharedBytes),
        "quantized convolution: granting the INT8 kernel its shared memory");
    dim3 const grid(static_cast<unsigned>((positions + kBlockPositions - 1) / kBlockPositions),
        static_cast<unsigned>((maps + Shape::kMaps - 1) / Shape::kMaps));
    kernel<<<grid, Shape::kThreads, kSharedBytes, stream>>>(
        input, filters, output, g, positions, maps, e, vectorOutput);
    check(cudaGetLastError(), "quantized convolution: launching the INT8 kernel");
}

//! Whether a thread's 8 maps of the output and the residual are aligned vectors: where the maps are a multiple of 8
//! (an FP8 output, which no export makes, is left to the staged epilogue, which holds less code).
bool writesVectors(void const* output, int32_t maps, QuantizedEpilogue const& e)
{
    auto const aligned = [](void const* pointer) { return reinterpret_cast<uintptr_t>(pointer) % 16 == 0; };
    return maps % kOwnMaps == 0 && aligned(output) && aligned(e.residual)
        && !(e.outputScale > 0.0F && e.quantizedType == nvinfer1::DataType::kFP8);
}

//! Whether a block takes 128 maps (four warp columns) rather than 64.
bool wideBlocks(int64_t maps)
{
    return maps > BlockShape<2, 16>::kMaps;
}

} // namespace

Int8ConvolutionKernel int8ConvolutionKernelOfDevice(int device)
{
    int major = 0;
    int minor = 0;
    check(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device),
        "quantized convolution: reading the device's compute capability");
    check(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device),
        "quantized convolution: reading the device's compute capability");
    return major == 9 && minor == 0 ? Int8ConvolutionKernel::kWarpGroups : Int8ConvolutionKernel::kMmaSync;
}

bool int8ConvolutionFillsGpu(Im2colGeometry const& g, int64_t images, int64_t maps, int32_t multiprocessors)
{
    int64_t const positions = images * g.outputHeight * g.outputWidth;
    int64_t const perBlock = wideBlocks(maps) ? BlockShape<4, 16>::kMaps : BlockShape<2, 16>::kMaps;
    int64_t const blocks = (positions + kBlockPositions - 1) / kBlockPositions * ((maps + perBlock - 1) / perBlock);
    return 2 * blocks >= multiprocessors;
}

void launchInt8Convolution(int8_t const* input, int8_t const* filters, void* output, Im2colGeometry const& g,
    int64_t images, QuantizedEpilogue const& e, Int8ConvolutionKernel kernel, cudaStream_t stream)
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
    bool const vectorOutput = writesVectors(output, maps, e);
    if (kernel == Int8ConvolutionKernel::kWarpGroups && vectorOutput)
    {
        launchInt8ConvolutionOnWarpGroups(input, filters, output, g, positions, maps, e, stream);
        return;
    }
    bool const vectorCopies = g.channels % 16 == 0;
    bool const wide = wideBlocks(maps);
    if (wide && vectorCopies)
    {
        launchShape<4, 16>(input, filters, output, g, positions, maps, e, vectorOutput, stream);
    }
    else if (wide)
    {
        launchShape<4, 4>(input, filters, output, g, positions, maps, e, vectorOutput, stream);
    }
    else if (vectorCopies)
    {
        launchShape<2, 16>(input, filters, output, g, positions, maps, e, vectorOutput, stream);
    }
    else
    {
        launchShape<2, 4>(input, filters, output, g, positions, maps, e, vectorOutput, stream);
    }
}

} // namespace kiln::cuda
