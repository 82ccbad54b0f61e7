// Where a context's tensors live, checked once when the context is made: every tensor that a layer running a kernel
// reads or writes has a place (the application's memory for I/O tensors, the activation memory, a constant's bound
// weights, or the tensor it views). The builder's memory plan gives every such tensor one, except a tensor that holds
// no element at any shape of the profiles (its planned size, maxBytes, is 0): it needs none. A corrupted plan may
// leave a tensor without memory, and is refused here, naming the layer, rather than handing a kernel a null address.
//
// The one rule for tensors without memory: they hold no element. A tensor the plan gives no memory passes here only
// where its planned size is 0, and the shapes of a run are then held to that (evaluateShape), as an arena tensor's are
// held to its planned size; an I/O tensor whose address is null is held to it at enqueue (checkNullAddresses). So no
// kernel, plugin or debug listener of either backend is handed a null address for a tensor that holds elements.
#include "runtime/execution_context.h"

#include <stdexcept>

namespace kiln::runtime
{

bool ExecutionContext::hasMemory(int32_t t) const
{
    plan::TensorRecord const& tensor = mEngine.model().tensors[static_cast<size_t>(t)];
    if (tensor.viewOf >= 0)
    {
        return hasMemory(tensor.viewOf); // the reader checked that a view never shows another view
    }
    return tensor.ioMode != nvinfer1::TensorIOMode::kNONE || tensor.arenaOffset >= 0
        || mBoundConstants[static_cast<size_t>(t)] != nullptr;
}

bool ExecutionContext::placeTouchedTensor(int32_t t)
{
    if (hasMemory(t))
    {
        return true;
    }
    plan::TensorRecord const& tensor = mEngine.model().tensors[static_cast<size_t>(t)];
    int32_t const owner = tensor.viewOf >= 0 ? tensor.viewOf : t;
    if (mEngine.model().tensors[static_cast<size_t>(owner)].maxBytes != 0)
    {
        return false;
    }
    // No kernel reads or writes a byte of a tensor that holds no element: it may stay without memory, as long as the
    // run's shapes give it (and the tensor it views) no element.
    mHoldsNoElement[static_cast<size_t>(t)] = true;
    mHoldsNoElement[static_cast<size_t>(owner)] = true;
    return true;
}

void ExecutionContext::checkPlacement()
{
    plan::PlanModel const& model = mEngine.model();
    mHoldsNoElement.assign(model.tensors.size(), false);
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
            if (t >= 0 && mEngine.implementation().readsInputData(model, l, i) && !placeTouchedTensor(t))
            {
                throw std::runtime_error("layer \"" + layer.name + "\" reads tensor \"" + model.tensors[t].name
                    + "\", to which the plan gives no memory");
            }
        }
        for (int32_t t : layer.outputs)
        {
            if (!placeTouchedTensor(t))
            {
                throw std::runtime_error("layer \"" + layer.name + "\" writes tensor \"" + model.tensors[t].name
                    + "\", to which the plan gives no memory");
            }
        }
    }
}

bool ExecutionContext::checkNullAddresses(std::string& error) const
{
    plan::PlanModel const& model = mEngine.model();
    for (int32_t io : model.ioTensors)
    {
        bool const null = mAddresses[io].has_value() && *mAddresses[io] == nullptr;
        if (null && mOutputAllocators[io] == nullptr && !mEngine.isShapeInput(io) && elementsOf(mShapes[io]) > 0)
        {
            error = "the address of \"" + model.tensors[io].name + "\" is null, but it holds "
                + std::to_string(elementsOf(mShapes[io])) + " elements at these shapes (setTensorAddress)";
            return false;
        }
    }
    return true;
}

} // namespace kiln::runtime
