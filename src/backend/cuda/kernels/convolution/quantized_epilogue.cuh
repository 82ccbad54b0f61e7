// What one output element of a quantized layer's epilogue (quantized_epilogue.h) computes from its sum, for the
// kernels that finish the sums: the epilogue kernels after cuBLASLt's products, and the INT8 implicit-GEMM
// convolution (int8_convolution.h), which applies it to the sums it holds in registers.
#pragma once

#include "backend/cuda/kernels/convolution/quantized_epilogue.h"
#include "backend/cuda/kernels/pointwise/pointwise_math.cuh"
#include "core/quantization.h"

#include <cuda_fp16.h>

namespace kiln::cuda
{

//! Output element `i`'s value, from its sum of map `map`; `i` also indexes the residual, which has the output's layout.
template <typename Sum>
__device__ inline float epilogueValue(QuantizedEpilogue const& e, Sum sum, int64_t map, int64_t i)
{
    float y = static_cast<float>(sum) * e.multipliers[map];
    if (e.bias != nullptr)
    {
        y += e.bias[map];
    }
    if (e.residual != nullptr)
    {
        y += e.residualType == nvinfer1::DataType::kINT8
            ? dequantizeInt8(static_cast<int8_t const*>(e.residual)[i], e.residualScale)
            : static_cast<float const*>(e.residual)[i];
    }
    return e.activates ? device::activate(e.activation, e.alpha, e.beta, y) : y;
}

__device__ inline void storeOutput(QuantizedEpilogue const& e, void* output, int64_t i, float y)
{
    if (e.outputScale > 0.0F)
    {
        if (e.quantizedType == nvinfer1::DataType::kFP8)
        {
            static_cast<uint8_t*>(output)[i] = quantizeToFp8(y, e.outputScale);
        }
        else
        {
            static_cast<int8_t*>(output)[i] = quantizeToInt8(y, e.outputScale);
        }
    }
    else if (e.floatType == nvinfer1::DataType::kHALF)
    {
        static_cast<__half*>(output)[i] = __float2half_rn(y);
    }
    else
    {
        static_cast<float*>(output)[i] = y;
    }
}

} // namespace kiln::cuda
