// The rows of a convolution whose windows do not overlap (strides at least the window, no padding or dilation),
// unfolded from channels-last data: row p holds output position p's window, its kh window rows one after another, each
// kw * C values that lie side by side in the input (kw positions of C channels). So the convolution is the product of
// these rows with the kernel stored channels-last ([K, kh, kw, C]): PatchConvolution (patch_convolution.h) runs it so.
// Such windows need no padding or zero fill, so a copy of bytes serves every element type; the quantized
// convolution's im2col (quantized_convolution_kernels.h) gathers any INT8 window, padding and dilation included.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace kiln::cuda
{

//! Where the windows lie, in bytes of the channels-last input [N, H, W, C].
struct WindowRows
{
    int64_t images{0};          //!< N
    int64_t outHeight{0};       //!< windows down an image
    int64_t outWidth{0};        //!< windows across an image
    int64_t windowRows{0};      //!< kh
    int64_t rowStride{1};       //!< input rows from one window's first to the next one's below it: the vertical stride
    int64_t spanBytes{0};       //!< one window row: kw * C values
    int64_t windowStepBytes{0}; //!< from one window's start to the next one's across: horizontal stride * C values
    int64_t inputRowBytes{0};   //!< one input row: W * C values
    int64_t imageBytes{0};      //!< one image: H * W * C values

    //! The bytes of all the rows: N * outHeight * outWidth * kh * spanBytes.
    int64_t rowsBytes() const
    {
        return images * outHeight * outWidth * windowRows * spanBytes;
    }
};

//! Queues the copy of every window of `input` into `rows` (rowsBytes() bytes, not overlapping the input). Throws
//! std::invalid_argument for negative or empty extents, std::runtime_error when the launch fails.
void launchWindowRows(WindowRows const& windows, void const* input, void* rows, cudaStream_t stream);

} // namespace kiln::cuda
