// The GEMM of small_channel_convolution.h on the tensor cores, as an implicit GEMM over a tile of output positions
// staged in shared memory:
// - A block takes 64 output maps (blockIdx.y) and copies their whole kernel into shared memory once, [map][tap][8
//   channels], the taps rounded up to pairs (a k-step of 16 is two taps).
// - It then walks tiles of 16 x 16 output positions (a grid of as many blocks as the GPU holds at once). For each, it
//   copies the input region the tile's windows cover into shared memory with cp.async, the next tile's while it
//   computes this one's, zeros where the windows reach into the padding.
// - Each of its eight warps takes two rows of the tile, an m16 tile each, against all 64 maps, eight n8 tiles. A
//   k-step's a fragment is four 8x8 matrices whose rows are (position, tap) vectors of eight channels, so ldmatrix
//   reads it straight from the region, the unfolded input never written anywhere; the kernel's b fragments come
//   from shared memory the same way. The products accumulate in FP32.
// - The region keeps each row's columns grouped by their residue modulo the stride, so that the eight neighbouring
//   positions one ldmatrix reads lie in eight consecutive vectors, whatever the stride (no bank conflicts).
// - The epilogue adds the bias, applies the ReLU, and rounds to FP16.
#include "backend/cuda/cuda_error.h"
#include "backend/cuda/device_facts.h"
#include "backend/cuda/kernels/convolution/small_channel_convolution.h"
#include "backend/cuda/kernels/tensor_core.cuh"

#include <cuda_fp16.h>

#include <algorithm>
#include <climits>
#include <stdexcept>
#include <string>

namespace kiln::cuda
{
namespace
{

using Problem = SmallChannelConvolution::Problem;

constexpr int kChannels = 8; //!< stored per input position: one 16-byte vector a tap
constexpr int kWarps = 8;
constexpr int kThreads = kWarps * 32;
constexpr int kTileRows = 2 * kWarps; //!< output rows per tile: two per warp
constexpr int kTileColumns = 16;      //!< output columns per tile: one m16 tile's rows
constexpr int kBlockMaps = 64;        //!< output maps per block: eight n8 tiles
constexpr int kMapTiles = kBlockMaps / 8;
//! The most shared memory a block may take (H100's most is 227 KB): two input regions and a kernel.
constexpr size_t kMaxSharedBytes = 200 * 1024;

//! k-steps of 16: pairs of taps.
__host__ __device__ inline int32_t stepsOf(int32_t taps)
{
    return (taps + 1) / 2;
}

//! Halves per row (output map) of the kernel in shared memory: its taps rounded up to pairs, and 8 more, so that the
//! eight rows one ldmatrix reads, an odd number of 16-byte units apart, fall in different banks.
__host__ __device__ inline int32_t kernelPitch(int32_t taps)
{
    return stepsOf(taps) * 16 + 8;
}

//! Vectors per row of a region: a part per residue of the column modulo the stride.
__host__ __device__ inline int32_t regionPitch(Problem const& p)
{
    return p.strideX * p.regionPart;
}

__host__ __device__ inline int32_t regionVectors(Problem const& p)
{
    return p.regionRows * regionPitch(p);
}

//! Shared memory: two regions of `vectors`, the kernel of the block's maps, each tap's offset in a region (vectors),
//! and the maps' bias.
__host__ __device__ inline size_t sharedBytes(int64_t vectors, int32_t taps)
{
    return size_t(2 * vectors) * sizeof(uint4) + size_t{kBlockMaps} * kernelPitch(taps) * sizeof(__half)
        + size_t(2) * stepsOf(taps) * sizeof(int32_t) + kBlockMaps * sizeof(float);
}

//! A tile's input region for a kernel of [height, width] taps `kernel` with `stride` and `dilation` [y, x]: its rows
//! and columns, and the columns kept per residue modulo the horizontal stride (one part per residue).
struct RegionSize
{
    int64_t rows;
    int64_t columns;
    int64_t residues;
    int64_t part;

