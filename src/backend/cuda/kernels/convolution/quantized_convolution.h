// The CUDA backend's QuantizedConvolution (network/fused/quantized_convolution.h states what it computes), in the two
// layouts the format pass may give it:
// - channels-last (kHWC, the layout the pass gives these layers): one implicit-GEMM kernel (int8_convolution.h) that
//   reads the windows from the input, sums the INT8 products exactly in INT32 on the tensor cores and applies the
//   epilogue in its registers;
// - channels-first (kLINEAR, where the configuration keeps every tensor linear), in three steps on the context's
//   stream: the windows gathered into rows of taps (quantized_convolution_kernels.h), one INT8 product of those rows
//   with the filters through cuBLASLt (Int8Gemm), summed exactly in INT32, and the epilogue kernel
//   (quantized_epilogue.h) over the sums. The rows and sums live in the context's shared scratch memory.
// The epilogue scales each sum by inputScale * kernelScales[k], adds the bias and the residual, applies the activation
// and quantizes (or writes FP32). The sums are exact, so the result differs from the layers it replaced (and from the
// CPU reference, which computes them) only by the FP32 rounding of the scaled sum: an INT8 output may take the
// neighbouring step where the value lies within that rounding of a step's boundary.
#pragma once

#include "network/fused/quantized_convolution.h"

namespace kiln::cuda
{

//! Whether the kernel runs `params`: two spatial axes, one group, symmetric padding.
bool runsQuantizedConvolution(network::QuantizedConvolutionParams const& params);

} // namespace kiln::cuda
