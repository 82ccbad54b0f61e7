// What a quantized layer's epilogue (quantized_epilogue.h) computes from its sums, for the kernels that finish them:
// one element at a time (the epilogue kernels after cuBLASLt's products, and the INT8 implicit-GEMM convolution where
// its output is not in whole aligned vectors), or 16 adjacent maps of one position at a time, reading the residual and
// writing the output as whole vectors (the implicit GEMM, int8_convolution.h). Both compute each value in the same
// order, so their results are the same bits.
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

//! Output element `i` from its sum, as the kernels that finish one value at a time write it.
template <typename Sum>
__device__ inline void finishValue(QuantizedEpilogue const& e, Sum sum, void* output, int64_t i, int64_t map)
{
    storeOutput(e, output, i, epilogueValue(e, sum, map, i));
}

//! The activations a kernel that finishes 16 values at a time is compiled for. Each activation's code comes 16 times
//! over in it: a kernel compiled for all of them is several hundred kilobytes of code, which the warps wait on the
//! instruction cache to fetch, and most layers (ResNet's) have a ReLU or nothing.
enum class EpilogueActivations
{
    kReluAtMost, //!< none, or ReLU
    kAny,
};

//! The smallest set of activations that finishes `e`.
inline EpilogueActivations activationsOf(QuantizedEpilogue const& e)
{
    bool const reluAtMost = !e.activates || (e.activation == nvinfer1::ActivationType::kRELU && !e.selfGated);
    return reluAtMost ? EpilogueActivations::kReluAtMost : EpilogueActivations::kAny;
}

//! y activated as `e` says, 16 values at a time: e's activation is one of `Activations`.
template <EpilogueActivations Activations>
__device__ inline void activateChunk(QuantizedEpilogue const& e, float (&y)[16])
{
    if (!e.activates)
    {
        return;
    }
    if constexpr (Activations == EpilogueActivations::kReluAtMost)
    {
#pragma unroll
        for (int j = 0; j < 16; ++j)
        {
            y[j] = device::relu(y[j]);
        }
    }
    else
    {
        // Each decision is taken once for the 16 values, outside their loop: inlined per value, the activation's
        // branches cost more than its arithmetic.
        device::visitActivation(e.activation, e.alpha, e.beta, [&y, gated = e.selfGated](auto const& f) {
#pragma unroll
            for (int j = 0; j < 16; ++j)
            {
                float const activated = f(y[j]);
                y[j] = gated ? y[j] * activated : activated;
            }
        });
    }
}

//! Output elements i0 .. i0 + 15 (maps map0 .. map0 + 15 of one position), from their sums, as finishValue writes them
//! one by one: the output and the residual aligned to 16 bytes, i0 a multiple of 16, so that the residual is read and
//! an INT8 output written as whole vectors. An INT8 residual's 16 codes are `int8Residual` (the caller reads them
//! ahead); an FP32 one is read here.
template <EpilogueActivations Activations>
__device__ inline void finishChunk(
    QuantizedEpilogue const& e, int32_t const (&sums)[16], uint4 int8Residual, void* output, int64_t i0, int64_t map0)
{
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
        uint32_t const words[4] = {int8Residual.x, int8Residual.y, int8Residual.z, int8Residual.w};
#pragma unroll
        for (int w = 0; w < 4; ++w)
        {
            float codes[4];
            int8CodesAsFloats(words[w], codes);
#pragma unroll
            for (int j = 0; j < 4; ++j)
            {
                y[4 * w + j] += codes[j] * e.residualScale; // as dequantizeInt8
            }
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
    activateChunk<Activations>(e, y);
    if (e.outputScale > 0.0F && e.quantizedType == nvinfer1::DataType::kINT8)
    {
        float const inverse = 1.0F / e.outputScale;
        uint32_t words[4];
#pragma unroll
        for (int w = 0; w < 4; ++w)
        {
            words[w] = quantizeFourToInt8(y + 4 * w, e.outputScale, inverse);
        }
        *reinterpret_cast<uint4*>(static_cast<int8_t*>(output) + i0)
            = make_uint4(words[0], words[1], words[2], words[3]);
        return;
    }
#pragma unroll
    for (int j = 0; j < 16; ++j)
    {
        storeOutput(e, output, i0 + j, y[j]); // FP8, FP32 or FP16
    }
}

} // namespace kiln::cuda
