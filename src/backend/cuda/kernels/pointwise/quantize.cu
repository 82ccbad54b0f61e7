// IQuantizeLayer and IDequantizeLayer on the GPU, as the CPU reference (backend/cpu/kernels/tensor/quantize.h), with
// core/quantization.h's arithmetic, which the CPU reference and the ONNX parser share, so that the three agree bit for
// bit. The scale and zero point's shapes and every type are checked on the host as on the CPU
// (backend/shared/quantization_geometry.h). Two kernels for each direction:
// - INT8 or FP8 with one scale (what Q/DQ networks put between their layers), FP32 or FP16 values, 16-byte aligned: 16
//   values a thread, the quantized side one vector; INT8 quantized without a division or a conversion instruction per
//   value (int8_vectors.cuh), FP8 by a division and, on GPUs with FP8, their conversion instruction two values at a
//   time (fp8_pairs.cuh). FP8 tensors of fewer than 2^19 values stay with the kernel below, whose 16 times as many
//   threads hide its division better: with every tensor on 16 values a thread FP8 BERT at batch 1 took 9% longer with
//   fp8.h's branchy conversion, and 4% longer with the instruction. The elements past the last whole vector go to the
//   kernel below;
// - anything else, one thread per element, the scale and zero point read per element (a handful of coefficients,
//   cached). At one element a thread, with 64-bit index arithmetic and a division, it ran at an eighth of the memory's
//   bandwidth.
#include "backend/cuda/layer_kernels.h"

#include "backend/cuda/cuda_error.h"
#include "backend/cuda/kernels/device_access.cuh"
#include "backend/cuda/kernels/fp8_pairs.cuh"
#include "backend/cuda/kernels/int8_vectors.cuh"
#include "backend/cuda/kernels/strided_index.cuh"
#include "backend/shared/kernel_checks.h"
#include "backend/shared/quantization_geometry.h"
#include "core/quantization.h"

#include <cuda_fp16.h>

#include <stdexcept>
#include <string>

