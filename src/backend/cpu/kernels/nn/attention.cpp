// The CPU reference of the attention layer the CUDA backend fuses (network/fused/attention.h): each row of scores
// computed, scaled, masked and normalized as the unfused SoftMax does (stable, summed in double), then multiplied
// by the values. Operands are read through their layouts (backend/shared/attention_geometry.h), so absorbed transposes
// are computed here exactly as the CUDA kernel reads them. Quantized attention's roundings (AttentionRounding) are
// computed as the Q -> DQ pairs they replace computed them, each value first rounded into the layer's type; each
// batch's operands are read and rounded once.
#include "backend/cpu/kernels/layer_inputs.h"
#include "backend/cpu/kernels/nn/element_access.h"
#include "backend/shared/attention_geometry.h"
#include "core/quantization.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace kiln::cpu
{
namespace
{

using backend::AttentionGeometry;
using network::AttentionParams;
using network::AttentionRounding;
using nvinfer1::DataType;

//! `value` as a tensor of `type` stores it: FP16 and BF16 round to nearest even.
float storedAs(DataType type, float value)
{
    if (type == DataType::kHALF)
    {
        return roundThroughHalf(value);
    }
    return type == DataType::kBF16 ? bf16BitsToFloat(floatToBf16Bits(value)) : value;
}

//! `value` through `rounding` as the layers it replaces computed it in `type`: multiplied by the factor and stored,
//! then quantized and dequantized into `type`.
float rounded(AttentionRounding const& rounding, DataType type, float value)
{
    if (!rounding.rounds() && rounding.factor == 1.0F)
    {
        return value;
    }
    float const scaled = storedAs(type, value * rounding.factor);
    if (!rounding.rounds())
    {
        return scaled;
    }
    return storedAs(type, roundThroughQuantization(scaled, rounding.scale, rounding.type == DataType::kFP8));
}

//! Rows [0, rows) of batch `b`'s matrix in `operand` (laid out as `layout` says), `columns` each, each value through
//! `rounding`: row-major, read and rounded once for every row of the other operand that meets it.
std::vector<float> roundedRows(ConstTensorView const& operand, AttentionGeometry const& g,
    AttentionGeometry::Operand const& layout, int64_t b, int64_t rows, int64_t columns,
    AttentionRounding const& rounding, DataType type)
{
    int64_t const first = g.offset(layout, b);
    std::vector<float> matrix(static_cast<size_t>(rows * columns));
    for (int64_t r = 0; r < rows; ++r)
    {
        for (int64_t c = 0; c < columns; ++c)
        {
            float const value = loadFloat(operand, first + r * layout.row + c * layout.column);
            matrix[static_cast<size_t>(r * columns + c)] = rounded(rounding, type, value);
        }
    }
    return matrix;
}

//! The scores of `query` (one row of batch `b`'s, row `i`, rounded) against `keys` (the batch's, rounded), scaled,
//! rounded and masked, into `scores`; their maximum.
double scoreRow(AttentionGeometry const& g, AttentionParams const& params, DataType type, float const* query,
    std::vector<float> const& keys, LayerInputs const& inputs, int64_t b, int64_t i, std::vector<double>& scores)
{
    double maximum = -std::numeric_limits<double>::infinity();
    for (int64_t j = 0; j < g.keys; ++j)
    {
        double dot = 0.0;
        for (int64_t d = 0; d < g.depth; ++d)
        {
            dot += static_cast<double>(query[d]) * keys[static_cast<size_t>(j * g.depth + d)];
        }
        double score = dot * params.scale;
        if (params.scoresRounding.rounds())
        {
            score = rounded(params.scoresRounding, type, static_cast<float>(score));
        }
        if (g.masked)
        {
            score += loadFloat(inputs[3], g.offset(g.maskLayout, b) + i * g.maskLayout.row + j * g.maskLayout.column);
        }
        scores[static_cast<size_t>(j)] = score;
        maximum = std::max(maximum, score);
    }
    return maximum;
}

} // namespace

void run(network::AttentionParams const& params, LayerInputs const& inputs, LayerOutputs const& outputs)
{
    ConstTensorView const& query = inputs.at(0);
    ConstTensorView const& keys = inputs.at(1);
    ConstTensorView const& values = inputs.at(2);
    bool const masked = hasInput(inputs, 3);
    TensorView const& output = outputs.at(0);
    for (auto const* view : {&query, &keys, &values})
    {
        requireFloatingPoint(*view, "attention input");
    }
    requireFloatingPoint(output, "attention output");
    AttentionGeometry const g = backend::attentionGeometry(
        {query.shape, keys.shape, values.shape, masked ? &inputs[3].shape : nullptr, output.shape}, params);
    DataType const type = output.type;
    std::vector<double> scores(static_cast<size_t>(g.keys));
    for (int64_t b = 0; b < g.batches; ++b)
    {
        std::vector<float> const queryRows
            = roundedRows(query, g, g.queryLayout, b, g.queries, g.depth, params.queryRounding, type);
        std::vector<float> const keyRows
            = roundedRows(keys, g, g.keyLayout, b, g.keys, g.depth, params.keysRounding, type);
        std::vector<float> const valueRows
            = roundedRows(values, g, g.valueLayout, b, g.keys, g.valueDepth, params.valuesRounding, type);
        int64_t const o0 = g.offset(g.outputLayout, b);
        for (int64_t i = 0; i < g.queries; ++i)
        {
            double const maximum
                = scoreRow(g, params, type, queryRows.data() + i * g.depth, keyRows, inputs, b, i, scores);
            double sum = 0.0;
            for (double& score : scores)
            {
                score = std::exp(score - maximum);
                sum += score;
            }
            // The scores become the probabilities, as the SoftMax, the NaN guard and the rounding after them give them.
            for (double& score : scores)
            {
                double probability = score / sum;
                if (params.zeroNaNProbabilities && std::isnan(probability))
                {
                    probability = 0.0;
                }
                if (params.probabilitiesRounding.rounds())
                {
                    probability = rounded(params.probabilitiesRounding, type, static_cast<float>(probability));
                }
                score = probability;
            }
            for (int64_t c = 0; c < g.valueDepth; ++c)
            {
                double weighted = 0.0;
                for (int64_t j = 0; j < g.keys; ++j)
                {
                    weighted += scores[static_cast<size_t>(j)] * valueRows[static_cast<size_t>(j * g.valueDepth + c)];
                }
                storeFloat(
                    output, o0 + i * g.outputLayout.row + c * g.outputLayout.column, static_cast<float>(weighted));
            }
        }
    }
}

} // namespace kiln::cpu
