// The windows of a quantized convolution (quantized_convolution.h): their geometry, which all of its kernels read, and
// their gathering into rows of taps for cuBLASLt's INT8 product, in both layouts its tensors may have: channels-first
// (kLINEAR: [N, C, H, W]) and channels-last (kHWC: [N, H, W, C] in memory). Channels-last windows are read 4 or 16
// channels at a time; an input of other channel counts (an RGB stem's 3) is first padded with zero channels.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace kiln::cuda
{

//! Where each output position's window reads the input, and how its row of taps is laid out: the taps in the
//! filter's order (channels-first: channel, row, column; channels-last: row, column, channel), padded with zeros to
//! rowLength. launchIm2col gathers the rows into memory; the implicit GEMM (int8_convolution.h) reads them where they
//! lie.
struct Im2colGeometry
{
    int32_t channels{0};
    int32_t height{0};
    int32_t width{0};
    int32_t kernelHeight{0};
    int32_t kernelWidth{0};
    int32_t strideY{1};
    int32_t strideX{1};
    int32_t padY{0};
    int32_t padX{0};
    int32_t dilationY{1};
    int32_t dilationX{1};
    int32_t outputHeight{0};
    int32_t outputWidth{0};
    int32_t taps{0};      //!< C * R * S
    int32_t rowLength{0}; //!< taps padded to kInt8GemmAlignment
};

//! The rows of taps of `images` images of `input` (INT8) into `rows`. Channels-last, the channels are a multiple of 4.
void launchIm2col(
    int8_t const* input, int8_t* rows, Im2colGeometry const& g, int64_t images, bool channelsLast, cudaStream_t stream);

//! `pixels` channels-last pixels of `channels` INT8 values each, from `input`, into `output` with `padded` values each,
//! the added channels zero: `padded` is a multiple of 4, and `output` aligned to 4 bytes.
void launchPadChannels(
    int8_t const* input, int8_t* output, int64_t pixels, int32_t channels, int32_t padded, cudaStream_t stream);

} // namespace kiln::cuda
