#include "backend/cuda/kernels/convolution/quantized_convolution_kernels.h"

#include "backend/cuda/cuda_error.h"
#include "backend/cuda/kernels/device_access.cuh"
#include "backend/cuda/kernels/pointwise/pointwise_math.cuh"
#include "core/quantization.h"

#include <algorithm>
#include <type_traits>

namespace kiln::cuda
{
namespace
{

using nvinfer1::DataType;

// ---- Channels-first ----

//! The tile one block transposes: kTile output positions by kTile taps, so that the loads run along positions (the
//! input's rows) and the stores along taps (the matrix's rows). Within one image every index fits 32 bits (the layer
//! checks when it prepares); only the image's offset is 64-bit.
constexpr int kTile = 32;
constexpr int kTileRowsPerPass = 8;

//! Where an output position's window starts in the input (its top row and left column may be negative).
struct Window
{
    int32_t y0;
    int32_t x0;
    bool valid; //!< a position of the image, not past its end
};

//! Where tap `tap` (channel, r, s) of `w` lies in a channels-first image, or -1 in the padding.
__device__ int32_t tapOffset(Im2colGeometry const& g, Window const& w, int32_t tap)
{
    int32_t const perChannel = g.kernelHeight * g.kernelWidth;
    int32_t const channel = tap / perChannel;
    int32_t const rs = tap - channel * perChannel;
    int32_t const r = rs / g.kernelWidth;
    int32_t const y = w.y0 + r * g.dilationY;
    int32_t const x = w.x0 + (rs - r * g.kernelWidth) * g.dilationX;
    bool const inside = w.valid && tap < g.taps && y >= 0 && y < g.height && x >= 0 && x < g.width;
    return inside ? (channel * g.height + y) * g.width + x : -1;
}

//! blockIdx.x: a tile of one image's positions; blockIdx.y: a tile of taps (of the padded row); blockIdx.z: the image.
//! A 1x1 convolution of stride 1 without padding makes this a transposition of the image's [C, H * W] into [H * W, C].
__global__ void im2colChannelsFirstKernel(int8_t const* input, int8_t* rows, Im2colGeometry g)
{
    __shared__ int8_t tile[kTile][kTile + 4];
    int32_t const positions = g.outputHeight * g.outputWidth;
    int32_t const firstPosition = static_cast<int32_t>(blockIdx.x) * kTile;
    int32_t const firstTap = static_cast<int32_t>(blockIdx.y) * kTile;
    int8_t const* const image = input + static_cast<int64_t>(blockIdx.z) * g.channels * g.height * g.width;
    int32_t const position = firstPosition + static_cast<int32_t>(threadIdx.x);
    int32_t const oy = position / g.outputWidth;
    Window const window{
        oy * g.strideY - g.padY, (position - oy * g.outputWidth) * g.strideX - g.padX, position < positions};
    for (int t = threadIdx.y; t < kTile; t += kTileRowsPerPass)
    {
        int32_t const offset = tapOffset(g, window, firstTap + t);
        tile[t][threadIdx.x] = offset >= 0 ? image[offset] : int8_t{0};
    }
    __syncthreads();
    int8_t* const imageRows = rows + static_cast<int64_t>(blockIdx.z) * positions * g.rowLength;
    int32_t const tap = firstTap + static_cast<int32_t>(threadIdx.x);
    for (int r = threadIdx.y; r < kTile; r += kTileRowsPerPass)
    {
        int32_t const row = firstPosition + r;
        if (row < positions && tap < g.rowLength)
        {
            imageRows[static_cast<int64_t>(row) * g.rowLength + tap] = tile[threadIdx.x][r];
        }
    }
}

// ---- Channels-last ----

//! One thread per `Bytes` adjacent taps of a row: 16 (one vector) where the channels are a multiple of 16, so that a
//! chunk never straddles two window positions; else 1. Taps run (r, s, channel), so each window position's channels
//! are one contiguous run of the input.
template <int Bytes>
__global__ void im2colChannelsLastKernel(int8_t const* input, int8_t* rows, Im2colGeometry g, int64_t count)
{
    using Chunk = std::conditional_t<Bytes == 16, int4, int8_t>;
    int32_t const chunksPerRow = g.rowLength / Bytes;
    int32_t const positions = g.outputHeight * g.outputWidth;
    for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < count;
         i += static_cast<int64_t>(blockDim.x) * gridDim.x)
    {
        int64_t const row = i / chunksPerRow;
        int32_t const tap = static_cast<int32_t>(i - row * chunksPerRow) * Bytes;
        Chunk value{};
        if (tap < g.taps)
        {
            int64_t const image = row / positions;
            auto const position = static_cast<int32_t>(row - image * positions);
            int32_t const oy = position / g.outputWidth;
            int32_t const ox = position - oy * g.outputWidth;
            int32_t const rs = tap / g.channels;
            int32_t const channel = tap - rs * g.channels;
            int32_t const r = rs / g.kernelWidth;
            int32_t const y = oy * g.strideY - g.padY + r * g.dilationY;
            int32_t const x = ox * g.strideX - g.padX + (rs - r * g.kernelWidth) * g.dilationX;
            if (y >= 0 && y < g.height && x >= 0 && x < g.width)
            {
                int64_t const offset = ((image * g.height + y) * g.width + x) * g.channels + channel;
                value = *reinterpret_cast<Chunk const*>(input + offset);
            }
        }
        reinterpret_cast<Chunk*>(rows)[i] = value;
    }
}

// ---- The epilogue, both layouts ----

//! Output element `i`'s value, from its sum of map `map`; `i` also indexes the residual, which has the output's layout.
__device__ float epilogueValue(QuantizedEpilogue const& e, int32_t sum, int64_t map, int64_t i)
{
    float y = static_cast<float>(sum) * e.multipliers[map];
    if (e.bias != nullptr)
    {
        y += e.bias[map];
    }
    if (e.residual != nullptr)
    {
        y += e.residualType == DataType::kINT8
            ? dequantizeInt8(static_cast<int8_t const*>(e.residual)[i], e.residualScale)
            : static_cast<float const*>(e.residual)[i];
    }
    return e.activates ? device::activate(e.activation, e.alpha, e.beta, y) : y;
}

__device__ void storeOutput(QuantizedEpilogue const& e, void* output, int64_t i, float y)
{
    if (e.outputScale > 0.0F)
    {
        static_cast<int8_t*>(output)[i] = quantizeToInt8(y, e.outputScale);
    }
    else
    {
        static_cast<float*>(output)[i] = y;
    }
}

//! `Width` INT32 sums from `sums`, in one 16-byte load where Width is 4 (the caller aligns them).
template <int Width>
__device__ void loadSums(int32_t const* sums, int32_t (&values)[Width])
{
    if constexpr (Width == 4)
    {
        int4 const loaded = *reinterpret_cast<int4 const*>(sums);
        values[0] = loaded.x;
        values[1] = loaded.y;
        values[2] = loaded.z;
        values[3] = loaded.w;
    }
    else
    {
        values[0] = sums[0];
    }
}

//! Channels-first. blockIdx.y (and further planes in steps of gridDim.y): one output plane, image * maps + map; the
//! threads run along its positions, `Width` adjacent ones each. The sums of map k lie in a column of their own, so
//! neighbouring threads read neighbouring sums and write neighbouring outputs.
template <int Width>
__global__ void epilogueChannelsFirstKernel(int32_t const* sums, void* output, QuantizedEpilogue e, int64_t planes)
{
    for (int64_t plane = blockIdx.y; plane < planes; plane += gridDim.y)
    {
        int64_t const image = plane / e.maps;
        int64_t const map = plane - image * e.maps;
        int32_t const* const planeSums = sums + map * e.sumsStride + image * e.positions;
        for (int64_t p = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) * Width; p < e.positions;
             p += static_cast<int64_t>(gridDim.x) * blockDim.x * Width)
        {
            int32_t values[Width];
            loadSums<Width>(planeSums + p, values);
            for (int j = 0; j < Width; ++j)
            {
                int64_t const i = plane * e.positions + p + j;
                storeOutput(e, output, i, epilogueValue(e, values[j], map, i));
            }
        }
    }
}

