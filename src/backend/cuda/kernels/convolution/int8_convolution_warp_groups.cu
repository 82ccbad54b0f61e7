// The implicit GEMM of int8_convolution.h on Hopper's warp-group products (wgmma), over the tiles of
// int8_convolution_tiles.cuh: a block of 128 positions by 64 or 128 maps, filled by cp.async as for the mma.sync
// kernel, multiplied by two warp groups of 128 threads, each taking 64 of the positions by all of the block's maps.
// A warp group's product reads both of its operands from the stage through shared-memory descriptors (the tiles' XOR
// swizzle is wgmma's 64-byte mode), so that no thread loads fragments: the tensor cores take the whole 64 x maps x 32
// product in one instruction while the threads issue the next stage's copies.
//
// wgmma leaves the sums of n-tile j (8 maps) at d[4 j .. 4 j + 3]: row lane / 4 of the warp's 16 (+ 8 for the last
// two), columns 2 (lane % 4) and the next; with the filters in mapInColumn's order, each thread holds 8 adjacent maps
// of each group of 32 at each of its 2 positions, which it finishes from its registers as the mma.sync kernel does.
//
// wgmma exists only in sm_90a's arch-specific instruction set: this file is compiled for it alone
// (src/backend/cuda/CMakeLists.txt), and its kernels run only on GPUs of compute capability 9.0.
#include "backend/cuda/kernels/convolution/int8_convolution_warp_groups.h"

#include "backend/cuda/cuda_error.h"
#include "backend/cuda/kernels/convolution/int8_convolution_tiles.cuh"

namespace kiln::cuda
{
namespace
{

using namespace int8_tiles;

constexpr int kThreads = 256; //!< two warp groups
constexpr int kGroupPositions = kBlockPositions / 2;

//! The shared-memory descriptor of a K-major tile whose rows of kStepTaps bytes start at `tile` (aligned to the 512
//! bytes of the swizzle's pattern), its chunks swizzled as int8_tiles::swizzled lays them.
__device__ inline uint64_t tileDescriptor(int8_t const* tile)
{
    auto const address = static_cast<uint32_t>(__cvta_generic_to_shared(tile));
    uint64_t const start = (address & 0x3FFFF) >> 4;
    uint64_t const leadingOffset = 1;                   // unused: a product's 32 taps lie within one swizzled row
    uint64_t const strideOffset = (8 * kStepTaps) >> 4; // from one 8-row core matrix to the next
    uint64_t const swizzle64Bytes = 2;
    return start | (leadingOffset << 16) | (strideOffset << 32) | (swizzle64Bytes << 62);
}

//! `descriptor` moved `bytes` (a multiple of 16) along its rows: the hardware applies the swizzle to the address.
__device__ inline uint64_t along(uint64_t descriptor, int bytes)
{
    return descriptor + static_cast<uint64_t>(bytes >> 4);
}

//! d += a . b over 32 taps: a the warp group's 64 positions, b 128 maps, both K-major tiles in shared memory.
__device__ inline void multiply(int32_t (&d)[64], uint64_t a, uint64_t b)
{
    asm volatile("{\n"
                 ".reg .pred p;\n"
                 "setp.ne.b32 p, %66, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n128k32.s32.s8.s8 "
                 "{"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
                 "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
                 "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
                 "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
                 "}, %64, %65, p;\n"
                 "}\n"
                 : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]),
                 "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15]),
                 "+r"(d[16]), "+r"(d[17]), "+r"(d[18]), "+r"(d[19]), "+r"(d[20]), "+r"(d[21]), "+r"(d[22]), "+r"(d[23]),
                 "+r"(d[24]), "+r"(d[25]), "+r"(d[26]), "+r"(d[27]), "+r"(d[28]), "+r"(d[29]), "+r"(d[30]), "+r"(d[31]),
                 "+r"(d[32]), "+r"(d[33]), "+r"(d[34]), "+r"(d[35]), "+r"(d[36]), "+r"(d[37]), "+r"(d[38]), "+r"(d[39]),
                 "+r"(d[40]), "+r"(d[41]), "+r"(d[42]), "+r"(d[43]), "+r"(d[44]), "+r"(d[45]), "+r"(d[46]), "+r"(d[47]),
                 "+r"(d[48]), "+r"(d[49]), "+r"(d[50]), "+r"(d[51]), "+r"(d[52]), "+r"(d[53]), "+r"(d[54]), "+r"(d[55]),
                 "+r"(d[56]), "+r"(d[57]), "+r"(d[58]), "+r"(d[59]), "+r"(d[60]), "+r"(d[61]), "+r"(d[62]), "+r"(d[63])
                 : "l"(a), "l"(b), "r"(1)); // 1: add to d
}

