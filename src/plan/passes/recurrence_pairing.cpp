#include "plan/passes/recurrence_pairing.h"

#include "network/fused/recurrent_sequence.h"

#include <algorithm>
#include <optional>
#include <vector>

namespace kiln::plan
{
namespace
{

using network::RecurrentSequenceParams;

//! A recurrent sequence layer's parameters, where it is one as the fusion makes it: a type listed for every slot, no
//! format (the passes that choose formats run later); null for any other layer.
RecurrentSequenceParams const* sequenceOf(LayerRecord const& layer)
{
    bool const asFused = layer.type == network::kRecurrentSequenceLayerType && layer.ioFormats.empty()
        && layer.ioTypes.size() == layer.inputs.size() + layer.outputs.size();
    return asFused ? dynamic_cast<RecurrentSequenceParams const*>(layer.params.get()) : nullptr;
}

//! Whether `layer` reads one of `tensors`, as an input or as a condition it runs under.
bool readsAny(LayerRecord const& layer, std::vector<int32_t> const& tensors)
{
    auto const listed = [&](int32_t t) { return std::find(tensors.begin(), tensors.end(), t) != tensors.end(); };
    return std::any_of(layer.inputs.begin(), layer.inputs.end(), listed)
        || std::any_of(layer.guards.begin(), layer.guards.end(), [&](Guard const& g) { return listed(g.condition); });
}

//! The layer after `first` that it pairs with: the next recurrent sequence alike, where nothing up to it reads
//! `first`'s outputs.
std::optional<size_t> partnerOf(PlanModel const& model, size_t first)
{
    LayerRecord const& a = model.layers[first];
    RecurrentSequenceParams const& cell = *sequenceOf(a);
    for (size_t l = first + 1; l < model.layers.size(); ++l)
    {
        LayerRecord const& b = model.layers[l];
        if (readsAny(b, a.outputs))
        {
            return std::nullopt;
        }
        RecurrentSequenceParams const* other = sequenceOf(b);
        if (other != nullptr && other->gates == cell.gates && b.precision == a.precision && b.guards == a.guards)
        {
            return l;
        }
    }
    return std::nullopt;
}

//! The pair of `a` and `b`: a's inputs, then b's; a's outputs, then b's; their types likewise.
LayerRecord pairOf(LayerRecord const& a, LayerRecord const& b)
{
    auto params = std::make_shared<network::RecurrentSequencePairParams>();
    params->first = *sequenceOf(a);
    params->second = *sequenceOf(b);
    LayerRecord pair;
    pair.type = network::kRecurrentSequencePairLayerType;
    pair.name = a.name + " beside " + b.name;
    pair.inputs = a.inputs;
    pair.inputs.insert(pair.inputs.end(), b.inputs.begin(), b.inputs.end());
    pair.outputs = a.outputs;
    pair.outputs.insert(pair.outputs.end(), b.outputs.begin(), b.outputs.end());
    pair.params = std::move(params);
    pair.precision = a.precision;
    pair.guards = a.guards;
    // Per slot, inputs then outputs, as each lists them (sequenceOf checked that they do).
    auto const inputsOf = [](LayerRecord const& l) {
        return std::vector<nvinfer1::DataType>(
            l.ioTypes.begin(), l.ioTypes.begin() + static_cast<ptrdiff_t>(l.inputs.size()));
    };
    auto const outputsOf = [](LayerRecord const& l) {
        return std::vector<nvinfer1::DataType>(
            l.ioTypes.begin() + static_cast<ptrdiff_t>(l.inputs.size()), l.ioTypes.end());
    };
    for (auto const& types : {inputsOf(a), inputsOf(b), outputsOf(a), outputsOf(b)})
    {
        pair.ioTypes.insert(pair.ioTypes.end(), types.begin(), types.end());
    }
    return pair;
}

} // namespace

size_t pairRecurrences(PlanModel& model)
{
    size_t pairs = 0;
    for (size_t l = 0; l < model.layers.size(); ++l)
    {
        if (sequenceOf(model.layers[l]) == nullptr)
        {
            continue;
        }
        if (std::optional<size_t> const partner = partnerOf(model, l))
        {
            model.layers[*partner] = pairOf(model.layers[l], model.layers[*partner]);
            model.layers.erase(model.layers.begin() + static_cast<ptrdiff_t>(l));
            --l; // the layer now at l follows the one erased
            ++pairs;
        }
    }
    return pairs;
}

} // namespace kiln::plan
