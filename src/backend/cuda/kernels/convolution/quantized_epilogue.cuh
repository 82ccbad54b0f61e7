// What a quantized layer's epilogue (quantized_epilogue.h) computes from its sums, for the kernels that finish them:
// one element at a time (the epilogue kernels after cuBLASLt's products where the output is not in whole aligned
// vectors, and the INT8 implicit-GEMM convolution likewise), 4 adjacent maps of one position at a time (those
// epilogue kernels otherwise, quantized_epilogue.cu), or 8, reading the residual and writing the output as whole
// vectors (the implicit GEMM, int8_convolution.h). All compute each value in the same order, so their results are the
// same bits.
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

//! The activations a kernel that finishes many values at a time is compiled for. A kernel that may apply any of them
//! holds each one's code wherever it finishes values, and runs them one value at a time (activateValues); most layers
//! have a ReLU or nothing (ResNet's), or SiLU or hard-swish (YOLO's, MobileNetV3's), which a kernel compiled for those
//! alone applies unrolled, in its own small code.
enum class EpilogueActivations
{
    kReluAtMost, //!< none, or ReLU
    kSelfGated,  //!< a sigmoid or a hard sigmoid times its input: SiLU, hard-swish
    kAny,
};

//! The smallest set of activations that finishes `e`.
inline EpilogueActivations activationsOf(QuantizedEpilogue const& e)
{
    using nvinfer1::ActivationType;
    if (!e.activates || (e.activation == ActivationType::kRELU && !e.selfGated))
    {
        return EpilogueActivations::kReluAtMost;
    }
    bool const gatedSigmoid = e.activation == ActivationType::kSIGMOID || e.activation == ActivationType::kHARD_SIGMOID;
    return e.selfGated && gatedSigmoid ? EpilogueActivations::kSelfGated : EpilogueActivations::kAny;
}

//! y activated as `e` says: e's activation is one of `Activations`.
template <EpilogueActivations Activations, int Count>
__device__ inline void activateValues(QuantizedEpilogue const& e, float (&y)[Count])
{
    if (!e.activates)
    {
        return;
    }
    if constexpr (Activations == EpilogueActivations::kReluAtMost)
    {
#pragma unroll
        for (int j = 0; j < Count; ++j)
        {
            y[j] = device::relu(y[j]);
        }
    }
    else if constexpr (Activations == EpilogueActivations::kSelfGated)
    {
        // The values side by side, each as the general case below computes it (y times f(y)): their dependency chains
        // (an exponential and a division for SiLU) overlap.
        if (e.activation == nvinfer1::ActivationType::kSIGMOID)
        {
#pragma unroll
            for (int j = 0; j < Count; ++j)
            {
                y[j] = y[j] * device::sigmoid(y[j]);
            }
        }
        else
        {
            float const alpha = e.alpha;
            float const beta = e.beta;
#pragma unroll
            for (int j = 0; j < Count; ++j)
            {
                y[j] = y[j] * device::hardSigmoid(alpha, beta, y[j]);
            }
        }
    }
    else
    {
        // Each decision is taken once for all the values, outside their loop: inlined per value, the activation's
        // branches cost more than its arithmetic. The loop is not unrolled, so that a kernel finishing many values
        // holds one copy of each activation where it finishes them, not one per value; the values it indexes go
        // through a buffer in local memory (which y, indexed by constants, stays out of).
        float values[Count];
#pragma unroll
        for (int j = 0; j < Count; ++j)
        {
            values[j] = y[j];
        }
        device::visitActivation(e.activation, e.alpha, e.beta, [&values, gated = e.selfGated](auto const& f) {
#pragma unroll 1
            for (int j = 0; j < Count; ++j)
            {
                float const activated = f(values[j]);
                values[j] = gated ? values[j] * activated : activated;
            }
        });
#pragma unroll
        for (int j = 0; j < Count; ++j)
        {
            y[j] = values[j];
        }
    }
}

//! The multipliers and biases of 8 adjacent maps, which a thread reads once and finishes at many positions.
struct EightMaps
{
    float multipliers[8];
    float bias[8]; //!< zeros where the layer has none (not added then)
};

