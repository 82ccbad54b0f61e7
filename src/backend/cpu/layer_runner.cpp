#include "backend/cpu/layer_runner.h"

#include "backend/cpu/kernels/epilogue.h"
#include "backend/cpu/layer_kernels.h"

#include <exception>

namespace kiln::cpu
{

bool runLayer(plan::LayerRecord const& record, std::vector<ConstTensorView> const& inputs,
    std::vector<TensorView> const& outputs, std::string& error)
{
    try
    {
        network::visitLayerParams(*record.params, [&](auto const& kind) { run(kind, inputs, outputs); });
        applyEpilogue(record.epilogue, inputs, outputs.at(0));
        return true;
    }
    catch (std::exception const& e)
    {
        error = e.what();
        return false;
    }
}

} // namespace kiln::cpu
