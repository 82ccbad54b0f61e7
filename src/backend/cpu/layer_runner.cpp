#include "backend/cpu/layer_runner.h"

#include "backend/cpu/layer_kernels.h"

#include <exception>

namespace kiln::cpu
{

bool runLayer(network::LayerParams const& params, std::vector<ConstTensorView> const& inputs,
    std::vector<TensorView> const& outputs, std::string& error)
{
    try
    {
        network::visitLayerParams(params, [&](auto const& kind) { run(kind, inputs, outputs); });
        return true;
    }
    catch (std::exception const& e)
    {
        error = e.what();
        return false;
    }
}

} // namespace kiln::cpu
