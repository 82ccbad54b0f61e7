#include "backend/cpu/kernels/nn/lrn.h"

#include "backend/cpu/kernels/layer_inputs.h"
#include "backend/cpu/kernels/nn/element_access.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace kiln::cpu
{

void runLrn(network::LRNParams const& params, ConstTensorView const& input, TensorView const& output)
{
    requireShape(output.shape, input.shape, "LRN output");
    requireFloatingPoint(input, "LRN input");
    requireFloatingPoint(output, "LRN output");
    int32_t const rank = input.rank();
    if (rank < 3)
    {
        throw std::invalid_argument("LRN: the input must have rank 3 or more, not " + std::to_string(rank));
    }
    std::string const error = params.parameterError();
    if (!error.empty())
    {
        throw std::invalid_argument("LRN: " + error);
    }
    auto const channelAxis = static_cast<size_t>(rank - 3);
    int64_t const channels = input.shape[channelAxis];
    int64_t const inner = input.shape[channelAxis + 1] * input.shape[channelAxis + 2];
    int64_t const outer = channels * inner == 0 ? 0 : input.count() / (channels * inner);
    int64_t const half = (params.window - 1) / 2;
    double const scale = static_cast<double>(params.alpha) / static_cast<double>(params.window);
    for (int64_t o = 0; o < outer; ++o)
    {
        for (int64_t c = 0; c < channels; ++c)
        {
            int64_t const first = std::max<int64_t>(0, c - half);
            int64_t const last = std::min(channels - 1, c + half);
            for (int64_t i = 0; i < inner; ++i)
            {
                double squares = 0.0;
                for (int64_t j = first; j <= last; ++j)
                {
                    double const x = loadFloat(input, (o * channels + j) * inner + i);
                    squares += x * x;
                }
                int64_t const at = (o * channels + c) * inner + i;
                double const divisor = std::pow(static_cast<double>(params.k) + scale * squares, params.beta);
                storeFloat(output, at, static_cast<float>(static_cast<double>(loadFloat(input, at)) / divisor));
            }
        }
    }
}

void run(network::LRNParams const& params, LayerInputs const& inputs, LayerOutputs const& outputs)
{
    runLrn(params, inputs[0], outputs[0]);
}

} // namespace kiln::cpu
