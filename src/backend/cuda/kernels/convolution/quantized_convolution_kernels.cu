#include "backend/cuda/kernels/convolution/quantized_convolution_kernels.h"

#include "backend/cuda/cuda_error.h"
#include "backend/cuda/kernels/device_access.cuh"

#include <stdexcept>
#include <string>
#include <type_traits>

namespace kiln::cuda
{
namespace
{

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

//! One thread per `Bytes` adjacent taps of a row: 16 (one vector) where the channels are a multiple of 16, else 4 (a
//! word; the channels are a multiple of 4), so that a chunk never straddles two window positions. Taps run (r, s,
//! channel), so each window position's channels are one contiguous run of the input.
template <int Bytes>
__global__ void im2colChannelsLastKernel(int8_t const* input, int8_t* rows, Im2colGeometry g, int64_t count)
{
    using Chunk = std::conditional_t<Bytes == 16, int4, int32_t>;
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

unsigned blocksFor(int64_t threads)
{
    return device::blocksFor(threads);
}

//! One thread per pixel: its `channels` bytes, then zeros up to `padded` (a multiple of 4), written a word at a time.
__global__ void padChannelsKernel(int8_t const* input, int8_t* output, int64_t pixels, int32_t channels, int32_t padded)
{
    for (int64_t p = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; p < pixels;
         p += static_cast<int64_t>(blockDim.x) * gridDim.x)
    {
        int8_t const* const source = input + p * channels;
        auto* const words = reinterpret_cast<uint32_t*>(output + p * padded);
        for (int32_t w = 0; w < padded / 4; ++w)
        {
            uint32_t word = 0;
#pragma unroll
            for (int32_t b = 0; b < 4; ++b)
            {
                int32_t const channel = 4 * w + b;
                if (channel < channels)
                {
                    word |= static_cast<uint32_t>(static_cast<uint8_t>(source[channel])) << (8 * b);
                }
            }
            words[w] = word;
        }
    }
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
    else if (g.channels % 4 == 0)
    {
        int64_t const count = images * g.outputHeight * g.outputWidth * (g.rowLength / 4);
        im2colChannelsLastKernel<4><<<blocksFor(count), device::kThreadsPerBlock, 0, stream>>>(input, rows, g, count);
    }
    else
    {
        throw std::invalid_argument("quantized convolution: channels-last windows are gathered 4 channels at a time "
                                    "at least, and the input has "
            + std::to_string(g.channels));
    }
    check(cudaGetLastError(), "quantized convolution: gathering the windows");
}

void launchPadChannels(
    int8_t const* input, int8_t* output, int64_t pixels, int32_t channels, int32_t padded, cudaStream_t stream)
{
    if (pixels == 0)
    {
        return;
    }
    padChannelsKernel<<<blocksFor(pixels), device::kThreadsPerBlock, 0, stream>>>(
        input, output, pixels, channels, padded);
    check(cudaGetLastError(), "quantized convolution: padding the input's channels");
}

} // namespace kiln::cuda