//! Channels-last: `Width` adjacent maps of one output position per thread, in the output's order.
template <int Width>
__global__ void epilogueChannelsLastKernel(int32_t const* sums, void* output, QuantizedEpilogue e, int64_t count)
{
    for (int64_t i = (blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x) * Width; i < count;
         i += static_cast<int64_t>(blockDim.x) * gridDim.x * Width)
    {
        int64_t const position = i / e.maps;
        int64_t const map = i - position * e.maps;
        int32_t values[Width];
        loadSums<Width>(sums + position * e.sumsStride + map, values);
        for (int j = 0; j < Width; ++j)
        {
            storeOutput(e, output, i + j, epilogueValue(e, values[j], map + j, i + j));
        }
    }
}

unsigned blocksFor(int64_t threads)
{
    return device::blocksFor(threads);
}

} // namespace

void launchIm2col(
    int8_t const* input, int8_t* rows, Im2colGeometry const& g, int64_t images, bool channelsLast, cudaStream_t stream)
{
    if (!channelsLast)
    {
        int32_t const positions = g.outputHeight * g.outputWidth;
        dim3 const grid(static_cast<unsigned>((positions + kTile - 1) / kTile),
            static_cast<unsigned>((g.rowLength + kTile - 1) / kTile), static_cast<unsigned>(images));
        im2colChannelsFirstKernel<<<grid, dim3(kTile, kTileRowsPerPass), 0, stream>>>(input, rows, g);
    }
    else if (g.channels % 16 == 0)
    {
        int64_t const count = images * g.outputHeight * g.outputWidth * (g.rowLength / 16);
        im2colChannelsLastKernel<16><<<blocksFor(count), device::kThreadsPerBlock, 0, stream>>>(input, rows, g, count);
    }
    else
    {
        int64_t const count = images * g.outputHeight * g.outputWidth * g.rowLength;
        im2colChannelsLastKernel<1><<<blocksFor(count), device::kThreadsPerBlock, 0, stream>>>(input, rows, g, count);
    }
    check(cudaGetLastError(), "quantized convolution: gathering the windows");
}

