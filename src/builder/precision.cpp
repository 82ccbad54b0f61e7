#include "builder/precision.h"

#include "core/logging.h"
#include "core/data_type.h"
#include "network/layers/loop.h"
#include "network/plugin_layer.h"

#include <unordered_set>

namespace kiln::builder
{
namespace
{

using nvinfer1::BuilderFlag;
using nvinfer1::DataType;
using nvinfer1::LayerType;

//! Plugins negotiate their own types, and some built-in layers' types are their meaning.
bool keepsItsTypes(network::Layer const& layer)
{
    return dynamic_cast<network::PluginParams const*>(&layer.params()) != nullptr || layer.params().keepsItsTypes();
}

bool computesOnFloats(network::Layer const& layer, network::NetworkFacts const& facts)
{
    for (auto const* list : {&layer.inputs(), &layer.outputs()})
    {
        for (network::Tensor const* tensor : *list)
        {
            if (tensor != nullptr && isFloatType(facts.tensors.at(tensor).type))
            {
                return true;
            }
        }
    }
    return false;
}

bool outputTypeWasAsked(network::Layer const& layer, size_t index)
{
    return layer.requestedOutputType(static_cast<int32_t>(index)).has_value()
        || layer.outputs()[index]->typeRequested();
}

} // namespace

std::optional<DataType> PrecisionChoice::precisionOf(network::Layer const& layer) const
{
    auto it = layers.find(&layer);
    return it == layers.end() ? std::nullopt : std::optional<DataType>(it->second);
}

std::vector<DataType> PrecisionChoice::ioTypes(network::Layer const& layer) const
{
    std::optional<DataType> const precision = precisionOf(layer);
    if (!precision)
    {
        return {};
    }
    std::vector<DataType> types;
    bool converts = false;
    auto add = [&](network::Tensor const* tensor, bool parameter) {
        DataType const stored = tensor ? storage.at(tensor) : DataType::kFLOAT;
        DataType const used = tensor && isFloatType(stored) && !parameter ? *precision : stored;
        converts = converts || used != stored;
        types.push_back(used);
    };
    for (size_t i = 0; i < layer.inputs().size(); ++i)
    {
        add(layer.inputs()[i], layer.params().isParameterInput(i));
    }
    for (network::Tensor const* output : layer.outputs())
    {
        add(output, false);
    }
    return converts ? types : std::vector<DataType>{};
}

bool choosePrecisions(network::Network const& network, std::vector<network::Layer const*> const& order,
    network::NetworkFacts const& facts, nvinfer1::IBuilderConfig const& config, PrecisionChoice& choice,
    std::string& error)
{
    bool const fp16 = config.getFlag(BuilderFlag::kFP16);
    bool const bf16 = config.getFlag(BuilderFlag::kBF16);
    bool const obey = config.getFlag(BuilderFlag::kOBEY_PRECISION_CONSTRAINTS);
    bool const prefer = config.getFlag(BuilderFlag::kPREFER_PRECISION_CONSTRAINTS);
    if (network.getFlag(nvinfer1::NetworkDefinitionCreationFlag::kSTRONGLY_TYPED) && (fp16 || bf16))
    {
        error = "the network is strongly typed, so its types decide every layer's precision: do not set kFP16 or "
                "kBF16 in the builder configuration";
        return false;
    }
    if (obey && prefer)
    {
        error = "kOBEY_PRECISION_CONSTRAINTS and kPREFER_PRECISION_CONSTRAINTS are both set; set at most one";
        return false;
    }
    DataType const reduced = fp16 ? DataType::kHALF : bf16 ? DataType::kBF16 : DataType::kFLOAT;

    for (network::Tensor const* input : network.inputs())
    {
        choice.storage[input] = facts.tensors.at(input).type;
    }
    // Tensors whose readers need them in their own type, so that whatever computes them stores that type rather
    // than a reduced one: a layer's parameter inputs (thresholds, scales), and a recurrence's next value, which
    // becomes the recurrence's value in the next iteration, of the initial value's type.
    std::unordered_set<network::Tensor const*> keepTheirTypes;
    for (network::Layer const* layer : order)
    {
        for (size_t i = 0; i < layer->inputs().size(); ++i)
        {
            if (layer->inputs()[i] != nullptr && layer->params().isParameterInput(i))
            {
                keepTheirTypes.insert(layer->inputs()[i]);
            }
        }
        auto const* recurrence = dynamic_cast<network::RecurrenceLayer const*>(layer);
        if (recurrence != nullptr && recurrence->nextValue() != nullptr)
        {
            keepTheirTypes.insert(recurrence->nextValue());
        }
    }
    int32_t ignoredConstraints = 0;
    for (network::Layer const* layer : order)
    {
        std::optional<DataType> precision;
        if (!keepsItsTypes(*layer) && computesOnFloats(*layer, facts))
        {
            precision = reduced;
            if (std::optional<DataType> const asked = layer->precision())
            {
                if (!obey && !prefer)
                {
                    ++ignoredConstraints;
                }
                else if (isFloatType(*asked))
                {
                    precision = asked;
                }
                else if (obey)
                {
                    error = "layer \"" + layer->name() + "\" must compute in " + dataTypeName(*asked)
                        + " (kOBEY_PRECISION_CONSTRAINTS), but Kiln computes floating-point layers in FLOAT, "
                          "HALF or BF16";
                    return false;
                }
                else
                {
                    logWarning("layer \"" + layer->name() + "\" prefers " + dataTypeName(*asked)
                        + ", which Kiln has no implementation for; it computes in " + dataTypeName(reduced));
                }
            }
            choice.layers[layer] = *precision;
        }
        for (size_t i = 0; i < layer->outputs().size(); ++i)
        {
            network::Tensor const* output = layer->outputs()[i];
            DataType const inferred = facts.tensors.at(output).type;
            bool const free = precision && isFloatType(inferred) && !output->isNetworkOutput()
                && !outputTypeWasAsked(*layer, i) && keepTheirTypes.count(output) == 0;
            choice.storage[output] = free ? *precision : inferred;
        }
    }
    if (ignoredConstraints > 0)
    {
        logWarning(std::to_string(ignoredConstraints)
            + " layer(s) ask for a precision with ILayer::setPrecision, which is ignored because neither "
              "kOBEY_PRECISION_CONSTRAINTS nor kPREFER_PRECISION_CONSTRAINTS is set");
    }
    return true;
}

} // namespace kiln::builder
