// The channels-last INT8 convolution of quantized_convolution.h as one implicit GEMM on the tensor cores: each block
// computes a tile of output positions by output maps, reading the windows' taps straight from the input into shared
// memory (the rows of taps are never written out), summing the INT8 products exactly in INT32 registers with
// mma.sync (int8_convolution.cu) or Hopper's warp-group products (int8_convolution_warp_groups.cu), and applying the
// quantized epilogue (quantized_epilogue.h) to the sums it holds: the INT32 sums never reach memory. Both kernels
// fill their tiles alike (int8_convolution_tiles.cuh) and write the same bits.
#pragma once

#include "backend/cuda/kernels/convolution/quantized_convolution_kernels.h"
#include "backend/cuda/kernels/convolution/quantized_epilogue.h"

#include <cuda_runtime_api.h>

#include <cstdint>

namespace kiln::cuda
{

//! Which tensor-core instructions the implicit GEMM multiplies with.
enum class Int8ConvolutionKernel
{
    kMmaSync,   //!< warp-wide mma.sync m16n8k32: any GPU of compute capability 8.0 or more
    kWarpGroups //!< Hopper's warp-group products (wgmma), where the output is written in vectors; else kMmaSync
};

//! The kernel GPU `device` runs best: kWarpGroups on compute capability 9.0 (the only one whose instruction set has
//! wgmma; ResNet-50 INT8 at batch 256 on an H100: 9.33 ms against 11.30 through mma.sync), kMmaSync elsewhere.
Int8ConvolutionKernel int8ConvolutionKernelOfDevice(int device);

//! Whether the kernel's tiles fill half of a GPU of `multiprocessors` SMs or more, where it beats cuBLASLt's product
//! followed by the epilogue kernel. With fewer, each SM finishes a whole tile alone, and cuBLASLt, which spreads a
//! small product over every SM, is faster (ResNet-50 on an H100 at batch 1: 0.74 ms through the implicit GEMM, 0.47 ms
//! through cuBLASLt). Half a wave is the better bound on an H100: ResNet-50 at batch 16 took 1.343 ms with it, 1.393 ms
//! with a whole wave and 1.453 ms with a quarter (batch 32: 2.191, 2.226 and 2.327 ms). On warp-group products an
//! eighth of a wave ran batch 1 0.4% faster and batches 4 to 16 3% to 4% slower (performance.md).
bool int8ConvolutionFillsGpu(Im2colGeometry const& g, int64_t images, int64_t maps, int32_t multiprocessors);

//! The output ([images, OH, OW, maps], kHWC) of `images` channels-last INT8 images ([images, H, W, C]) convolved with
//! `filters`: a row of g.rowLength INT8 taps per map, (r, s, channel) order, zeros past g.taps. The channels are a
//! multiple of 4 (launchPadChannels pads others); the input and the filters are aligned to 16 bytes; every index
//! within one image fits 32 bits.
void launchInt8Convolution(int8_t const* input, int8_t const* filters, void* output, Im2colGeometry const& g,
    int64_t images, QuantizedEpilogue const& e, Int8ConvolutionKernel kernel, cudaStream_t stream);

} // namespace kiln::cuda