namespace kiln::cuda
{
namespace
{

using device::DataType;
using nvinfer1::TensorFormat;

//! What both directions pass to their kernel by value: the types, and which coefficient element i uses.
struct QuantizationArguments
{
    DataType realType;
    DataType quantizedType;
    DataType scaleType;
    backend::QuantizationGeometry geometry;
    uint8_t const* zeroPoints; // nullptr: zeros
};

__device__ inline int64_t coefficientOf(QuantizationArguments const& a, int64_t i)
{
    return (i / a.geometry.inner) % a.geometry.channels;
}

//! Elements first .. count - 1.
__global__ void quantizeKernel(
    void const* input, void const* scale, uint8_t* output, QuantizationArguments a, int64_t first, int64_t count)
{
    KILN_GRID_STRIDE_LOOP(n, count - first)
    {
        int64_t const i = first + n;
        int64_t const k = coefficientOf(a, i);
        float const x = device::loadFloat(input, a.realType, i);
        float const s = device::loadFloat(scale, a.scaleType, k);
        uint8_t const zero = a.zeroPoints != nullptr ? a.zeroPoints[k] : 0;
        output[i] = a.quantizedType == DataType::kINT8
            ? static_cast<uint8_t>(quantizeToInt8(x, s, static_cast<int8_t>(zero)))
            : quantizeToFp8(x, s, zero);
    }
}

__global__ void dequantizeKernel(
    uint8_t const* input, void const* scale, void* output, QuantizationArguments a, int64_t first, int64_t count)
{
    KILN_GRID_STRIDE_LOOP(n, count - first)
    {
        int64_t const i = first + n;
        int64_t const k = coefficientOf(a, i);
        float const s = device::loadFloat(scale, a.scaleType, k);
        uint8_t const zero = a.zeroPoints != nullptr ? a.zeroPoints[k] : 0;
        float const x = a.quantizedType == DataType::kINT8
            ? dequantizeInt8(static_cast<int8_t>(input[i]), s, static_cast<int8_t>(zero))
            : dequantizeFp8(input[i], s, zero);
        device::storeFloat(output, a.realType, i, x);
    }
}

//! Elements 16 v .. 16 v + 15 of `values` (FP32 or FP16).
template <typename Real>
__device__ inline void load16(Real const* values, int64_t v, float (&x)[16])
{
    if constexpr (sizeof(Real) == 4)
    {
        auto const* vectors = reinterpret_cast<float4 const*>(values) + 4 * v;
#pragma unroll
        for (int k = 0; k < 4; ++k)
        {
            float4 const f = vectors[k];
            x[4 * k] = f.x;
            x[4 * k + 1] = f.y;
            x[4 * k + 2] = f.z;
            x[4 * k + 3] = f.w;
        }
    }
    else
    {
        auto const* vectors = reinterpret_cast<uint4 const*>(values) + 2 * v;
#pragma unroll
        for (int k = 0; k < 2; ++k)
        {
            uint4 const h = vectors[k];
            uint32_t const words[4] = {h.x, h.y, h.z, h.w};
#pragma unroll
            for (int w = 0; w < 4; ++w)
            {
                x[8 * k + 2 * w] = device::halfBitsAsFloat(words[w] & 0xFFFFU);
                x[8 * k + 2 * w + 1] = device::halfBitsAsFloat(words[w] >> 16);
            }
        }
    }
}

//! Writes `y` as elements 16 v .. 16 v + 15 of `values` (FP32 or FP16).
template <typename Real>
__device__ inline void store16(Real* values, int64_t v, float const (&y)[16])
{
    if constexpr (sizeof(Real) == 4)
    {
        auto* vectors = reinterpret_cast<float4*>(values) + 4 * v;
#pragma unroll
        for (int k = 0; k < 4; ++k)
        {
            vectors[k] = make_float4(y[4 * k], y[4 * k + 1], y[4 * k + 2], y[4 * k + 3]);
        }
    }
    else
    {
        auto* vectors = reinterpret_cast<uint4*>(values) + 2 * v;
#pragma unroll
        for (int k = 0; k < 2; ++k)
        {
            uint32_t words[4];
#pragma unroll
            for (int w = 0; w < 4; ++w)
            {
                words[w] = device::floatAsHalfBits(y[8 * k + 2 * w])
                    | (static_cast<uint32_t>(device::floatAsHalfBits(y[8 * k + 2 * w + 1])) << 16);
            }
            vectors[k] = make_uint4(words[0], words[1], words[2], words[3]);
        }
    }
}

//! Four codes of `x` by one scale, the first in the lowest byte: INT8 (`fp8` false) or FP8 E4M3FN.
template <bool fp8>
__device__ inline uint32_t quantizeFour(float const* x, float scale, float inverseScale, uint8_t zeroPoint)
{
    if constexpr (fp8)
    {
        if ((zeroPoint & 0x7FU) != 0)
        {
            uint32_t word = 0;
#pragma unroll
            for (int j = 0; j < 4; ++j)
            {
                word |= static_cast<uint32_t>(quantizeToFp8(x[j], scale, zeroPoint)) << (8 * j);
            }
            return word;
        }
        return quantizeTwoToFp8(x[0], x[1], scale) | quantizeTwoToFp8(x[2], x[3], scale) << 16;
    }
    else
    {
        return quantizeFourToInt8(x, scale, inverseScale, static_cast<int8_t>(zeroPoint));
    }
}

template <bool fp8>
__device__ inline float dequantizeOne(uint8_t code, float scale, uint8_t zeroPoint)
{
    if constexpr (fp8)
    {
        return dequantizeFp8(code, scale, zeroPoint);
    }
    else
    {
        return dequantizeInt8(static_cast<int8_t>(code), scale, static_cast<int8_t>(zeroPoint));
    }
}

//! One scale: 16 values a thread over `vectors` whole vectors, into INT8 (`fp8` false) or FP8 E4M3FN.
template <bool fp8, typename Real>
__global__ void quantizeVectorKernel(
    Real const* input, void const* scale, DataType scaleType, uint8_t const* zeroPoint, int4* output, int64_t vectors)
{
    float const s = device::loadFloat(scale, scaleType, 0);
    float const inverse = 1.0F / s;
    uint8_t const zero = zeroPoint != nullptr ? *zeroPoint : 0;
    KILN_GRID_STRIDE_LOOP(v, vectors)
    {
        float x[16];
        load16(input, v, x);
        uint32_t words[4];
#pragma unroll
        for (int w = 0; w < 4; ++w)
        {
            words[w] = quantizeFour<fp8>(x + 4 * w, s, inverse, zero);
        }
        output[v] = make_int4(static_cast<int32_t>(words[0]), static_cast<int32_t>(words[1]),
            static_cast<int32_t>(words[2]), static_cast<int32_t>(words[3]));
    }
}

template <bool fp8, typename Real>
__global__ void dequantizeVectorKernel(
    int4 const* input, void const* scale, DataType scaleType, uint8_t const* zeroPoint, Real* output, int64_t vectors)
{
    float const s = device::loadFloat(scale, scaleType, 0);
    uint8_t const zero = zeroPoint != nullptr ? *zeroPoint : 0;
    KILN_GRID_STRIDE_LOOP(v, vectors)
    {
        int4 const packed = input[v];
        auto const* q = reinterpret_cast<uint8_t const*>(&packed);
        float y[16];
#pragma unroll
        for (int j = 0; j < 16; ++j)
        {
            y[j] = dequantizeOne<fp8>(q[j], s, zero);
        }
        store16(output, v, y);
    }
}

//! The vector kernel of `fp8` for `realType` (FP32 or FP16) over `vectors` whole vectors.
template <bool fp8>
void quantizeVectors(DataType realType, void const* input, void const* scale, DataType scaleType,
    uint8_t const* zeroPoint, int4* output, int64_t vectors, cudaStream_t stream)
{
    if (realType == DataType::kFLOAT)
    {
        quantizeVectorKernel<fp8><<<device::blocksFor(vectors), device::kThreadsPerBlock, 0, stream>>>(
            static_cast<float const*>(input), scale, scaleType, zeroPoint, output, vectors);
    }
    else
    {
        quantizeVectorKernel<fp8><<<device::blocksFor(vectors), device::kThreadsPerBlock, 0, stream>>>(
            static_cast<__half const*>(input), scale, scaleType, zeroPoint, output, vectors);
    }
}

template <bool fp8>
void dequantizeVectors(DataType realType, int4 const* input, void const* scale, DataType scaleType,
    uint8_t const* zeroPoint, void* output, int64_t vectors, cudaStream_t stream)
{
    if (realType == DataType::kFLOAT)
    {
        dequantizeVectorKernel<fp8><<<device::blocksFor(vectors), device::kThreadsPerBlock, 0, stream>>>(
            input, scale, scaleType, zeroPoint, static_cast<float*>(output), vectors);
    }
    else
    {
        dequantizeVectorKernel<fp8><<<device::blocksFor(vectors), device::kThreadsPerBlock, 0, stream>>>(
            input, scale, scaleType, zeroPoint, static_cast<__half*>(output), vectors);
    }
}

bool aligned16(void const* data)
{
    return reinterpret_cast<uintptr_t>(data) % 16 == 0;
}

//! The host's checks, as the CPU reference makes them, and the kernel's arguments.
QuantizationArguments prepare(
    bool quantizes, LayerInputs const& inputs, TensorView const& output, int32_t axis, char const* kernel)
{
    ConstTensorView const& input = inputs[0];
    ConstTensorView const& scale = inputs[1];
    bool const hasZeroPoint = inputs.size() > 2 && inputs[2].data != nullptr;
    ConstTensorView const* zeroPoint = hasZeroPoint ? &inputs[2] : nullptr;
    backend::kernel_checks::expectShape(output.shape, input.shape, kernel, "output");
    backend::checkQuantizationTypes(
        quantizes, input.type, output.type, scale.type, zeroPoint ? &zeroPoint->type : nullptr, kernel);
    QuantizationArguments a{};
    a.realType = quantizes ? input.type : output.type;
    a.quantizedType = quantizes ? output.type : input.type;
    a.scaleType = scale.type;
    a.geometry = backend::quantizationGeometry(
        input.shape, scale.shape, zeroPoint ? &zeroPoint->shape : nullptr, axis, kernel);
    // One scale maps each element alone, in any order the data is stored in (the channels-last pass lets such layers
    // continue its regions); per-channel coefficients are found by the row-major index, and kHWC8 pads the channels.
    bool const storedAlike = input.format == output.format && input.format != TensorFormat::kHWC8;
    if (!storedAlike || (input.format != TensorFormat::kLINEAR && a.geometry.channels > 1))
    {
        throw std::invalid_argument(std::string(kernel)
            + ": the CUDA kernels take row-major data, or data of one scale stored alike on both sides");
    }
    a.zeroPoints = zeroPoint ? static_cast<uint8_t const*>(zeroPoint->data) : nullptr;
    return a;
}

//! The fewest values an FP8 layer runs 16 a thread (the file's comment says why).
constexpr int64_t kFp8VectorMinimum = int64_t{1} << 19;

//! The number of whole 16-value vectors the vector kernels take; 0 where they do not take the layer.
int64_t vectorsOf(QuantizationArguments const& a, void const* real, void const* quantized, int64_t count)
{
    bool const takes
        = (a.quantizedType == DataType::kINT8 || (a.quantizedType == DataType::kFP8 && count >= kFp8VectorMinimum))
        && a.geometry.channels == 1 && (a.realType == DataType::kFLOAT || a.realType == DataType::kHALF)
        && aligned16(real) && aligned16(quantized);
    return takes ? count / 16 : 0;
}

} // namespace

void run(
    network::QuantizeParams const& params, LayerInputs const& inputs, LayerOutputs const& outputs, cudaStream_t stream)
{
    QuantizationArguments const a = prepare(true, inputs, outputs[0], params.axis, "quantize");
    int64_t const count = outputs[0].count();
    void const* input = inputs[0].data;
    auto* const output = static_cast<uint8_t*>(outputs[0].data);
    int64_t const vectors = vectorsOf(a, input, output, count);
    if (vectors > 0)
    {
        auto* const packed = reinterpret_cast<int4*>(output);
        auto const launch = a.quantizedType == DataType::kFP8 ? quantizeVectors<true> : quantizeVectors<false>;
        launch(a.realType, input, inputs[1].data, a.scaleType, a.zeroPoints, packed, vectors, stream);
        check(cudaGetLastError(), "quantize: launching the vector kernel");
    }
    if (16 * vectors < count)
    {
        quantizeKernel<<<device::blocksFor(count - 16 * vectors), device::kThreadsPerBlock, 0, stream>>>(
            input, inputs[1].data, output, a, 16 * vectors, count);
        check(cudaGetLastError(), "quantize: launching the kernel");
    }
}

void run(network::DequantizeParams const& params, LayerInputs const& inputs, LayerOutputs const& outputs,
    cudaStream_t stream)
{
    QuantizationArguments const a = prepare(false, inputs, outputs[0], params.axis, "dequantize");
    int64_t const count = outputs[0].count();
    auto const* const input = static_cast<uint8_t const*>(inputs[0].data);
    void* output = outputs[0].data;
    int64_t const vectors = vectorsOf(a, output, input, count);
    if (vectors > 0)
    {
        auto const* const packed = reinterpret_cast<int4 const*>(input);
        auto const launch = a.quantizedType == DataType::kFP8 ? dequantizeVectors<true> : dequantizeVectors<false>;
        launch(a.realType, packed, inputs[1].data, a.scaleType, a.zeroPoints, output, vectors, stream);
        check(cudaGetLastError(), "dequantize: launching the vector kernel");
    }
    if (16 * vectors < count)
    {
        dequantizeKernel<<<device::blocksFor(count - 16 * vectors), device::kThreadsPerBlock, 0, stream>>>(
            input, inputs[1].data, output, a, 16 * vectors, count);
        check(cudaGetLastError(), "dequantize: launching the kernel");
    }
}

} // namespace kiln::cuda
