// What a quantized layer's epilogue (quantized_epilogue.h) computes from its sums, for the kernels that finish them:
// one element at a time (the epilogue kernels after cuBLASLt's products), or 16 adjacent maps of one position at a
// time, reading the residual and writing the output as whole vectors where they are aligned (the INT8 implicit-GEMM
// convolution, int8_convolution.h). Both compute each value in the same order, so their results are the same bits.
#pragma once

#include "backend/cuda/kernels/convolution/quantized_epilogue.h"
#include "backend/cuda/kernels/int8_vectors.cuh"
#include "backend/cuda/kernels/pointwise/pointwise_math.cuh"
#include "core/quantization.h"

#include <cuda_fp16.h>

namespace kiln::cuda
{

//! The residual's value for output element `i`.
__device__ inline float residualValue(QuantizedEpilogue const& e, int64_t i)
{
    return e.residualType == nvinfer1::DataType::kINT8
        ? dequantizeInt8(static_cast<int8_t const*>(e.residual)[i], e.residualScale)
        : static_cast<float const*>(e.residual)[i];
}

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
        y += residualValue(e, i);
    }
    if (!e.activates)
    {
        return y;
    }
    float const activated = device::activate(e.activation, e.alpha, e.beta, y);
    return e.selfGated ? y * activated : activated;
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

//! Output elements i0 .. i0 + 15 (maps map0 .. map0 + 15 of one position), from their sums, as storeOutput writes
//! them one by one. Where `vectors` holds (the output and the residual aligned to 16 bytes, and i0 a multiple of 16),
//! the residual is read and the output written as whole vectors; otherwise element by element, the first `count` of
//! them.
__device__ inline void finishChunk(QuantizedEpilogue const& e, int32_t const (&sums)[16], void* output, int64_t i0,
    int64_t map0, int64_t count, bool vectors)
{
    if (!vectors || count < 16)
    {
#pragma unroll
        for (int j = 0; j < 16; ++j)
        {
            if (j < count)
            {
                storeOutput(e, output, i0 + j, epilogueValue(e, sums[j], map0 + j, i0 + j));
            }
        }
        return;
    }
    // Each decision on the epilogue's kind is taken once for the 16 values, outside their loops: inlined per value,
    // the activation's and the output type's branches cost more than the arithmetic.
    float y[16];
#pragma unroll
    for (int j = 0; j < 16; j += 4)
    {
        float4 const m = *reinterpret_cast<float4 const*>(e.multipliers + map0 + j);
        y[j] = static_cast<float>(sums[j]) * m.x;
        y[j + 1] = static_cast<float>(sums[j + 1]) * m.y;
        y[j + 2] = static_cast<float>(sums[j + 2]) * m.z;
        y[j + 3] = static_cast<float>(sums[j + 3]) * m.w;
    }
    if (e.bias != nullptr)
    {
#pragma unroll
        for (int j = 0; j < 16; j += 4)
        {
            float4 const b = *reinterpret_cast<float4 const*>(e.bias + map0 + j);
            y[j] += b.x;
            y[j + 1] += b.y;
            y[j + 2] += b.z;
            y[j + 3] += b.w;
        }
    }
    if (e.residual != nullptr && e.residualType == nvinfer1::DataType::kINT8)
    {
        int4 const packed = *reinterpret_cast<int4 const*>(static_cast<int8_t const*>(e.residual) + i0);
        auto const* const residual = reinterpret_cast<int8_t const*>(&packed);
#pragma unroll
        for (int j = 0; j < 16; ++j)
        {
            y[j] += dequantizeInt8(residual[j], e.residualScale);
        }
    }
    else if (e.residual != nullptr)
    {
#pragma unroll
        for (int j = 0; j < 16; j += 4)
        {
            float4 const r = *reinterpret_cast<float4 const*>(static_cast<float const*>(e.residual) + i0 + j);
            y[j] += r.x;
            y[j + 1] += r.y;
            y[j + 2] += r.z;
            y[j + 3] += r.w;
        }
    }
    if (e.activates && e.selfGated)
    {
        device::visitActivation(e.activation, e.alpha, e.beta, [&y](auto const& f) {
#pragma unroll
            for (int j = 0; j < 16; ++j)
            {
                y[j] *= f(y[j]);
            }
        });
    }
    else if (e.activates)
    {
        device::visitActivation(e.activation, e.alpha, e.beta, [&y](auto const& f) {
#pragma unroll
            for (int j = 0; j < 16; ++j)
            {
                y[j] = f(y[j]);
            }
        });
    }
    if (e.outputScale > 0.0F && e.quantizedType == nvinfer1::DataType::kINT8)
    {
        float const inverse = 1.0F / e.outputScale;
        uint8_t quantized[16];
#pragma unroll
        for (int j = 0; j < 16; ++j)
        {
            quantized[j] = static_cast<uint8_t>(quantizeToInt8Quickly(y[j], e.outputScale, inverse));
        }
        *reinterpret_cast<int4*>(static_cast<int8_t*>(output) + i0) = packedBytes(quantized);
        return;
    }
    for (int j = 0; j < 16; ++j)
    {
        storeOutput(e, output, i0 + j, y[j]); // FP8, FP32 or FP16
    }
}

} // namespace kiln::cuda