//! d += a . b over 32 taps: a the warp group's 64 positions, b 64 maps, both K-major tiles in shared memory.
__device__ inline void multiply(int32_t (&d)[32], uint64_t a, uint64_t b)
{
    asm volatile("{\n"
                 ".reg .pred p;\n"
                 "setp.ne.b32 p, %34, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n64k32.s32.s8.s8 "
                 "{"
                 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
                 "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
                 "}, %32, %33, p;\n"
                 "}\n"
                 : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]),
                 "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15]),
                 "+r"(d[16]), "+r"(d[17]), "+r"(d[18]), "+r"(d[19]), "+r"(d[20]), "+r"(d[21]), "+r"(d[22]), "+r"(d[23]),
                 "+r"(d[24]), "+r"(d[25]), "+r"(d[26]), "+r"(d[27]), "+r"(d[28]), "+r"(d[29]), "+r"(d[30]), "+r"(d[31])
                 : "l"(a), "l"(b), "r"(1)); // 1: add to d
}

//! Orders this thread's copies into shared memory before the warp-group products that read them (cp.async writes
//! through the generic proxy, wgmma reads through the async one).
__device__ inline void copiesVisibleToProducts()
{
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

__device__ inline void fenceProducts()
{
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}

__device__ inline void commitProducts()
{
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}

__device__ inline void awaitProducts()
{
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
}

//! Keeps the compiler from reading the sums before awaitProducts: each register passes through an empty asm.
template <int Count>
__device__ inline void settled(int32_t (&d)[Count])
{
#pragma unroll
    for (int i = 0; i < Count; ++i)
    {
        asm volatile("" : "+r"(d[i])::"memory");
    }
}

//! The position (row of the block) of a thread's sums d[4 j + 2 half + b].
__device__ inline int rowOfSums(int half)
{
    int const thread = static_cast<int>(threadIdx.x);
    return (thread / 128) * kGroupPositions + (thread / 32 % 4) * 16 + thread % 32 / 4 + half * 8;
}

//! The epilogue from a thread's sums: maps `ownMap` + 32 g .. + 7 of each group g of 32 at its 2 positions, as
//! finishEight writes them; every INT8 residual code is read before any value is finished, so that the reads wait on
//! L2 together.
template <int Maps, EpilogueActivations Activations>
__device__ void finishOwnSums(int32_t const (&d)[Maps / 2], int64_t firstPosition, int32_t ownMap, int64_t positions,
    int32_t maps, void* output, QuantizedEpilogue const& e)
{
    constexpr int kGroups = Maps / kMapGroup;
    uint2 residuals[kGroups][2];
#pragma unroll
    for (int group = 0; group < kGroups; ++group)
    {
#pragma unroll
        for (int half = 0; half < 2; ++half)
        {
            int64_t const position = firstPosition + rowOfSums(half);
            int32_t const map = ownMap + group * kMapGroup;
            residuals[group][half] = position < positions && map < maps ? int8ResidualAt(e, position * maps + map)
                                                                        : uint2{};
        }
    }
#pragma unroll
    for (int group = 0; group < kGroups; ++group)
    {
        int32_t const map = ownMap + group * kMapGroup;
        if (map >= maps)
        {
            continue;
        }
        EightMaps const coefficients = eightMapsOf(e, map);
#pragma unroll
        for (int half = 0; half < 2; ++half)
        {
            int64_t const position = firstPosition + rowOfSums(half);
            if (position >= positions)
            {
                continue;
            }
            int32_t eight[kOwnMaps];
#pragma unroll
            for (int n = 0; n < kMapGroup / 8; ++n)
            {
                eight[2 * n] = d[(group * 4 + n) * 4 + 2 * half];
                eight[2 * n + 1] = d[(group * 4 + n) * 4 + 2 * half + 1];
            }
            finishEight<Activations>(e, eight, coefficients, residuals[group][half], output, position * maps + map);
        }
    }
}

//! Blocks an SM holds at once: three of 64 maps (80 registers a thread, a few spilled) ran the YOLO-style INT8 export
//! 3% to 4% faster than two (88 registers) on an H100; 128 maps' 64 accumulators a thread leave room for two.
template <int Maps>
constexpr int kBlocksPerSm = Maps == 64 ? 3 : 2;

template <int Maps, int CopyBytes, EpilogueActivations Activations>
__global__ void __launch_bounds__(kThreads, kBlocksPerSm<Maps>) warpGroupConvolutionKernel(int8_t const* input,
    int8_t const* filters, void* output, Im2colGeometry g, int64_t positions, int32_t maps, QuantizedEpilogue e)
{
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    using Loader = StageLoader<kThreads, Maps, CopyBytes>;
    extern __shared__ __align__(1024) int8_t stages[];
    int64_t const firstPosition = static_cast<int64_t>(blockIdx.x) * kBlockPositions;
    int32_t const firstMap = static_cast<int32_t>(blockIdx.y) * Maps;
    int32_t const ownMap = firstMap + (static_cast<int>(threadIdx.x) % 4) * kOwnMaps; // in its first group of 32
#pragma unroll
    for (int group = 0; group < Maps / kMapGroup; ++group)
    {
        prefetchResiduals<2>(e, firstPosition, rowOfSums, ownMap + group * kMapGroup, positions, maps);
    }

    Loader loader(g, firstPosition, positions, firstMap, maps);
    int const steps = (g.rowLength + kStepTaps - 1) / kStepTaps;
    loader.loadFirstSteps(stages, input, filters, g, steps);
    int const positionRows = (static_cast<int>(threadIdx.x) / 128) * kGroupPositions;
    int32_t sums[Maps / 2] = {};
    for (int step = 0; step < steps; ++step)
    {
        awaitCopies<kStages - 2>();
        copiesVisibleToProducts();
        __syncthreads(); // this step's stage has arrived, and every warp group is done with the one refilled next
        int8_t const* const positionTile = stages + (step % kStages) * Loader::kStageBytes;
        uint64_t const a = tileDescriptor(positionTile + positionRows * kStepTaps);
        uint64_t const b = tileDescriptor(positionTile + kBlockPositions * kStepTaps);
        fenceProducts();
#pragma unroll
        for (int k = 0; k < kStepTaps; k += 32)
        {
            multiply(sums, along(a, k), along(b, k));
        }
        commitProducts();
        if (step + kStages - 1 < steps)
        {
            loader.load(stages, input, filters, g, step + kStages - 1); // while the tensor cores work
        }
        commitCopies();
        awaitProducts();
    }
    settled(sums);
    finishOwnSums<Maps, Activations>(sums, firstPosition, ownMap, positions, maps, output, e);
#endif
}

template <int Maps, int CopyBytes>
void launchShape(int8_t const* input, int8_t const* filters, void* output, Im2colGeometry const& g, int64_t positions,
    int32_t maps, QuantizedEpilogue const& e, cudaStream_t stream)
{
    constexpr int kSharedBytes = StageLoader<kThreads, Maps, CopyBytes>::kSharedBytes;
    EpilogueActivations const activations = activationsOf(e);
    auto const kernel = activations == EpilogueActivations::kReluAtMost
        ? warpGroupConvolutionKernel<Maps, CopyBytes, EpilogueActivations::kReluAtMost>
        : activations == EpilogueActivations::kSelfGated
        ? warpGroupConvolutionKernel<Maps, CopyBytes, EpilogueActivations::kSelfGated>
        : warpGroupConvolutionKernel<Maps, CopyBytes, EpilogueActivations::kAny>;
    check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSharedBytes),
        "quantized convolution: granting the warp-group INT8 kernel its shared memory");
    dim3 const grid(static_cast<unsigned>((positions + kBlockPositions - 1) / kBlockPositions),
        static_cast<unsigned>((maps + Maps - 1) / Maps));
    kernel<<<grid, kThreads, kSharedBytes, stream>>>(input, filters, output, g, positions, maps, e);
    check(cudaGetLastError(), "quantized convolution: launching the warp-group INT8 kernel");
}

} // namespace

void launchInt8ConvolutionOnWarpGroups(int8_t const* input, int8_t const* filters, void* output,
    Im2colGeometry const& g, int64_t positions, int32_t maps, QuantizedEpilogue const& e, cudaStream_t stream)
{
    bool const wide = maps > 64; // blocks of 128 maps where a layer has more than 64, as the mma.sync kernel's
    bool const vectorCopies = g.channels % 16 == 0;
    if (wide && vectorCopies)
    {
        launchShape<128, 16>(input, filters, output, g, positions, maps, e, stream);
    }
    else if (wide)
    {
        launchShape<128, 4>(input, filters, output, g, positions, maps, e, stream);
    }
    else if (vectorCopies)
    {
        launchShape<64, 16>(input, filters, output, g, positions, maps, e, stream);
    }
    else
    {
        launchShape<64, 4>(input, filters, output, g, positions, maps, e, stream);
    }
}

} // namespace kiln::cuda
