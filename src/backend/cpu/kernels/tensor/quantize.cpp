#include "backend/cpu/kernels/tensor/quantize.h"

#include "backend/cpu/kernels/layer_inputs.h"
#include "backend/cpu/kernels/tensor/element_access.h"
#include "backend/cpu/kernels/tensor/shape_utils.h"
#include "backend/shared/quantization_geometry.h"
#include "core/quantization.h"

#include <vector>

namespace kiln::cpu
{
namespace
{

using namespace tensor_detail;

//! What both directions read before the first element: the coefficients as floats, the zero points as bytes (INT8
//! and FP8 are both one byte), and which of them element i uses.
struct Coefficients
{
    backend::QuantizationGeometry geometry;
    std::vector<float> scales;
    std::vector<uint8_t> zeroPoints; // empty: no zero point, all zeros

    int64_t of(int64_t element) const
    {
        return (element / geometry.inner) % geometry.channels;
    }
    uint8_t zeroPointOf(int64_t coefficient) const
    {
        return zeroPoints.empty() ? 0 : zeroPoints[static_cast<size_t>(coefficient)];
    }
};

Coefficients readCoefficients(bool quantizes, ConstTensorView const& input, ConstTensorView const& scale,
    ConstTensorView const* zeroPoint, TensorView const& output, int32_t axis, char const* kernel)
{
    expectShape(output.shape, input.shape, kernel, "output");
    backend::checkQuantizationTypes(
        quantizes, input.type, output.type, scale.type, zeroPoint ? &zeroPoint->type : nullptr, kernel);
    Coefficients c;
    c.geometry = backend::quantizationGeometry(
        input.shape, scale.shape, zeroPoint ? &zeroPoint->shape : nullptr, axis, kernel);
    int64_t const count = volume(scale.shape);
    c.scales.resize(static_cast<size_t>(count));
    for (int64_t i = 0; i < count; ++i)
    {
        c.scales[static_cast<size_t>(i)] = readFloat(scale.data, scale.type, i);
    }
    if (zeroPoint != nullptr)
    {
        auto const* bytes = static_cast<uint8_t const*>(zeroPoint->data);
        c.zeroPoints.assign(bytes, bytes + count);
    }
    return c;
}

} // namespace

void quantize(ConstTensorView const& input, ConstTensorView const& scale, ConstTensorView const* zeroPoint,
    TensorView const& output, int32_t axis)
{
    Coefficients const c = readCoefficients(true, input, scale, zeroPoint, output, axis, "quantize");
    auto* out = static_cast<uint8_t*>(output.data);
    bool const toInt8 = output.type == DataType::kINT8;
    for (int64_t i = 0; i < input.count(); ++i)
    {
        int64_t const k = c.of(i);
        float const x = readFloat(input.data, input.type, i);
        float const s = c.scales[static_cast<size_t>(k)];
        uint8_t const zero = c.zeroPointOf(k);
        out[i] = toInt8 ? static_cast<uint8_t>(quantizeToInt8(x, s, static_cast<int8_t>(zero)))
                        : quantizeToFp8(x, s, zero);
    }
}

void dequantize(ConstTensorView const& input, ConstTensorView const& scale, ConstTensorView const* zeroPoint,
    TensorView const& output, int32_t axis)
{
    Coefficients const c = readCoefficients(false, input, scale, zeroPoint, output, axis, "dequantize");
    auto const* in = static_cast<uint8_t const*>(input.data);
    bool const fromInt8 = input.type == DataType::kINT8;
    for (int64_t i = 0; i < input.count(); ++i)
    {
        int64_t const k = c.of(i);
        float const s = c.scales[static_cast<size_t>(k)];
        uint8_t const zero = c.zeroPointOf(k);
        float const x = fromInt8 ? dequantizeInt8(static_cast<int8_t>(in[i]), s, static_cast<int8_t>(zero))
                                 : dequantizeFp8(in[i], s, zero);
        writeFloat(output.data, output.type, i, x);
    }
}

void run(network::QuantizeParams const& params, LayerInputs const& in, LayerOutputs const& out)
{
    quantize(in[0], in[1], hasInput(in, 2) ? &in[2] : nullptr, out[0], params.axis);
}

void run(network::DequantizeParams const& params, LayerInputs const& in, LayerOutputs const& out)
{
    dequantize(in[0], in[1], hasInput(in, 2) ? &in[2] : nullptr, out[0], params.axis);
}

} // namespace kiln::cpu