void launchQuantizedEpilogue(int32_t const* sums, void* output, QuantizedEpilogue const& e, int64_t images,
    bool channelsLast, cudaStream_t stream)
{
    if (channelsLast)
    {
        int64_t const count = images * e.positions * e.maps;
        if (e.maps % 4 == 0)
        {
            epilogueChannelsLastKernel<4>
                <<<blocksFor(count / 4), device::kThreadsPerBlock, 0, stream>>>(sums, output, e, count);
        }
        else
        {
            epilogueChannelsLastKernel<1>
                <<<blocksFor(count), device::kThreadsPerBlock, 0, stream>>>(sums, output, e, count);
        }
        check(cudaGetLastError(), "quantized convolution: scaling the sums");
        return;
    }
    int64_t const planes = images * e.maps;
    bool const vectors = e.positions % 4 == 0;
    int64_t const perPlane = vectors ? e.positions / 4 : e.positions;
    dim3 const grid(static_cast<unsigned>(
                        std::min<int64_t>((perPlane + device::kThreadsPerBlock - 1) / device::kThreadsPerBlock, 64)),
        static_cast<unsigned>(std::min<int64_t>(planes, 65535)));
    if (vectors)
    {
        epilogueChannelsFirstKernel<4><<<grid, device::kThreadsPerBlock, 0, stream>>>(sums, output, e, planes);
    }
    else
    {
        epilogueChannelsFirstKernel<1><<<grid, device::kThreadsPerBlock, 0, stream>>>(sums, output, e, planes);
    }
    check(cudaGetLastError(), "quantized convolution: scaling the sums");
}

} // namespace kiln::cuda
