// The CPU reference of the attention layer the CUDA backend fuses (network/layers/attention.h): each row of scores
// computed, scaled, masked and normalized as the unfused SoftMax does (stable, summed in double), then multiplied
// by the values.
#include "backend/attention_geometry.h"
#include "backend/cpu/kernels/layer_inputs.h"
#include "backend/cpu/kernels/nn/element_access.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace kiln::cpu
{

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
    backend::AttentionGeometry const g = backend::attentionGeometry(query.shape, keys.shape, values.shape,
        masked ? &inputs[3].shape : nullptr, output.shape, params.keysByRow);
    std::vector<double> scores(static_cast<size_t>(g.keys));
    for (int64_t b = 0; b < g.batches; ++b)
    {
        int64_t const q0 = g.offset(g.queryStrides, b);
        int64_t const k0 = g.offset(g.keyStrides, b);
        int64_t const v0 = g.offset(g.valueStrides, b);
        int64_t const o0 = b * g.queries * g.valueDepth;
        for (int64_t i = 0; i < g.queries; ++i)
        {
            double maximum = -std::numeric_limits<double>::infinity();
            for (int64_t j = 0; j < g.keys; ++j)
            {
                double dot = 0.0;
                for (int64_t d = 0; d < g.depth; ++d)
                {
                    int64_t const k = params.keysByRow ? j * g.depth + d : d * g.keys + j;
                    dot += static_cast<double>(loadFloat(query, q0 + i * g.depth + d)) * loadFloat(keys, k0 + k);
                }
                double score = dot * params.scale;
                if (g.masked)
                {
                    score += loadFloat(inputs[3], g.offset(g.maskStrides, b) + i * g.maskRowStride + j * g.maskColumnStride);
                }
                scores[j] = score;
                maximum = std::max(maximum, score);
            }
            double sum = 0.0;
            for (double& score : scores)
            {
                score = std::exp(score - maximum);
                sum += score;
            }
            for (int64_t c = 0; c < g.valueDepth; ++c)
            {
                double weighted = 0.0;
                for (int64_t j = 0; j < g.keys; ++j)
                {
                    double probability = scores[j] / sum;
                    if (params.zeroNaNProbabilities && std::isnan(probability))
                    {
                        probability = 0.0;
                    }
                    weighted += probability * loadFloat(values, v0 + j * g.valueDepth + c);
                }
                storeFloat(output, o0 + i * g.valueDepth + c, static_cast<float>(weighted));
            }
        }
    }
}

} // namespace kiln::cpu
