// The CUDA backend's QuantizedConvolution (network/fused/quantized_convolution.h states what it computes), by cuDNN's
// graph engines where the builder timed them faster (libraries/cudnn/quantized_convolution_graph.h; the layer's
// backend choice names the engine's rank, and a context makes its graph for each input shape it prepares), else by
// one of two kernels of Kiln's own:
// - the implicit GEMM (int8_convolution.h), channels-last (kHWC, the layout the format pass gives these layers) where
//   its tiles of 128 positions by 64 or 128 maps fill the GPU: it reads the windows from the input, sums the INT8
//   products exactly in INT32 on the tensor cores and applies the epilogue in its registers;
// - otherwise (a small batch, or channels-first tensors where the configuration keeps every tensor linear), three
//   steps on the context's stream: the windows gathered into rows of taps (quantized_convolution_kernels.h; a 1x1
//   convolution of stride 1 reads channels-last input as it lies), one INT8 product of those rows with the filters
//   through cuBLASLt (Int8Gemm), summed exactly in INT32, and the epilogue kernel (quantized_epilogue.h) over the sums.
//   The rows and sums live in the context's shared scratch memory. With few tiles, the implicit GEMM leaves most SMs
//   idle while each finishes a whole tile; cuBLASLt's product and the epilogue kernel spread over all of them.
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
