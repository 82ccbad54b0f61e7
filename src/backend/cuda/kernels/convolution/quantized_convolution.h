// The CUDA backend's QuantizedConvolution (network/fused/quantized_convolution.h states what it computes), in three
// steps on the context's stream (the kernels: quantized_convolution_kernels.h gathers, quantized_epilogue.h scales):
//   1. im2col: the INT8 input gathered into one row of taps per output position (zeros where the window overhangs the
//      input, each row padded with zeros to kInt8GemmAlignment). Channels-last (kHWC), the layout the format pass
//      gives these layers, a window position's channels are one contiguous run, and a 1x1 convolution of stride 1
//      reads its input as it is stored, with no gathering; channels-first (kLINEAR), every layer transposes.
//   2. one INT8 product of those rows with the INT8 filters, summed exactly in INT32 on the tensor cores (Int8Gemm),
//      the sums in the output's order of positions and maps;
//   3. an epilogue that scales each sum by inputScale * kernelScales[k], adds the bias and the residual, applies the
//      activation and quantizes (or writes FP32).
// The sums are exact, so the result differs from the layers it replaced (and from the CPU reference, which computes
// them) only by the FP32 rounding of the scaled sum: an INT8 output may take the neighbouring step where the value
// lies within that rounding of a step's boundary. The rows and sums live in the context's shared scratch memory.
#pragma once

#include "network/fused/quantized_convolution.h"

namespace kiln::cuda
{

//! Whether the kernel runs `params`: two spatial axes, one group, symmetric padding.
bool runsQuantizedConvolution(network::QuantizedConvolutionParams const& params);

} // namespace kiln::cuda
