// The INT8 implicit GEMM of int8_convolution.h on Hopper's warp-group products (int8_convolution_warp_groups.cu).
#pragma once

#include "backend/cuda/kernels/convolution/quantized_convolution_kernels.h"
#include "backend/cuda/kernels/convolution/quantized_epilogue.h"

#include <cuda_runtime_api.h>

#include <cstdint>

namespace kiln::cuda
{

//! launchInt8Convolution's product on warp groups, for the outputs it writes 8 maps a vector (maps a multiple of 8, an
//! INT8, FP32 or FP16 output, the output and the residual aligned to 16 bytes). Runs only on a GPU of compute
//! capability 9.0.
void launchInt8ConvolutionOnWarpGroups(int8_t const* input, int8_t const* filters, void* output,
    Im2colGeometry const& g, int64_t positions, int32_t maps, QuantizedEpilogue const& e, cudaStream_t stream);

} // namespace kiln::cuda