//! Maps map0 .. map0 + 7 of `e` (map0 a multiple of 8, and maps too).
__device__ inline EightMaps eightMapsOf(QuantizedEpilogue const& e, int64_t map0)
{
    EightMaps maps{};
#pragma unroll
    for (int half = 0; half < 2; ++half)
    {
        float4 const m = *reinterpret_cast<float4 const*>(e.multipliers + map0 + 4 * half);
        maps.multipliers[4 * half] = m.x;
        maps.multipliers[4 * half + 1] = m.y;
        maps.multipliers[4 * half + 2] = m.z;
        maps.multipliers[4 * half + 3] = m.w;
        if (e.bias != nullptr)
        {
            float4 const b = *reinterpret_cast<float4 const*>(e.bias + map0 + 4 * half);
            maps.bias[4 * half] = b.x;
            maps.bias[4 * half + 1] = b.y;
            maps.bias[4 * half + 2] = b.z;
            maps.bias[4 * half + 3] = b.w;
        }
    }
    return maps;
}

//! The residual's 8 INT8 codes at output elements i0 .. i0 + 7 (i0 a multiple of 8), or zeros where it has none or is
//! not INT8: read apart from finishEight, so that a thread can have the reads of many positions in flight at once.
__device__ inline uint2 int8ResidualAt(QuantizedEpilogue const& e, int64_t i0)
{
    if (e.residual == nullptr || e.residualType != nvinfer1::DataType::kINT8)
    {
        return uint2{};
    }
    return *reinterpret_cast<uint2 const*>(static_cast<int8_t const*>(e.residual) + i0);
}

//! Output elements i0 .. i0 + 7 (maps map0 .. map0 + 7 of one position, `maps` theirs), from their sums, as
//! finishValue writes them one by one, the residual read and the output written as whole vectors: i0 a multiple of 8,
//! the output and the residual aligned to 16 bytes, the output INT8, FP32 or FP16 (not FP8). An INT8 residual's codes
//! are `int8Residual` (int8ResidualAt); an FP32 one is read here.
template <EpilogueActivations Activations>
__device__ inline void finishEight(QuantizedEpilogue const& e, int32_t const (&sums)[8], EightMaps const& maps,
    uint2 int8Residual, void* output, int64_t i0)
{
    float y[8];
#pragma unroll
    for (int j = 0; j < 8; ++j)
    {
        y[j] = static_cast<float>(sums[j]) * maps.multipliers[j];
    }
    if (e.bias != nullptr)
    {
#pragma unroll
        for (int j = 0; j < 8; ++j)
        {
            y[j] += maps.bias[j];
        }
    }
    if (e.residual != nullptr && e.residualType == nvinfer1::DataType::kINT8)
    {
        uint32_t const words[2] = {int8Residual.x, int8Residual.y};
#pragma unroll
        for (int w = 0; w < 2; ++w)
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
        for (int half = 0; half < 2; ++half)
        {
            float4 const r = *reinterpret_cast<float4 const*>(static_cast<float const*>(e.residual) + i0 + 4 * half);
            y[4 * half] += r.x;
            y[4 * half + 1] += r.y;
            y[4 * half + 2] += r.z;
            y[4 * half + 3] += r.w;
        }
    }
    activateValues<Activations>(e, y);
    if (e.outputScale > 0.0F && e.quantizedType == nvinfer1::DataType::kINT8)
    {
        float const inverse = 1.0F / e.outputScale;
        *reinterpret_cast<uint2*>(static_cast<int8_t*>(output) + i0)
            = uint2{quantizeFourToInt8(y, e.outputScale, inverse), quantizeFourToInt8(y + 4, e.outputScale, inverse)};
    }
    else if (e.floatType == nvinfer1::DataType::kHALF)
    {
        uint32_t words[4];
#pragma unroll
        for (int w = 0; w < 4; ++w)
        {
            words[w] = __half_as_ushort(__float2half_rn(y[2 * w]))
                | (static_cast<uint32_t>(__half_as_ushort(__float2half_rn(y[2 * w + 1]))) << 16);
        }
        *reinterpret_cast<uint4*>(static_cast<__half*>(output) + i0) = uint4{words[0], words[1], words[2], words[3]};
    }
    else
    {
        auto* const vectors = reinterpret_cast<float4*>(static_cast<float*>(output) + i0);
        vectors[0] = float4{y[0], y[1], y[2], y[3]};
        vectors[1] = float4{y[4], y[5], y[6], y[7]};
    }
}

} // namespace kiln::cuda
