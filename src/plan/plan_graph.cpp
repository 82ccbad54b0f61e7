#include "plan/plan_graph.h"

#include "core/tensor_view.h"
#include "network/fused/quantized_convolution.h"
#include "network/layers/constant.h"

#include "network/layers/activation.h"
#include "network/layers/elementwise.h"
#include "network/layers/shuffle.h"
#include "shape/arithmetic.h"
#include "shape/expr.h"

#include <algorithm>
#include <iterator>

namespace kiln::plan
{

bool addsResidualInput(LayerRecord const& record)
{
    auto const* quantized = paramsOf<network::QuantizedConvolutionParams>(record);
    return record.epilogue.addsResidual || (quantized != nullptr && quantized->addsResidual);
}

bool isRelu(LayerRecord const& record)
{
    if (record.type != nvinfer1::LayerType::kACTIVATION)
    {
        return false;
    }
    auto const params = paramsOf<network::ActivationParams>(record);
    return params && params->activation == nvinfer1::ActivationType::kRELU;
}

bool isSum(LayerRecord const& record)
{
    if (record.type != nvinfer1::LayerType::kELEMENTWISE)
    {
        return false;
    }
    auto const params = paramsOf<network::ElementWiseParams>(record);
    return params && params->operation == nvinfer1::ElementWiseOperation::kSUM;
}

bool sameExpr(PlanModel const& model, int32_t a, int32_t b)
{
    if (a == b)
    {
        return true;
    }
    ExprNode const& x = model.exprs[a];
    ExprNode const& y = model.exprs[b];
    return x.kind == y.kind && x.kind == static_cast<uint8_t>(shape::ExprKind::kCONSTANT) && x.value == y.value;
}

std::vector<bool> sizeDependentNodes(PlanModel const& model)
{
    std::vector<bool> dependent(model.exprs.size(), false);
    for (size_t i = 0; i < model.exprs.size(); ++i)
    {
        ExprNode const& e = model.exprs[i];
        auto const kind = static_cast<shape::ExprKind>(e.kind);
        dependent[i] = kind == shape::ExprKind::kSIZE_TENSOR
            || (kind == shape::ExprKind::kOPERATION && (dependent[e.first] || dependent[e.second]));
    }
    return dependent;
}

int32_t constantNode(PlanModel& model, int64_t value)
{
    auto constexpr kConstant = static_cast<uint8_t>(shape::ExprKind::kCONSTANT);
    for (size_t i = 0; i < model.exprs.size(); ++i)
    {
        if (model.exprs[i].kind == kConstant && model.exprs[i].value == value)
        {
            return static_cast<int32_t>(i);
        }
    }
    ExprNode node;
    node.kind = kConstant;
    node.value = value;
    model.exprs.push_back(node);
    return static_cast<int32_t>(model.exprs.size() - 1);
}

bool sameShape(PlanModel const& model, int32_t a, int32_t b)
{
    std::vector<int32_t> const& x = model.tensors[a].dims;
    std::vector<int32_t> const& y = model.tensors[b].dims;
    if (x.size() != y.size())
    {
        return false;
    }
    for (size_t axis = 0; axis < x.size(); ++axis)
    {
        if (!sameExpr(model, x[axis], y[axis]))
        {
            return false;
        }
    }
    return true;
}

std::optional<int64_t> constantExtent(PlanModel const& model, int32_t t, size_t axis)
{
    std::vector<int32_t> const& dims = model.tensors[t].dims;
    if (axis >= dims.size())
    {
        return std::nullopt;
    }
    ExprNode const& expr = model.exprs[dims[axis]];
    if (expr.kind != static_cast<uint8_t>(shape::ExprKind::kCONSTANT))
    {
        return std::nullopt;
    }
    return expr.value;
}

std::optional<std::vector<int64_t>> constantDims(PlanModel const& model, int32_t t)
{
    std::vector<int64_t> extents;
    for (int32_t node : model.tensors[t].dims)
    {
        ExprNode const& expr = model.exprs[node];
        if (expr.kind != static_cast<uint8_t>(shape::ExprKind::kCONSTANT))
        {
            return std::nullopt;
        }
        extents.push_back(expr.value);
    }
    return extents;
}

std::optional<float> scalarConstant(
    PlanModel const& model, int32_t t, std::function<std::optional<size_t>(int32_t)> const& producer)
{
    if (t < 0)
    {
        return std::nullopt;
    }
    std::optional<std::vector<int64_t>> const dims = constantDims(model, t);
    if (!dims || volume(*dims) != 1)
    {
        return std::nullopt;
    }
    for (std::optional<size_t> p = producer(t); p; p = producer(model.layers[*p].inputs[0]))
    {
        LayerRecord const& layer = model.layers[*p];
        if (auto const* constant = fixedConstant(layer))
        {
            std::vector<float> const values = constant->weights.toFloat();
            return values.size() == 1 ? std::optional<float>(values[0]) : std::nullopt;
        }
        if (layer.type != nvinfer1::LayerType::kSHUFFLE || layer.inputs.size() != 1 || layer.inputs[0] < 0)
        {
            return std::nullopt;
        }
    }
    return std::nullopt;
}

int32_t inputPosition(PlanModel const& model, int32_t t)
{
    int32_t position = 0;
    for (int32_t index : model.ioTensors)
    {
        if (model.tensors[index].ioMode == nvinfer1::TensorIOMode::kINPUT)
        {
            if (index == t)
            {
                return position;
            }
            ++position;
        }
    }
    return -1;
}

namespace
{

//! The extent every profile of `model` pins a dimension symbol's input axis to.
std::optional<int64_t> pinnedExtent(PlanModel const& model, SymbolRecord const& symbol)
{
    int32_t const input = symbol.tensor >= 0 ? inputPosition(model, symbol.tensor) : -1;
    if (symbol.kind != SymbolRecord::Kind::kDIMENSION || input < 0 || symbol.axis < 0 || model.profiles.empty())
    {
        return std::nullopt;
    }
    std::optional<int64_t> value;
    for (ProfileRecord const& profile : model.profiles)
    {
        auto const& bounds = profile.inputs.at(static_cast<size_t>(input)); // kMIN, kOPT, kMAX
        if (symbol.axis >= bounds[0].nbDims || symbol.axis >= bounds[2].nbDims)
        {
            return std::nullopt;
        }
        int64_t const low = bounds[0].d[symbol.axis];
        if (low != bounds[2].d[symbol.axis] || (value && *value != low))
        {
            return std::nullopt;
        }
        value = low;
    }
    return value;
}

} // namespace

std::vector<std::optional<int64_t>> valuesNoRunChanges(PlanModel const& model)
{
    std::vector<std::optional<int64_t>> values(model.exprs.size());
    for (size_t n = 0; n < model.exprs.size(); ++n)
    {
        ExprNode const& node = model.exprs[n];
        switch (static_cast<shape::ExprKind>(node.kind))
        {
        case shape::ExprKind::kCONSTANT: values[n] = node.value; break;
        case shape::ExprKind::kSYMBOL:
            values[n] = node.symbol >= 0 ? pinnedExtent(model, model.symbols.at(static_cast<size_t>(node.symbol)))
                                         : std::nullopt;
            break;
        case shape::ExprKind::kOPERATION:
        {
            // An operation's operands come before it in the table.
            bool const known = node.first >= 0 && node.second >= 0 && static_cast<size_t>(node.first) < n
                && static_cast<size_t>(node.second) < n && values[node.first] && values[node.second];
            shape::ArithmeticResult const result = known
                ? shape::applyOperation(node.op, *values[node.first], *values[node.second])
                : shape::ArithmeticResult{};
            values[n] = known && result.ok() ? std::optional<int64_t>(result.value) : std::nullopt;
            break;
        }
        default: break; // a size tensor's value is learnt by running its layer
        }
    }
    return values;
}

bool equalEveryRun(PlanModel const& model, std::vector<std::optional<int64_t>> const& known, int32_t a, int32_t b)
{
    std::optional<int64_t> const knownA = known[static_cast<size_t>(a)];
    return sameExpr(model, a, b) || (knownA && knownA == known[static_cast<size_t>(b)]);
}

bool sameShapeEveryRun(PlanModel const& model, std::vector<std::optional<int64_t>> const& known, int32_t a, int32_t b)
{
    std::vector<int32_t> const& x = model.tensors[a].dims;
    std::vector<int32_t> const& y = model.tensors[b].dims;
    if (x.size() != y.size())
    {
        return false;
    }
    for (size_t axis = 0; axis < x.size(); ++axis)
    {
        if (!equalEveryRun(model, known, x[axis], y[axis]))
        {
            return false;
        }
    }
    return true;
}

std::vector<std::vector<size_t>> readersOf(PlanModel const& model)
{
    std::vector<std::vector<size_t>> readers(model.tensors.size());
    for (size_t l = 0; l < model.layers.size(); ++l)
    {
        for (int32_t t : model.layers[l].inputs)
        {
            if (t >= 0)
            {
                readers[t].push_back(l);
            }
        }
    }
    return readers;
}

std::optional<size_t> soleReaderOf(PlanModel const& model, std::vector<std::vector<size_t>> const& readers, int32_t t)
{
    TensorRecord const& tensor = model.tensors[t];
    if (isObserved(tensor) || tensor.values || readers[t].size() != 1)
    {
        return std::nullopt;
    }
    return readers[t][0];
}

std::optional<size_t> soleReader(PlanModel const& model, std::vector<std::vector<size_t>> const& readers, size_t l)
{
    LayerRecord const& record = model.layers[l];
    return record.outputs.size() == 1 ? soleReaderOf(model, readers, record.outputs[0]) : std::nullopt;
}

std::optional<SelfGated> selfGatedOf(PlanModel const& model, std::vector<std::vector<size_t>> const& readers, int32_t x)
{
    TensorRecord const& tensor = model.tensors[x];
    if (isObserved(tensor) || tensor.values || readers[x].size() != 2)
    {
        return std::nullopt;
    }
    for (size_t a : readers[x])
    {
        std::optional<size_t> const product = soleReader(model, readers, a);
        if (paramsOf<network::ActivationParams>(model.layers[a]) == nullptr || !product)
        {
            continue;
        }
        LayerRecord const& layer = model.layers[*product];
        auto const* elementWise = paramsOf<network::ElementWiseParams>(layer);
        int32_t const gate = model.layers[a].outputs[0];
        bool const multiplies = elementWise != nullptr
            && elementWise->operation == nvinfer1::ElementWiseOperation::kPROD && layer.inputs.size() == 2
            && layer.outputs.size() == 1
            && ((layer.inputs[0] == x && layer.inputs[1] == gate) || (layer.inputs[0] == gate && layer.inputs[1] == x));
        if (multiplies)
        {
            return SelfGated{a, *product};
        }
    }
    return std::nullopt;
}

bool computesIn(PlanModel const& model, LayerRecord const& record, std::optional<nvinfer1::DataType> precision,
    nvinfer1::DataType type)
{
    if (record.precision != precision)
    {
        return false;
    }
    for (size_t slot = 0; slot < record.inputs.size() + record.outputs.size(); ++slot)
    {
        if (slot < record.inputs.size() && record.inputs[slot] < 0)
        {
            continue; // an optional input not given is read in no type
        }
        if (slotType(model, record, slot) != type)
        {
            return false;
        }
    }
    return true;
}

namespace
{

//! `values` (one per slot) where some differs from the slot's tensor's own `property`, else nothing: the plan stores
//! a layer's I/O types and formats only where the runtime must convert.
template <typename Value, typename Property>
std::vector<Value> unlessTensorsOwn(
    PlanModel const& model, LayerRecord const& record, std::vector<Value> values, Property property)
{
    size_t const inputs = record.inputs.size();
    for (size_t slot = 0; slot < values.size(); ++slot)
    {
        int32_t const t = slot < inputs ? record.inputs[slot] : record.outputs[slot - inputs];
        if (t >= 0 && model.tensors[t].*property != values[slot])
        {
            return values;
        }
    }
    return {};
}

} // namespace

std::vector<nvinfer1::DataType> slotTypes(PlanModel const& model, LayerRecord const& record)
{
    std::vector<nvinfer1::DataType> types;
    for (size_t slot = 0; slot < record.inputs.size() + record.outputs.size(); ++slot)
    {
        bool const absent = slot < record.inputs.size() && record.inputs[slot] < 0;
        types.push_back(absent ? nvinfer1::DataType::kFLOAT : slotType(model, record, slot));
    }
    return types;
}

void setIoTypes(PlanModel const& model, LayerRecord& record, std::vector<nvinfer1::DataType> types)
{
    record.ioTypes = unlessTensorsOwn(model, record, std::move(types), &TensorRecord::type);
}

void setIoFormats(PlanModel const& model, LayerRecord& record, std::vector<nvinfer1::TensorFormat> formats)
{
    record.ioFormats = unlessTensorsOwn(model, record, std::move(formats), &TensorRecord::format);
}

std::optional<LayerRecord> constantOwnedBy(
    PlanModel& model, std::vector<std::vector<size_t>> const& readers, size_t constant, size_t reader, size_t slot)
{
    if (readers[static_cast<size_t>(model.layers[constant].outputs[0])].size() == 1)
    {
        return std::nullopt;
    }
    LayerRecord copy = model.layers[constant];
    TensorRecord tensor = model.tensors[static_cast<size_t>(copy.outputs[0])];
    std::string const suffix = ", for " + model.layers[reader].name;
    tensor.name += suffix;
    copy.name += suffix;
    copy.outputs[0] = static_cast<int32_t>(model.tensors.size());
    model.tensors.push_back(std::move(tensor));
    model.layers[reader].inputs[slot] = copy.outputs[0];
    return copy;
}

namespace
{

//! Whether the memory positions `place(i)` of the axes i < `rank` that are not of extent 1 (`unit(i)`) increase.
template <typename Place, typename Unit>
bool increasing(size_t rank, Place place, Unit unit)
{
    int32_t last = -1;
    for (size_t i = 0; i < rank; ++i)
    {
        if (unit(i))
        {
            continue;
        }
        int32_t const at = place(i);
        if (at < last)
        {
            return false;
        }
        last = at;
    }
    return true;
}

} // namespace

std::optional<nvinfer1::Permutation> transposeOf(PlanModel const& model, LayerRecord const& layer)
{
    auto const* shuffle = paramsOf<network::ShuffleParams>(layer);
    bool const shapeInput = layer.inputs.size() > 1 && layer.inputs[1] >= 0;
    if (shuffle == nullptr || shuffle->reshape || shapeInput || layer.inputs.empty() || layer.outputs.size() != 1)
    {
        return std::nullopt;
    }
    nvinfer1::Permutation order = network::ShuffleParams::identityPermutation();
    size_t const rank = model.tensors[layer.outputs[0]].dims.size();
    for (size_t i = 0; i < rank; ++i)
    {
        order.order[i] = shuffle->firstTranspose.order[shuffle->secondTranspose.order[i]];
    }
    return order;
}

bool shuffleKeepsStoredOrder(PlanModel const& model, LayerRecord const& layer, nvinfer1::TensorFormat inputFormat,
    nvinfer1::TensorFormat outputFormat)
{
    auto const* shuffle = paramsOf<network::ShuffleParams>(layer);
    if (shuffle == nullptr || layer.inputs.empty() || layer.inputs[0] < 0 || layer.outputs.size() != 1)
    {
        return false;
    }
    int32_t const in = layer.inputs[0];
    int32_t const out = layer.outputs[0];
    size_t const inRank = model.tensors[in].dims.size();
    size_t const outRank = model.tensors[out].dims.size();
    auto const unit = [&](int32_t t, size_t axis) { return constantExtent(model, t, axis) == 1; };
    // The first transpose's axis j is input axis order[j], which lies at memory axis placeOf[order[j]]; the
    // transposed tensor is row-major.
    std::vector<int32_t> const inputAxes = storedAxisOrder(inputFormat, inRank);
    std::vector<int32_t> placeOf(inRank);
    for (size_t p = 0; p < inRank; ++p)
    {
        placeOf[static_cast<size_t>(inputAxes[p])] = static_cast<int32_t>(p);
    }
    int32_t const* first = shuffle->firstTranspose.order;
    bool const firstKeeps = increasing(
        inRank, [&](size_t j) { return placeOf[static_cast<size_t>(first[j])]; },
        [&](size_t j) { return unit(in, static_cast<size_t>(first[j])); });
    // The reshape reinterprets that; memory axis p of the output is output axis outputAxes[p], which the second
    // transpose takes from the reshape's axis order[outputAxes[p]].
    std::vector<int32_t> const outputAxes = storedAxisOrder(outputFormat, outRank);
    int32_t const* second = shuffle->secondTranspose.order;
    auto const outputUnit = [&](size_t p) { return unit(out, static_cast<size_t>(outputAxes[p])); };
    bool const secondKeeps = increasing(
        outRank, [&](size_t p) { return second[outputAxes[p]]; }, outputUnit);
    if (firstKeeps && secondKeeps)
    {
        return true;
    }
    // Where the reshape keeps the first transpose's extents, the two transposes are one permutation (moving the
    // channels back into a kHWC output moves them twice): output memory axis p is input axis
    // first[second[outputAxes[p]]].
    std::vector<int32_t> const& inDims = model.tensors[in].dims;
    std::vector<int32_t> const& outDims = model.tensors[out].dims;
    if (inRank != outRank)
    {
        return false;
    }
    for (size_t i = 0; i < outRank; ++i)
    {
        int32_t const reshapedAxis = second[i];
        if (!sameExpr(model, inDims[static_cast<size_t>(first[reshapedAxis])], outDims[i]))
        {
            return false;
        }
    }
    return increasing(
        outRank, [&](size_t p) { return placeOf[static_cast<size_t>(first[second[outputAxes[p]]])]; }, outputUnit);
}

bool linearThroughout(PlanModel const& model, LayerRecord const& record)
{
    size_t const inputs = record.inputs.size();
    for (size_t slot = 0; slot < inputs + record.outputs.size(); ++slot)
    {
        int32_t const t = slot < inputs ? record.inputs[slot] : record.outputs[slot - inputs];
        if (t < 0)
        {
            continue;
        }
        if (slotFormat(model, record, slot) != nvinfer1::TensorFormat::kLINEAR
            || model.tensors[t].format != nvinfer1::TensorFormat::kLINEAR)
        {
            return false;
        }
    }
    return true;
}

std::vector<int64_t> producersOf(PlanModel const& model)
{
    std::vector<int64_t> producers(model.tensors.size(), -1);
    for (size_t l = 0; l < model.layers.size(); ++l)
    {
        for (int32_t t : model.layers[l].outputs)
        {
            producers[t] = static_cast<int64_t>(l);
        }
    }
    return producers;
}

bool outputsItsWeights(PlanModel const& model, LayerRecord const& layer)
{
    auto const* constant = paramsOf<network::ConstantParams>(layer);
    if (constant == nullptr || layer.outputs.size() != 1)
    {
        return false;
    }
    TensorRecord const& output = model.tensors[layer.outputs[0]];
    return output.ioMode == nvinfer1::TensorIOMode::kNONE && slotType(model, layer, 0) == constant->weights.type()
        && output.type == constant->weights.type();
}

void eraseLayers(PlanModel& model, std::vector<bool> const& absorbed)
{
    std::vector<LayerRecord> kept;
    for (size_t l = 0; l < model.layers.size(); ++l)
    {
        if (!absorbed[l])
        {
            kept.push_back(std::move(model.layers[l]));
        }
    }
    model.layers = std::move(kept);
}

void removeWithItsConstants(PlanModel const& model, size_t l, std::vector<std::vector<size_t>>& readers,
    std::vector<int64_t> const& producers, std::vector<bool>& removed)
{
    removed[l] = true;
    LayerRecord const& layer = model.layers[l];
    for (size_t slot = 1; slot < layer.inputs.size(); ++slot)
    {
        int32_t const t = layer.inputs[slot];
        if (t < 0)
        {
            continue;
        }
        std::erase(readers[t], l);
        int64_t const producer = producers[t];
        if (producer >= 0 && readers[t].empty() && !isObserved(model.tensors[t])
            && model.layers[producer].type == nvinfer1::LayerType::kCONSTANT)
        {
            removed[producer] = true;
        }
    }
}

LayerRewrite::LayerRewrite(PlanModel const& model)
    : known(valuesNoRunChanges(model))
    , readers(readersOf(model))
    , producers(producersOf(model))
    , removed(model.layers.size(), false)
    , before(model.layers.size())
    , after(model.layers.size())
{
}

void LayerRewrite::remove(PlanModel const& model, size_t l)
{
    removeWithItsConstants(model, l, readers, producers, removed);
}

void LayerRewrite::apply(PlanModel& model)
{
    std::vector<LayerRecord> layers;
    for (size_t l = 0; l < model.layers.size(); ++l)
    {
        std::move(before[l].begin(), before[l].end(), std::back_inserter(layers));
        if (!removed[l])
        {
            layers.push_back(std::move(model.layers[l]));
        }
        std::move(after[l].begin(), after[l].end(), std::back_inserter(layers));
    }
    model.layers = std::move(layers);
}

bool holdsRefittableWeights(LayerRecord const& record)
{
    for (nvinfer1::WeightsRole role : network::kWeightsRoles)
    {
        network::WeightsBuffer const* weights = record.params ? record.params->weightsOfRole(role) : nullptr;
        if (weights != nullptr && weights->refit)
        {
            return true;
        }
    }
    return false;
}

network::ConstantParams const* fixedConstant(LayerRecord const& record)
{
    auto const* constant = paramsOf<network::ConstantParams>(record);
    return constant != nullptr && !constant->weights.refit ? constant : nullptr;
}

} // namespace kiln::plan