    RegionSize(Shape const& kernel, Shape const& stride, Shape const& dilation)
        : rows((kTileRows - 1) * stride[0] + (kernel[0] - 1) * dilation[0] + 1)
        , columns((kTileColumns - 1) * stride[1] + (kernel[1] - 1) * dilation[1] + 1)
        , residues(stride[1])
        , part((columns + residues - 1) / residues)
    {
    }
    int64_t vectors() const
    {
        return rows * residues * part;
    }
};

struct Operands
{
    uint4 const* input;  //!< [N, H, W] vectors of 8 channels
    uint4 const* kernel; //!< [K, taps] vectors of 8 channels
    __half const* bias;  //!< nullptr: none
    __half* output;
};

//! Where a tile lies: its image and its first output row and column.
struct Tile
{
    int32_t image;
    int32_t row;
    int32_t column;
};

__device__ inline Tile tileAt(Problem const& p, int32_t index)
{
    int32_t const across = (p.outWidth + kTileColumns - 1) / kTileColumns;
    int32_t const down = (p.outHeight + kTileRows - 1) / kTileRows;
    int32_t const image = index / (across * down);
    int32_t const within = index - image * across * down;
    return Tile{image, within / across * kTileRows, within % across * kTileColumns};
}

//! Starts copying the input region `tile`'s windows read into `region`: input column c of region row r lands at
//! r * pitch + (c % stride) * part + c / stride. Zeros outside the input.
__device__ inline void copyRegion(uint4* region, Problem const& p, uint4 const* input, Tile const& tile)
{
    int32_t const top = tile.row * p.strideY - p.padY;
    int32_t const left = tile.column * p.strideX - p.padX;
    uint4 const* const image = input + int64_t{tile.image} * p.height * p.width;
    int32_t const pitch = regionPitch(p);
    for (int32_t i = static_cast<int32_t>(threadIdx.x); i < p.regionRows * p.regionColumns; i += kThreads)
    {
        int32_t const r = i / p.regionColumns;
        int32_t const c = i - r * p.regionColumns;
        int32_t const y = top + r;
        int32_t const x = left + c;
        bool const inside = static_cast<uint32_t>(y) < static_cast<uint32_t>(p.height)
            && static_cast<uint32_t>(x) < static_cast<uint32_t>(p.width);
        int32_t const residue = c % p.strideX;
        copyAsync(reinterpret_cast<__half*>(region + r * pitch + residue * p.regionPart + c / p.strideX),
            reinterpret_cast<__half const*>(inside ? image + y * p.width + x : input), inside ? 16 : 0);
    }
}

__device__ inline float epilogue(Problem const& p, float sum, float bias)
{
    float const value = sum + bias;
    return p.relu && value < 0.0F ? 0.0F : value; // NaN stays NaN, as on the CPU reference
}

__global__ void __launch_bounds__(kThreads) smallChannelConvolutionKernel(Problem const p, Operands const operands)
{
    extern __shared__ __align__(16) unsigned char shared[];
    int32_t const pitch = kernelPitch(p.taps);
    int32_t const steps = stepsOf(p.taps);
    auto* const regions = reinterpret_cast<uint4*>(shared);
    auto* const kernel = reinterpret_cast<__half*>(regions + 2 * regionVectors(p));
    auto* const tapOffsets = reinterpret_cast<int32_t*>(kernel + kBlockMaps * pitch);
    auto* const bias = reinterpret_cast<float*>(tapOffsets + 2 * steps);
    int32_t const firstMap = static_cast<int32_t>(blockIdx.y) * kBlockMaps;

    // The block's maps' kernel, zeros past the last map and in the tap that rounds the count up to pairs.
    int32_t const rowVectors = 2 * steps;
    for (int32_t i = static_cast<int32_t>(threadIdx.x); i < kBlockMaps * rowVectors; i += kThreads)
    {
        int32_t const map = i / rowVectors;
        int32_t const tap = i - map * rowVectors;
        uint4 value{0, 0, 0, 0};
        if (firstMap + map < p.maps && tap < p.taps)
        {
            value = operands.kernel[int64_t{firstMap + map} * p.taps + tap];
        }
        *reinterpret_cast<uint4*>(kernel + map * pitch + tap * kChannels) = value;
    }
    // Each tap's vector offset in a region from its window's corner; the pair-rounding tap reads the first tap's
    // (its products are zeroed in registers, as an infinite input times its zero weights would not be zero).
    for (int32_t tap = static_cast<int32_t>(threadIdx.x); tap < 2 * steps; tap += kThreads)
    {
        int32_t const real = tap < p.taps ? tap : 0;
        int32_t const row = real / p.kernelWidth * p.dilationY;
        int32_t const column = (real % p.kernelWidth) * p.dilationX;
        tapOffsets[tap] = row * regionPitch(p) + column % p.strideX * p.regionPart + column / p.strideX;
    }
    for (int32_t map = static_cast<int32_t>(threadIdx.x); map < kBlockMaps; map += kThreads)
    {
        bool const present = operands.bias != nullptr && firstMap + map < p.maps;
        bias[map] = present ? __half2float(operands.bias[firstMap + map]) : 0.0F;
    }

    int32_t const warp = static_cast<int32_t>(threadIdx.x) / 32;
    int32_t const lane = static_cast<int32_t>(threadIdx.x) % 32;
    // ldmatrix's rows. For an a fragment, lane l gives matrix l / 8's row l % 8: position (l / 8 % 2) 8 + l % 8 of the
    // m16 tile, tap l / 16 of the step's two. For a pair of n8 tiles' b fragments: maps (l / 16) 8 + l % 8 at k
    // (l / 8 % 2) 8, matrices 0 and 1 being the first tile's, 2 and 3 the second's.
    int32_t const position = lane / 8 % 2 * 8 + lane % 8;
    int32_t const stepTap = lane / 16;
    int32_t positionOffsets[2]; // of the lane's position in each of the warp's two rows, in a region
#pragma unroll
    for (int t = 0; t < 2; ++t)
    {
        positionOffsets[t] = (2 * warp + t) * p.strideY * regionPitch(p) + position;
    }
    __half const* const kernelRows = kernel + (lane / 16 * 8 + lane % 8) * pitch + lane / 8 % 2 * 8;
    bool const oddTaps = p.taps % 2 != 0;

    int32_t const tiles
        = p.images * ((p.outHeight + kTileRows - 1) / kTileRows) * ((p.outWidth + kTileColumns - 1) / kTileColumns);
    int32_t tileIndex = static_cast<int32_t>(blockIdx.x);
    if (tileIndex < tiles)
    {
        copyRegion(regions, p, operands.input, tileAt(p, tileIndex));
    }
    commitCopies();
    for (int32_t stage = 0; tileIndex < tiles; tileIndex += static_cast<int32_t>(gridDim.x), stage ^= 1)
    {
        int32_t const nextIndex = tileIndex + static_cast<int32_t>(gridDim.x);
        if (nextIndex < tiles)
        {
            copyRegion(regions + (stage ^ 1) * regionVectors(p), p, operands.input, tileAt(p, nextIndex));
        }
        commitCopies();
        awaitCopies<1>(); // this tile's region; the next one's may still be on its way
        __syncthreads();

        __half const* const region = reinterpret_cast<__half const*>(regions + stage * regionVectors(p));
        float sums[2][kMapTiles][4] = {};
        for (int32_t step = 0; step < steps; ++step)
        {
            int32_t const tapOffset = tapOffsets[2 * step + stepTap];
            uint32_t a[2][4];
#pragma unroll
            for (int t = 0; t < 2; ++t)
            {
                loadMatrices(a[t], region + (positionOffsets[t] + tapOffset) * kChannels);
                if (oddTaps && step == steps - 1)
                {
                    a[t][2] = 0; // columns 8-15: the pair-rounding tap
                    a[t][3] = 0;
                }
            }
            uint32_t b[kMapTiles / 2][4];
#pragma unroll
            for (int pair = 0; pair < kMapTiles / 2; ++pair)
            {
                loadMatrices(b[pair], kernelRows + pair * 16 * pitch + step * 16);
            }
#pragma unroll
            for (int pair = 0; pair < kMapTiles / 2; ++pair)
            {
#pragma unroll
                for (int t = 0; t < 2; ++t)
                {
                    mma16816(sums[t][2 * pair], a[t], b[pair][0], b[pair][1]);
                    mma16816(sums[t][2 * pair + 1], a[t], b[pair][2], b[pair][3]);
                }
            }
        }
        __syncthreads(); // every warp is done with the region before the next iteration copies into it

        // Accumulator i of an n8 tile is position (lane / 4) + 8 (i / 2) of the m16 tile, map 2 (lane % 4) + i % 2.
        Tile const tile = tileAt(p, tileIndex);
        int32_t const channel = 2 * (lane % 4);
#pragma unroll
        for (int t = 0; t < 2; ++t)
        {
            int32_t const y = tile.row + 2 * warp + t;
#pragma unroll
            for (int half = 0; half < 2; ++half)
            {
                int32_t const x = tile.column + lane / 4 + 8 * half;
                if (y >= p.outHeight || x >= p.outWidth)
                {
                    continue;
                }
                __half* const row
                    = operands.output + ((int64_t{tile.image} * p.outHeight + y) * p.outWidth + x) * p.maps + firstMap;
#pragma unroll
                for (int n = 0; n < kMapTiles; ++n)
                {
                    int32_t const map = n * 8 + channel;
                    if (firstMap + map < p.maps)
                    {
                        *reinterpret_cast<__half2*>(row + map)
                            = __floats2half2_rn(epilogue(p, sums[t][n][2 * half], bias[map]),
                                epilogue(p, sums[t][n][2 * half + 1], bias[map + 1]));
                    }
                }
            }
        }
    }
}

} // namespace

bool SmallChannelConvolution::takes(network::ConvolutionParams const& params, plan::Epilogue const& epilogue,
    Shape const& inputShape, nvinfer1::DataType type, TensorFormat format)
{
    bool const twoAxes = params.kernelSize.nbDims == 2 && params.stride.nbDims == 2 && params.dilation.nbDims == 2;
    if (type != nvinfer1::DataType::kHALF || !channelsLast(format) || inputShape.size() != 4
        || storedChannels(inputShape, format) != kChannels || params.nbGroups != 1 || !twoAxes
        || params.nbOutputMaps <= 0 || params.nbOutputMaps % 8 != 0)
    {
        return false;
    }
    auto const pairOf = [](nvinfer1::Dims const& dims) { return Shape{dims.d[0], dims.d[1]}; };
    Shape const kernel = pairOf(params.kernelSize);
    Shape const stride = pairOf(params.stride);
    Shape const dilation = pairOf(params.dilation);
    auto const positive = [](Shape const& pair) { return pair[0] > 0 && pair[1] > 0; };
    // The kernel counts the input's positions in 32 bits.
    bool const fits = positive(kernel) && positive(stride) && positive(dilation)
        && kernel[0] * kernel[1] <= INT32_MAX / 2
        && sharedBytes(RegionSize(kernel, stride, dilation).vectors(), static_cast<int32_t>(kernel[0] * kernel[1]))
            <= kMaxSharedBytes
        && inputShape[0] * inputShape[2] * inputShape[3] <= INT32_MAX;
    bool const epilogueRuns = !epilogue.addsResidual && (!epilogue.activates || epilogue.relu());
    return fits && epilogueRuns;
}

SmallChannelConvolution::SmallChannelConvolution(ConvolutionGeometry const& geometry, bool relu)
{
    Shape const& input = geometry.input;
    Shape const& output = geometry.output;
    if (input.size() != 4 || input[1] != kChannels || geometry.filter.size() != 4 || output[1] % 8 != 0)
    {
        throw std::invalid_argument("convolution: Kiln's small-channel kernel does not take this geometry");
    }
    Shape const kernel{geometry.filter[2], geometry.filter[3]};
    RegionSize const region(kernel, geometry.stride, geometry.dilation);
    if (sharedBytes(region.vectors(), static_cast<int32_t>(kernel[0] * kernel[1])) > kMaxSharedBytes)
    {
        throw std::invalid_argument("convolution: Kiln's small-channel kernel does not take a window this large");
    }
    auto const narrow = [](int64_t value) { return static_cast<int32_t>(value); };
    mProblem.positions = output[0] * output[2] * output[3];
    mProblem.height = narrow(input[2]);
    mProblem.width = narrow(input[3]);
    mProblem.outHeight = narrow(output[2]);
    mProblem.outWidth = narrow(output[3]);
    mProblem.maps = narrow(output[1]);
    mProblem.kernelWidth = narrow(kernel[1]);
    mProblem.taps = narrow(kernel[0] * kernel[1]);
    mProblem.strideY = narrow(geometry.stride[0]);
    mProblem.strideX = narrow(geometry.stride[1]);
    mProblem.padY = narrow(geometry.padding[0]);
    mProblem.padX = narrow(geometry.padding[1]);
    mProblem.dilationY = narrow(geometry.dilation[0]);
    mProblem.dilationX = narrow(geometry.dilation[1]);
    mProblem.images = narrow(output[0]);
    mProblem.regionRows = narrow(region.rows);
    mProblem.regionColumns = narrow(region.columns);
    mProblem.regionPart = narrow(region.part);
    mProblem.relu = relu;

    int device = 0;
    int sharedBytesOffered = 0;
    int blocksPerMultiprocessor = 0;
    check(cudaGetDevice(&device), "convolution: finding the device");
    int32_t const multiprocessors = multiprocessorCount("convolution");
    check(cudaDeviceGetAttribute(&sharedBytesOffered, cudaDevAttrMaxSharedMemoryPerBlockOptin, device),
        "convolution: asking the device");
    mSharedBytes = sharedBytes(region.vectors(), mProblem.taps);
    if (mSharedBytes > static_cast<size_t>(sharedBytesOffered))
    {
        // Hopper offers 227 KB a block; other GPUs (a GeForce's 99 KB) may not hold a large window's regions.
        throw std::invalid_argument("convolution: Kiln's small-channel kernel needs " + std::to_string(mSharedBytes)
            + " bytes of shared memory a block here, and this GPU offers " + std::to_string(sharedBytesOffered));
    }
    // Room for the largest problem the class takes on this GPU, so that every layer's launch fits.
    check(cudaFuncSetAttribute(smallChannelConvolutionKernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
              static_cast<int>(std::min(kMaxSharedBytes, static_cast<size_t>(sharedBytesOffered)))),
        "convolution: sizing the small-channel kernel's shared memory");
    check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
              &blocksPerMultiprocessor, smallChannelConvolutionKernel, kThreads, mSharedBytes),
        "convolution: sizing the small-channel kernel's grid");
    int64_t const tiles
        = output[0] * ((output[2] + kTileRows - 1) / kTileRows) * ((output[3] + kTileColumns - 1) / kTileColumns);
    if (tiles > INT32_MAX)
    {
        throw std::invalid_argument("convolution: Kiln's small-channel kernel counts tiles in 32 bits");
    }
    mBlocks = narrow(std::max<int64_t>(
        1, std::min<int64_t>(tiles, int64_t{multiprocessors} * std::max(blocksPerMultiprocessor, 1))));
}

void SmallChannelConvolution::run(
    void const* input, void const* kernel, void const* bias, void* output, cudaStream_t stream) const
{
    if (mProblem.positions == 0)
    {
        return;
    }
    dim3 const grid(
        static_cast<uint32_t>(mBlocks), static_cast<uint32_t>((mProblem.maps + kBlockMaps - 1) / kBlockMaps));
    Operands const operands{static_cast<uint4 const*>(input), static_cast<uint4 const*>(kernel),
        static_cast<__half const*>(bias), static_cast<__half*>(output)};
    smallChannelConvolutionKernel<<<grid, kThreads, mSharedBytes, stream>>>(mProblem, operands);
    check(cudaGetLastError(), "convolution: launching the small-channel kernel");
}

} // namespace kiln::cuda
