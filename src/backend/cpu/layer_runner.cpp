#include "backend/cpu/layer_runner.h"

#include "backend/cpu/kernels/nn/activation.h"
#include "backend/cpu/kernels/nn/element_wise.h"
#include "network/layers/layer_kinds.h"

#include <stdexcept>

namespace kiln::cpu
{
namespace
{

void runActivationLayer(network::ActivationParams const& p, std::vector<ConstTensorView> const& in,
    std::vector<TensorView> const& out)
{
    runActivation(ActivationParams{p.activation, p.alpha, p.beta}, in[0], out[0]);
}

void runElementWiseLayer(network::ElementWiseParams const& p, std::vector<ConstTensorView> const& in,
    std::vector<TensorView> const& out)
{
    ElementWiseParams params;
    params.op = p.operation;
    runElementWise(params, in[0], in[1], out[0]);
}

} // namespace

bool runLayer(network::LayerParams const& params, std::vector<ConstTensorView> const& inputs,
    std::vector<TensorView> const& outputs, std::string& error)
{
    using nvinfer1::LayerType;
    try
    {
        switch (params.type())
        {
        case LayerType::kACTIVATION:
            runActivationLayer(static_cast<network::ActivationParams const&>(params), inputs, outputs);
            return true;
        case LayerType::kELEMENTWISE:
            runElementWiseLayer(static_cast<network::ElementWiseParams const&>(params), inputs, outputs);
            return true;
        default:
            error = "the CPU backend has no kernel for layer kind " + std::to_string(static_cast<int32_t>(params.type()));
            return false;
        }
    }
    catch (std::exception const& e)
    {
        error = e.what();
        return false;
    }
}

} // namespace kiln::cpu
