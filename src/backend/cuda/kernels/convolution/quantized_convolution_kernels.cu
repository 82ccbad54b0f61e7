#include "backend/cuda/kernels/convolution/quantized_convolution_kernels.h"

#include "backend/cuda/cuda_error.h"

namespace kiln::cuda
{
namespace
{

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

} // namespace

void launchIm2col(int8_t const* input, int8_t* rows, Im2colGeometry const& g, int64_t images, cudaStream_t stream)
{
    int32_t const positions = g.outputHeight * g.outputWidth;
    dim3 const grid(static_cast<unsigned>((positions + kTile - 1) / kTile),
        static_cast<unsigned>((g.rowLength + kTile - 1) / kTile), static_cast<unsigned>(images));
    im2colChannelsFirstKernel<<<grid, dim3(kTile, kTileRowsPerPass), 0, stream>>>(input, rows, g);
    check(cudaGetLastError(), "quantized convolution: gathering the windows");
}

} // namespace kiln::cuda
