#include "network/fused/quantized_matrix_multiply.h"

#include "core/data_type.h"
#include "core/quantization.h"

#include <cmath>

namespace kiln::network
{
namespace
{

using nvinfer1::DataType;

//! A scale the layer multiplies or divides by: finite and positive.
bool usableScale(float scale)
{
    return std::isfinite(scale) && scale > 0.0F;
}

bool checkWeights(InferenceContext& ctx, QuantizedMatrixMultiplyParams const& p)
{
    bool const quantized = p.weights.type() == DataType::kINT8 || p.weights.type() == DataType::kFP8;
    if (p.columns <= 0 || !quantized || p.weights.count() == 0 || p.weights.count() % p.columns != 0)
    {
        return ctx.fail("a quantized matrix multiply needs INT8 or FP8 weights, " + std::to_string(p.columns)
            + " columns of equal length (" + std::to_string(p.weights.count()) + " weights)");
    }
    if (p.floatType != DataType::kFLOAT && p.floatType != DataType::kHALF)
    {
        return ctx.fail("a quantized matrix multiply writes FLOAT or HALF where it does not quantize, not "
            + dataTypeName(p.floatType));
    }
    if (p.weightScales.type() != DataType::kFLOAT || p.weightScales.count() != p.columns)
    {
        return ctx.fail("a quantized matrix multiply needs one FLOAT weight scale per column ("
            + std::to_string(p.columns) + ", not " + std::to_string(p.weightScales.count()) + ")");
    }
    if (!p.bias.empty() && (p.bias.type() != DataType::kFLOAT || p.bias.count() != p.columns))
    {
        return ctx.fail("the bias must be " + std::to_string(p.columns) + " FLOAT values or none");
    }
    for (float scale : p.weightScales.toFloat())
    {
        if (!usableScale(scale))
        {
            return ctx.fail("a weight scale (" + std::to_string(scale) + ") is not a finite positive number");
        }
    }
    if (!usableScale(p.inputScale))
    {
        return ctx.fail("the input scale " + std::to_string(p.inputScale) + " is not a finite positive number");
    }
    if (!(p.outputScale == 0.0F || usableScale(p.outputScale)))
    {
        return ctx.fail(
            "the output scale must be 0 (FLOAT) or a finite positive number, not " + std::to_string(p.outputScale));
    }
    return true;
}

} // namespace

ActivationParams QuantizedMatrixMultiplyParams::activationParams() const
{
    ActivationParams params;
    params.activation = activation;
    params.alpha = alpha;
    params.beta = beta;
    return params;
}

bool QuantizedMatrixMultiplyParams::infer(InferenceContext& ctx) const
{
    if (ctx.nbInputs() != 1 || !ctx.hasInput(0))
    {
        return ctx.fail("a quantized matrix multiply takes one input, not " + std::to_string(ctx.nbInputs()));
    }
    if (!checkWeights(ctx, *this))
    {
        return false;
    }
    if (ctx.input(0).type != quantizedType())
    {
        return ctx.fail("a quantized matrix multiply with " + dataTypeName(quantizedType()) + " weights reads "
            + dataTypeName(quantizedType()) + " data, not " + dataTypeName(ctx.input(0).type));
    }
    int32_t const rank = ctx.rank(0);
    if (rank < 2)
    {
        return ctx.fail(
            "a quantized matrix multiply reads matrices (rank 2 or more), not rank " + std::to_string(rank));
    }
    Dim const k = ctx.dim(0, rank - 1);
    if (k.isConstant() && k.constant() != inner())
    {
        return ctx.fail("the input's rows have " + std::to_string(k.constant()) + " elements; the weights' columns "
            + std::to_string(inner()));
    }
    std::vector<Dim> dims;
    for (int32_t axis = 0; axis + 1 < rank; ++axis)
    {
        dims.push_back(ctx.dim(0, axis));
    }
    dims.push_back(ctx.constant(columns));
    return ctx.setOutput(0, outputType(), dims);
}

std::vector<float> QuantizedMatrixMultiplyParams::dequantizedWeights() const
{
    std::vector<float> const scales = weightScales.toFloat();
    int64_t const k = inner();
    std::vector<float> values(static_cast<size_t>(weights.count()));
    bool const fp8 = quantizedType() == DataType::kFP8;
    auto const* q = static_cast<uint8_t const*>(weights.data());
    for (int64_t n = 0; n < columns; ++n)
    {
        for (int64_t i = 0; i < k; ++i)
        {
            uint8_t const code = q[n * k + i];
            values[static_cast<size_t>(i * columns + n)] = fp8 ? dequantizeFp8(code, scales[n])
                                                               : dequantizeInt8(static_cast<int8_t>(code), scales[n]);
        }
    }
    return values;
}

} // namespace kiln::network
