#include "backend/cpu/kernels/epilogue.h"

#include "backend/cpu/kernels/nn/activation.h"
#include "backend/cpu/kernels/nn/element_access.h"

#include <stdexcept>

namespace kiln::cpu
{

void applyEpilogue(plan::Epilogue const& epilogue, LayerInputs const& inputs, TensorView const& output)
{
    if (!epilogue.any())
    {
        return;
    }
    requireFloatingPoint(output, "a fused epilogue's output");
    int64_t const count = output.count();
    int64_t const columns = output.rank() > 0 ? output.shape.back() : 1;
    std::vector<float> const bias = epilogue.bias.toFloat();
    auto const biasValues = static_cast<int64_t>(bias.size());
    int64_t const biasRows = columns > 0 ? biasValues / columns : 0;
    bool const rowsOfBlocks = biasRows > 0 && biasValues % columns == 0 && count % (biasRows * columns) == 0;
    if (!bias.empty() && !rowsOfBlocks)
    {
        throw std::invalid_argument("fused bias: " + std::to_string(bias.size()) + " values are no rows of "
            + std::to_string(columns) + " columns, one for each equal block of the output's " + std::to_string(count)
            + " values");
    }
    int64_t const block = biasRows > 0 ? count / biasRows : 0; // the output's values each bias row is added to
    ConstTensorView residual;
    if (epilogue.addsResidual)
    {
        residual = inputs.empty() ? ConstTensorView{} : inputs.back();
        if (residual.data == nullptr || residual.shape != output.shape)
        {
            throw std::invalid_argument("fused residual: the layer's last input does not have the output's shape");
        }
        requireFloatingPoint(residual, "a fused residual");
    }
    network::ActivationParams activation;
    activation.activation = epilogue.activation;
    activation.alpha = epilogue.alpha;
    activation.beta = epilogue.beta;
    for (int64_t i = 0; i < count; ++i)
    {
        float value = loadFloat(output, i);
        if (!bias.empty())
        {
            value += bias[static_cast<size_t>(i / block * columns + i % columns)];
        }
        if (epilogue.addsResidual)
        {
            value += loadFloat(residual, i);
        }
        if (epilogue.activates)
        {
            float const activated = activate(activation, value);
            value = epilogue.selfGated ? value * activated : activated;
        }
        storeFloat(output, i, value);
    }
}

} // namespace kiln::cpu
