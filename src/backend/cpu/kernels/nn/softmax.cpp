#include "backend/cpu/kernels/nn/softmax.h"

#include "backend/cpu/kernels/layer_inputs.h"
#include "backend/cpu/kernels/nn/element_access.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace kiln::cpu
{

void runSoftmax(network::SoftMaxParams const& params, ConstTensorView const& input, TensorView const& output)
{
    requireShape(output.shape, input.shape, "softmax output");
    requireFloatingPoint(input, "softmax input");
    requireFloatingPoint(output, "softmax output");
    int32_t const rank = input.rank();
    if (std::popcount(params.axes) != 1 || std::countr_zero(params.axes) >= rank)
    {
        throw std::invalid_argument("softmax: axes mask " + std::to_string(params.axes)
            + " must name exactly one axis of a rank-" + std::to_string(rank) + " input");
    }
    if (input.count() == 0)
    {
        return;
    }
    auto const axis = static_cast<size_t>(std::countr_zero(params.axes));
    int64_t const length = input.shape[axis];
    int64_t const inner = volume(Shape(input.shape.begin() + static_cast<std::ptrdiff_t>(axis) + 1, input.shape.end()));
    int64_t const outer = input.count() / (length * inner);

    for (int64_t o = 0; o < outer; ++o)
    {
        for (int64_t in = 0; in < inner; ++in)
        {
            int64_t const base = o * length * inner + in;
            float maximum = -std::numeric_limits<float>::infinity();
            for (int64_t k = 0; k < length; ++k)
            {
                maximum = std::max(maximum, loadFloat(input, base + k * inner));
            }
            double sum = 0.0;
            for (int64_t k = 0; k < length; ++k)
            {
                sum += std::exp(static_cast<double>(loadFloat(input, base + k * inner)) - maximum);
            }
            // Element k is read just before it is overwritten, so in-place use is safe.
            for (int64_t k = 0; k < length; ++k)
            {
                double const e = std::exp(static_cast<double>(loadFloat(input, base + k * inner)) - maximum);
                storeFloat(output, base + k * inner, static_cast<float>(e / sum));
            }
        }
    }
}

void run(network::SoftMaxParams const& params, LayerInputs const& inputs, LayerOutputs const& outputs)
{
    runSoftmax(params, inputs[0], outputs[0]);
}

} // namespace kiln::cpu
