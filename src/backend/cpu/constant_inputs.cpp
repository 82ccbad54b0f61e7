#include "backend/cpu/constant_inputs.h"

#include "network/layers/constant.h"
#include "network/layers/shuffle.h"
#include "plan/plan_graph.h"

namespace kiln::cpu
{
namespace
{

//! A shuffle that changes the shape alone, from dimensions it holds (not from a shape tensor).
bool onlyReshapes(plan::LayerRecord const& layer)
{
    auto const* shuffle = plan::paramsOf<network::ShuffleParams>(layer);
    return shuffle != nullptr && layer.inputs.size() == 1 && shuffle->reshapesOnly();
}

} // namespace

std::vector<ConstTensorView> constantValues(plan::PlanModel const& model)
{
    std::vector<ConstTensorView> values(model.tensors.size());
    // Layers come in the order they run: a shuffle's input is settled before the shuffle.
    for (plan::LayerRecord const& layer : model.layers)
    {
        if (layer.outputs.size() != 1 || !layer.guards.empty())
        {
            continue;
        }
        int32_t const made = layer.outputs[0];
        std::optional<std::vector<int64_t>> const dims = plan::constantDims(model, made);
        void const* data = nullptr;
        nvinfer1::DataType type = model.tensors[made].type;
        if (auto const* constant = plan::paramsOf<network::ConstantParams>(layer))
        {
            data = constant->weights.type() == type ? constant->weights.data() : nullptr;
        }
        else if (onlyReshapes(layer) && layer.inputs[0] >= 0 && model.tensors[layer.inputs[0]].type == type)
        {
            data = values[layer.inputs[0]].data;
        }
        if (data != nullptr && dims)
        {
            values[made] = ConstTensorView(type, *dims, data);
        }
    }
    return values;
}

std::vector<bool> unneededLayers(plan::PlanModel const& model, std::vector<ConstTensorView> const& values,
    std::vector<std::vector<bool>> const& taken)
{
    std::vector<std::vector<size_t>> const readers = plan::readersOf(model);
    // What the execution context reads itself.
    std::vector<bool> readByContext(model.tensors.size(), false);
    for (plan::LayerRecord const& layer : model.layers)
    {
        for (plan::Guard const& guard : layer.guards)
        {
            readByContext[guard.condition] = true;
        }
    }
    for (plan::SymbolRecord const& symbol : model.symbols)
    {
        if (symbol.tensor >= 0)
        {
            readByContext[symbol.tensor] = true;
        }
    }
    std::vector<bool> unneeded(model.layers.size(), false);
    // From the last layer back: a layer's readers are settled before it.
    for (size_t l = model.layers.size(); l-- > 0;)
    {
        plan::LayerRecord const& layer = model.layers[l];
        bool needed = layer.outputs.size() != 1 || values[layer.outputs[0]].data == nullptr;
        for (int32_t t : layer.outputs)
        {
            needed = needed || plan::isObserved(model.tensors[t]) || readByContext[t];
            for (size_t reader : readers[t])
            {
                std::vector<int32_t> const& inputs = model.layers[reader].inputs;
                for (size_t input = 0; input < inputs.size(); ++input)
                {
                    bool const tookIt = input < taken[reader].size() && taken[reader][input];
                    needed = needed || (inputs[input] == t && !tookIt && !unneeded[reader]);
                }
            }
        }
        unneeded[l] = !needed;
    }
    return unneeded;
}

} // namespace kiln::cpu
