// IQuantizeLayer and IDequantizeLayer on the GPU, as the CPU reference (backend/cpu/kernels/tensor/quantize.h): one
// thread per element, with core/quantization.h's arithmetic, which the CPU reference and the ONNX parser share, so
// that the three agree bit for bit. The scale and zero point are read from device memory per element (a handful of
// coefficients, cached); their shapes and every type are checked on the host as on the CPU
// (backend/shared/quantization_geometry.h).
#include "backend/cuda/layer_kernels.h"

#include "backend/cuda/cuda_error.h"
#include "backend/cuda/kernels/device_access.cuh"
#include "backend/cuda/kernels/strided_index.cuh"
#include "backend/shared/kernel_checks.h"
#include "backend/shared/quantization_geometry.h"
#include "core/quantization.h"

namespace kiln::cuda
{
namespace
{

using device::DataType;

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

__global__ void quantizeKernel(
    void const* input, void const* scale, uint8_t* output, QuantizationArguments a, int64_t count)
{
    KILN_GRID_STRIDE_LOOP(i, count)
    {
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
    uint8_t const* input, void const* scale, void* output, QuantizationArguments a, int64_t count)
{
    KILN_GRID_STRIDE_LOOP(i, count)
    {
        int64_t const k = coefficientOf(a, i);
        float const s = device::loadFloat(scale, a.scaleType, k);
        uint8_t const zero = a.zeroPoints != nullptr ? a.zeroPoints[k] : 0;
        float const x = a.quantizedType == DataType::kINT8
            ? dequantizeInt8(static_cast<int8_t>(input[i]), s, static_cast<int8_t>(zero))
            : dequantizeFp8(input[i], s, zero);
        device::storeFloat(output, a.realType, i, x);
    }
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
    a.zeroPoints = zeroPoint ? static_cast<uint8_t const*>(zeroPoint->data) : nullptr;
    return a;
}

} // namespace

void run(
    network::QuantizeParams const& params, LayerInputs const& inputs, LayerOutputs const& outputs, cudaStream_t stream)
{
    QuantizationArguments const a = prepare(true, inputs, outputs[0], params.axis, "quantize");
    int64_t const count = outputs[0].count();
    if (count == 0)
    {
        return;
    }
    quantizeKernel<<<device::blocksFor(count), device::kThreadsPerBlock, 0, stream>>>(
        inputs[0].data, inputs[1].data, static_cast<uint8_t*>(outputs[0].data), a, count);
    check(cudaGetLastError(), "quantize: launching the kernel");
}

void run(network::DequantizeParams const& params, LayerInputs const& inputs, LayerOutputs const& outputs,
    cudaStream_t stream)
{
    QuantizationArguments const a = prepare(false, inputs, outputs[0], params.axis, "dequantize");
    int64_t const count = outputs[0].count();
    if (count == 0)
    {
        return;
    }
    dequantizeKernel<<<device::blocksFor(count), device::kThreadsPerBlock, 0, stream>>>(
        static_cast<uint8_t const*>(inputs[0].data), inputs[1].data, outputs[0].data, a, count);
    check(cudaGetLastError(), "dequantize: launching the kernel");
}

} // namespace kiln::cuda
