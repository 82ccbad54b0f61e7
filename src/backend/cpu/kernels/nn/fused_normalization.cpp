#include "backend/cpu/kernels/nn/fused_normalization.h"

#include "backend/cpu/kernels/layer_inputs.h"
#include "backend/cpu/kernels/nn/element_access.h"
#include "core/data_type.h"
#include "core/quantization.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace kiln::cpu
{
namespace
{

using network::FusedNormalizationParams;
using network::RowWeight;

//! One of the weights a row reads: element j of the row reads element j * stride (0 for one value).
struct RowOperand
{
    ConstTensorView const* view{nullptr}; //!< nullptr where the input is absent
    int64_t stride{0};

    float at(int64_t j, float absent) const
    {
        return view != nullptr ? loadFloat(*view, j * stride) : absent;
    }
};

RowOperand rowOperand(LayerInputs const& inputs, size_t slot, Shape const& shape, int32_t axes, char const* what)
{
    if (!hasInput(inputs, slot))
    {
        return RowOperand{};
    }
    ConstTensorView const& view = inputs[slot];
    requireFloatingPoint(view, what);
    RowWeight const kind = network::rowWeightOf(view.shape, shape, axes);
    if (kind == RowWeight::kNONE)
    {
        throw std::invalid_argument(std::string("fused normalization: the ") + what + " " + shapeText(view.shape)
            + " is neither a row of the last " + std::to_string(axes) + " axes of " + shapeText(shape)
            + " nor one value");
    }
    return RowOperand{&view, kind == RowWeight::kROW ? 1 : 0};
}

//! x or the residual: floating point, or INT8 or FP8 codes dequantized by `codeScale` (> 0).
struct RowsOperand
{
    ConstTensorView const* view{nullptr}; //!< nullptr where the input is absent
    float codeScale{0.0F};

    //! Element i's value, a code's dequantized and rounded to `type` as the dequantization it replaces stored it.
    float at(int64_t i, nvinfer1::DataType type) const
    {
        if (codeScale <= 0.0F)
        {
            return loadFloat(*view, i);
        }
        float const value = view->type == nvinfer1::DataType::kFP8
            ? dequantizeFp8(static_cast<uint8_t const*>(view->data)[i], codeScale)
            : dequantizeInt8(static_cast<int8_t const*>(view->data)[i], codeScale);
        return roundedTo(type, value);
    }
};

//! The checked tensors of one run.
struct Operands
{
    RowsOperand x;
    RowOperand preBias;
    RowsOperand residual;
    RowOperand scale;
    RowOperand bias;
    TensorView const* y{nullptr};
    TensorView const* sum{nullptr};
    int32_t axes{1};
    //! The type the sums round to: x's, or the value type where the layer reads or writes codes.
    nvinfer1::DataType sumType{nvinfer1::DataType::kFLOAT};
};

void requireCodes(nvinfer1::DataType type, char const* what)
{
    if (type != nvinfer1::DataType::kINT8 && type != nvinfer1::DataType::kFP8)
    {
        throw std::invalid_argument(
            std::string(what) + " has a quantization scale but is " + dataTypeName(type) + ", not INT8 or FP8 codes");
    }
}

//! x or the residual, which may repeat along the axes that are not normalized; codes where `codeScale` > 0.
RowsOperand rowsOperand(
    LayerInputs const& inputs, size_t slot, float codeScale, Shape const& shape, int32_t axes, char const* what)
{
    if (!hasInput(inputs, slot))
    {
        return RowsOperand{};
    }
    ConstTensorView const& view = inputs[slot];
    if (codeScale > 0.0F)
    {
        requireCodes(view.type, what);
    }
    else
    {
        requireFloatingPoint(view, what);
    }
    if (!network::broadcastsRows(view.shape, shape, axes))
    {
        throw std::invalid_argument(std::string(what) + " " + shapeText(view.shape) + " does not broadcast into "
            + shapeText(shape) + " along the axes before the last " + std::to_string(axes));
    }
    return RowsOperand{&view, codeScale};
}

Operands operandsOf(FusedNormalizationParams const& params, LayerInputs const& inputs, LayerOutputs const& outputs)
{
    if (inputs.size() != FusedNormalizationParams::kInputCount || outputs.empty() || outputs.size() > 2
        || !hasInput(inputs, FusedNormalizationParams::kInput))
    {
        throw std::invalid_argument("fused normalization: takes x, an added bias, a residual, scale and bias (x "
                                    "given), and writes y and possibly the sum");
    }
    Operands o;
    o.axes = params.normalizedAxes;
    Shape const& shape = outputs[0].shape;
    if (o.axes < 1 || o.axes > outputs[0].rank())
    {
        throw std::invalid_argument("fused normalization: " + std::to_string(o.axes) + " normalized axes of "
            + shapeText(shape) + " (1 to its rank)");
    }
    for (size_t output = 0; output < outputs.size(); ++output)
    {
        if (output == 0 && params.outputScale > 0.0F)
        {
            requireCodes(outputs[output].type, "fused normalization output");
        }
        else
        {
            requireFloatingPoint(outputs[output], "fused normalization output");
        }
        requireShape(outputs[output].shape, shape, "fused normalization output");
    }
    if (params.quantizes())
    {
        requireFloatingPoint(params.valueType, "fused normalization: the value type");
    }
    o.x = rowsOperand(
        inputs, FusedNormalizationParams::kInput, params.inputScale, shape, o.axes, "fused normalization: the input");
    o.residual = rowsOperand(inputs, FusedNormalizationParams::kResidual, params.residualScale, shape, o.axes,
        "fused normalization: the residual");
    o.sumType = params.quantizes() ? params.valueType : o.x.view->type;
    o.preBias = rowOperand(inputs, FusedNormalizationParams::kPreBias, shape, o.axes, "added bias");
    o.scale = rowOperand(inputs, FusedNormalizationParams::kScale, shape, o.axes, "scale");
    o.bias = rowOperand(inputs, FusedNormalizationParams::kBias, shape, o.axes, "bias");
    o.y = &outputs[0];
    o.sum = outputs.size() == 2 ? &outputs[1] : nullptr;
    if (params.sumScale > 0.0F)
    {
        requireCodes(params.sumCodeType, "fused normalization: the sum's rounding");
    }
    return o;
}

//! Row `r`'s sums into the sum output, rounded as the element-wise layers they replace rounded them, and into `row`,
//! with a sum scale rounded through codes as the Q -> DQ pair between the sum and the normalization.
void sumRow(FusedNormalizationParams const& params, Operands const& o, int64_t r, std::vector<float>& row)
{
    auto const length = static_cast<int64_t>(row.size());
    nvinfer1::DataType const type = o.sumType;
    Shape const& shape = o.y->shape;
    int64_t const xFirst = network::operandRow(o.x.view->shape, shape, o.axes, r) * length;
    int64_t const residualFirst
        = o.residual.view != nullptr ? network::operandRow(o.residual.view->shape, shape, o.axes, r) * length : 0;
    for (int64_t j = 0; j < length; ++j)
    {
        float value = o.x.at(xFirst + j, type);
        if (o.preBias.view != nullptr)
        {
            value = roundedTo(type, value + o.preBias.at(j, 0.0F));
        }
        if (o.residual.view != nullptr)
        {
            value = roundedTo(type, value + o.residual.at(residualFirst + j, type));
        }
        if (o.sum != nullptr)
        {
            storeFloat(*o.sum, r * length + j, value);
        }
        if (params.sumScale > 0.0F)
        {
            bool const fp8 = params.sumCodeType == nvinfer1::DataType::kFP8;
            value = roundedTo(type, roundThroughQuantization(value, params.sumScale, fp8));
        }
        row[static_cast<size_t>(j)] = value;
    }
}

void normalizeRow(FusedNormalizationParams const& params, Operands const& o, int64_t r, std::vector<float> const& row)
{
    auto const length = static_cast<double>(row.size());
    double mean = 0.0;
    if (params.centered)
    {
        for (float value : row)
        {
            mean += value;
        }
        mean /= length;
    }
    double squares = 0.0;
    for (float value : row)
    {
        double const deviation = value - mean;
        squares += deviation * deviation;
    }
    double const inverseDeviation = 1.0 / std::sqrt(squares / length + static_cast<double>(params.epsilon));
    auto const first = r * static_cast<int64_t>(row.size());
    for (size_t j = 0; j < row.size(); ++j)
    {
        auto const at = static_cast<int64_t>(j);
        double const normalized = (row[j] - mean) * inverseDeviation;
        auto const result = static_cast<float>(normalized * o.scale.at(at, 1.0F) + o.bias.at(at, 0.0F));
        if (params.outputScale <= 0.0F)
        {
            storeFloat(*o.y, first + at, result);
            continue;
        }
        float const value = roundedTo(params.valueType, result);
        if (o.y->type == nvinfer1::DataType::kFP8)
        {
            static_cast<uint8_t*>(o.y->data)[first + at] = quantizeToFp8(value, params.outputScale);
        }
        else
        {
            static_cast<int8_t*>(o.y->data)[first + at] = quantizeToInt8(value, params.outputScale);
        }
    }
}

} // namespace

void runFusedNormalization(FusedNormalizationParams const& params, std::vector<ConstTensorView> const& inputs,
    std::vector<TensorView> const& outputs)
{
    Operands const o = operandsOf(params, inputs, outputs);
    int64_t const count = o.y->count();
    if (count == 0)
    {
        return;
    }
    Shape const& shape = o.y->shape;
    int64_t const length = volume(Shape(shape.end() - params.normalizedAxes, shape.end()));
    std::vector<float> row(static_cast<size_t>(length));
    for (int64_t r = 0; r < count / length; ++r)
    {
        sumRow(params, o, r, row);
        normalizeRow(params, o, r, row);
    }
}

void run(network::FusedNormalizationParams const& params, LayerInputs const& inputs, LayerOutputs const& outputs)
{
    runFusedNormalization(params, inputs, outputs);
}

} // namespace kiln::cpu
