// Where a context's tensors live, checked once when the context is made: every tensor that a layer running a kernel
// reads or writes has a place (the application's memory for I/O tensors, the activation memory, a constant's bound
// weights, or the tensor it views). The builder's memory plan gives every such tensor one; a corrupted plan may not,
// and is refused here, naming the layer, rather than handing a kernel a null address.
#include "runtime/execution_context.h"

#include <stdexcept>

namespace kiln::runtime
{

bool ExecutionContext::hasPlace(int32_t t) const
{
    plan::TensorRecord const& tensor = mEngine.model().tensors[static_cast<size_t>(t)];
    if (tensor.viewOf >= 0)
    {
        return hasPlace(tensor.viewOf); // the reader checked that a view never shows another view
    }
    // A tensor that never holds an element needs no memory: no kernel reads or writes a byte of it.
    return tensor.ioMode != nvinfer1::TensorIOMode::kNONE || tensor.arenaOffset >= 0
        || mBoundConstants[static_cast<size_t>(t)] != nullptr || tensor.maxBytes == 0;
}

void ExecutionContext::checkPlacement() const
{
    plan::PlanModel const& model = mEngine.model();
    for (size_t l = 0; l < model.layers.size(); ++l)
    {
        PreparedLayer::Work const work = mPrepared[l].work;
        if (work != PreparedLayer::Work::kRUN && work != PreparedLayer::Work::kSELECT_BRANCH)
        {
            continue; // runs no kernel: its outputs are views, bound weights or values kept on the host
        }
        plan::LayerRecord const& layer = model.layers[l];
        for (size_t i = 0; i < layer.inputs.size(); ++i)
        {
            int32_t const t = layer.inputs[i];
            if (t >= 0 && !hasPlace(t) && mEngine.implementation().readsInputData(model, l, i))
            {
                throw std::runtime_error("layer \"" + layer.name + "\" reads tensor \"" + model.tensors[t].name
                    + "\", to which the plan gives no memory");
            }
        }
        for (int32_t t : layer.outputs)
        {
            if (!hasPlace(t))
            {
                throw std::runtime_error("layer \"" + layer.name + "\" writes tensor \"" + model.tensors[t].name
                    + "\", to which the plan gives no memory");
            }
        }
    }
}

} // namespace kiln::runtime
