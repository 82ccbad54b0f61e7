#include "builder/precision.h"

#include "core/logging.h"
#include "core/data_type.h"
#include "network/layers/loop.h"
#include "network/layers/nms.h"
#include "network/plugin_layer.h"

#include <unordered_set>
#include <utility>

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

//! The kinds of layer that post-process boxes: arithmetic, data movement and reductions, no products.
bool postProcessesBoxes(LayerType type)
{
    switch (type)
    {
    case LayerType::kELEMENTWISE:
    case LayerType::kUNARY:
    case LayerType::kACTIVATION:
    case LayerType::kSHUFFLE:
    case LayerType::kSQUEEZE:
    case LayerType::kUNSQUEEZE:
    case LayerType::kSLICE:
    case LayerType::kCONCATENATION:
    case LayerType::kGATHER:
    case LayerType::kREDUCE:
    case LayerType::kSELECT:
    case LayerType::kIDENTITY:
    case LayerType::kCAST:
    case LayerType::kCONSTANT:
    case LayerType::kSHAPE:
    case LayerType::kFILL: return true;
    default: return false;
    }
}

//! Non-maximum suppressions and the layers that compute nothing but their boxes (every output read only by an NMS's
//! boxes input or by another such layer), which compute in FP32 whatever precision the builder may reduce to:
//! exports that suppress every class in one NMS shift each class's boxes apart by the class's index times the
//! largest coordinate (torchvision's batched NMS), to coordinates in the tens of thousands, which FP16 holds only to
//! the nearest 16 and BF16 to the nearest 256, so that rounded boxes overlap other boxes than they do. Only layers
//! that post-process (postProcessesBoxes) are taken: a convolution ends the search.
std::unordered_set<network::Layer const*> nmsCoordinateLayers(std::vector<network::Layer const*> const& order)
{
    std::unordered_map<network::Tensor const*, std::vector<std::pair<network::Layer const*, size_t>>> readers;
    for (network::Layer const* layer : order)
    {
        for (size_t i = 0; i < layer->inputs().size(); ++i)
        {
            if (layer->inputs()[i] != nullptr)
            {
                readers[layer->inputs()[i]].emplace_back(layer, i);
            }
        }
    }
    std::unordered_set<network::Layer const*> taken;
    // Readers come after their writers in `order`, so walking it backwards decides every reader first.
    for (auto it = order.rbegin(); it != order.rend(); ++it)
    {
        network::Layer const* layer = *it;
        if (layer->params().type() == LayerType::kNMS)
        {
            taken.insert(layer);
            continue;
        }
        bool onlyBoxes = postProcessesBoxes(layer->params().type()) && !layer->outputs().empty();
        for (network::Tensor const* output : layer->outputs())
        {
            auto const found = output ? readers.find(output) : readers.end();
            if (output == nullptr || output->isNetworkOutput() || found == readers.end())
            {
                onlyBoxes = false;
                break;
            }
            for (auto const& [reader, index] : found->second)
            {
                bool const isNms = reader->params().type() == LayerType::kNMS;
                onlyBoxes = onlyBoxes && (isNms ? index == network::NMSParams::kBoxes : taken.count(reader) != 0);
            }
        }
        if (onlyBoxes)
        {
            taken.insert(layer);
        }
    }
    return taken;
}

//! The type a loop boundary stores the value it carries in, where the builder may choose it: an iterator's slice and
//! a loop output's value in the type of the tensor they copy from, so that a loop computing in a reduced precision
//! neither converts each slice it reads nor each value it gives out (the copies convert where types differ, and a
//! slice in its tensor's type is read in place). A recurrence's is set once its next value's is known.
std::optional<DataType> carriedType(network::Layer const& layer, PrecisionChoice const& choice)
{
    LayerType const type = layer.params().type();
    if ((type != LayerType::kITERATOR && type != LayerType::kLOOP_OUTPUT) || layer.inputs().empty())
    {
        return std::nullopt;
    }
    auto const from = choice.storage.find(layer.inputs()[0]);
    return from != choice.storage.end() && isFloatType(from->second) ? std::optional<DataType>(from->second)
                                                                     : std::nullopt;
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
    // than a reduced one: a layer's parameter inputs (thresholds, scales).
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
    }
    std::unordered_set<network::Layer const*> const nmsCoordinates
        = reduced == DataType::kFLOAT ? std::unordered_set<network::Layer const*>{} : nmsCoordinateLayers(order);
    int32_t ignoredConstraints = 0;
    for (network::Layer const* layer : order)
    {
        std::optional<DataType> precision;
        if (!keepsItsTypes(*layer) && computesOnFloats(*layer, facts))
        {
            precision = nmsCoordinates.count(layer) != 0 ? DataType::kFLOAT : reduced;
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
            bool const free = isFloatType(inferred) && !output->isNetworkOutput() && !outputTypeWasAsked(*layer, i)
                && keepTheirTypes.count(output) == 0;
            std::optional<DataType> const carried = free ? carriedType(*layer, choice) : std::nullopt;
            choice.storage[output] = free && precision ? *precision : carried ? *carried : inferred;
        }
    }
    // A recurrence carries its value in its next value's type, chosen above by the layer computing it, so that each
    // iteration's update copies without converting (the runtime's copies convert where types differ: the initial
    // value's, once, and a next value that is another recurrence's value stored in another type).
    for (network::Layer const* layer : order)
    {
        auto const* recurrence = dynamic_cast<network::RecurrenceLayer const*>(layer);
        if (recurrence != nullptr && recurrence->nextValue() != nullptr)
        {
            DataType const next = choice.storage.at(recurrence->nextValue());
            for (network::Tensor const* output : recurrence->outputs())
            {
                choice.storage[output] = next;
            }
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
