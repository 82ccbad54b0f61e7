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
    if (!bias.empty() && static_cast<int64_t>(bias.size()) != columns)
    {
        throw std::invalid_argument("fused bias: " + std::to_string(bias.size()) + " values for "
            + std::to_string(columns) + " output columns");
    }
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
            value += bias[static_cast<size_t>(i % columns)];
        }
        if (epilogue.addsResidual)
        {
            value += loadFloat(residual, i);
        }
        if (epilogue.activates)
        {
            value = activate(activation, value);
        }
        storeFloat(output, i, value);
    }
}

} // namespace kiln::cpu
