#include "builder/conditional_guards.h"

#include <algorithm>
#include <optional>

namespace kiln::builder
{
namespace
{

using Guards = std::vector<plan::Guard>;

//! The guards both sets hold.
Guards common(Guards const& a, Guards const& b)
{
    Guards shared;
    std::copy_if(a.begin(), a.end(), std::back_inserter(shared),
        [&](plan::Guard const& g) { return std::find(b.begin(), b.end(), g) != b.end(); });
    return shared;
}

//! What reading input `slot` of `reader` needs: the reader's own guards and, for a branch of a conditional output,
//! that the branch is taken.
Guards needOfUse(plan::LayerRecord const& reader, size_t slot, Guards const& readerGuards)
{
    Guards need = readerGuards;
    if (plan::isConditionalOutput(reader) && slot < 2)
    {
        plan::Guard const taken{reader.inputs[2], slot == 0};
        if (std::find(need.begin(), need.end(), taken) == need.end())
        {
            need.push_back(taken);
        }
    }
    return need;
}

} // namespace

void assignGuards(plan::PlanModel& model)
{
    // Readers come after writers in a plan, so one pass from the last layer sees every use of a layer first.
    std::vector<std::vector<std::pair<size_t, size_t>>> readers(model.tensors.size()); // (layer, input slot)
    std::vector<int64_t> producer(model.tensors.size(), -1);                           // network inputs: -1
    for (size_t l = 0; l < model.layers.size(); ++l)
    {
        for (int32_t t : model.layers[l].outputs)
        {
            producer[t] = static_cast<int64_t>(l);
        }
        for (size_t slot = 0; slot < model.layers[l].inputs.size(); ++slot)
        {
            if (int32_t const t = model.layers[l].inputs[slot]; t >= 0)
            {
                readers[t].emplace_back(l, slot);
            }
        }
    }
    for (size_t l = model.layers.size(); l-- > 0;)
    {
        plan::LayerRecord& layer = model.layers[l];
        std::optional<Guards> need;
        for (int32_t t : layer.outputs)
        {
            if (model.tensors[t].ioMode == nvinfer1::TensorIOMode::kOUTPUT)
            {
                need = Guards{}; // the application reads it: always needed
            }
            for (auto const& [reader, slot] : readers[t])
            {
                Guards const use = needOfUse(model.layers[reader], slot, model.layers[reader].guards);
                need = need ? common(*need, use) : use;
            }
        }
        // A guard is checked before the layer runs: a condition computed later cannot be one (the layer then runs
        // whichever side is taken).
        layer.guards = need.value_or(Guards{});
        std::erase_if(
            layer.guards, [&](plan::Guard const& g) { return producer[g.condition] >= static_cast<int64_t>(l); });
    }
}

} // namespace kiln::builder
