#include "plan/passes/quantization_propagation.h"

#include "core/data_type.h"
#include "core/tensor_view.h"
#include "network/layers/concatenation.h"
#include "network/layers/constant.h"
#include "network/layers/elementwise.h"
#include "network/layers/pooling.h"
#include "network/layers/quantize.h"
#include "plan/passes/data_movement.h"
#include "plan/plan_graph.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <set>

namespace kiln::plan
{
namespace
{

using nvinfer1::DataType;

bool isQuantizedType(DataType type)
{
    return type == DataType::kINT8 || type == DataType::kFP8;
}

//! What a quantize or dequantize layer applies: its scale and zero-point tensors, and the axis of a per-channel
//! scale (none: one scale for the tensor).
struct Scaling
{
    DataType quantized{DataType::kINT8};
    std::optional<int32_t> axis;
    int32_t scale{-1};
    int32_t zeroPoint{-1};
};

//! Whether a DQ writing `type` of values of `quantized` by `scales` gives values that a Q by the same scales maps back
//! to themselves: no overflow, no subnormal results, and enough significant bits that the rounding of the product
//! stays well within half a step of the quantized grid (INT8's 128 needs 9 bits, FP8's 4-bit significands 6).
bool roundTrips(DataType quantized, DataType type, std::vector<float> const& scales)
{
    int const bits = type == DataType::kFLOAT ? 24 : type == DataType::kHALF ? 11 : type == DataType::kBF16 ? 8 : 0;
    double const minNormal = type == DataType::kHALF ? 6.103515625e-05 : std::numeric_limits<float>::min();
    double const maxFinite = type == DataType::kHALF ? 65504.0
        : type == DataType::kBF16                    ? 3.3895313892515355e38
                                                     : std::numeric_limits<float>::max();
    double const largest = quantized == DataType::kINT8 ? 128.0 : 448.0;
    if (bits < (quantized == DataType::kINT8 ? 9 : 6))
    {
        return false;
    }
    return std::all_of(scales.begin(), scales.end(), [&](float s) {
        double const magnitude = std::fabs(static_cast<double>(s));
        return std::isfinite(s) && magnitude >= minNormal && largest * magnitude <= maxFinite;
    });
}

class Propagator
{
public:
    Propagator(PlanModel& model, QuantizationPropagationRules const& rules)
        : mModel(model)
        , mRules(rules)
    {
    }

    QuantizationPropagation run()
    {
        while (step())
        {
        }
        return mDone;
    }

private:
    LayerRecord const& layer(size_t l) const
    {
        return mModel.layers[l];
    }

    //! One rewrite, the first found in plan order; false where none is left.
    bool step()
    {
        mReaders = readersOf(mModel);
        mProducers = producersOf(mModel);
        for (size_t l = 0; l < mModel.layers.size(); ++l)
        {
            if (movesDataOnly(layer(l)) && movesInOneFloatType(layer(l)))
            {
                if (moveDequantizationsForward(l))
                {
                    ++mDone.dequantizationsMoved;
                    return true;
                }
                if (moveQuantizationBack(l))
                {
                    ++mDone.quantizationsMoved;
                    return true;
                }
                if (moveScalingBack(l))
                {
                    ++mDone.scalingsMoved;
                    return true;
                }
            }
            if (removeRoundTrip(l))
            {
                ++mDone.pairsRemoved;
                return true;
            }
        }
        return false;
    }

    //! The inputs of data-movement layer `l` that it moves: a concatenation's all, the others' first.
    size_t dataInputs(LayerRecord const& record) const
    {
        return paramsOf<network::ConcatenationParams>(record) != nullptr ? record.inputs.size() : 1;
    }

    static bool isPooling(LayerRecord const& record)
    {
        return paramsOf<network::PoolingParams>(record) != nullptr;
    }

    //! Whether the layer reads its data and writes its output in one floating-point type, the tensors' own.
    bool movesInOneFloatType(LayerRecord const& record) const
    {
        DataType const type = mModel.tensors[record.outputs[0]].type;
        size_t const inputs = dataInputs(record);
        bool same = isFloatType(type) && slotType(mModel, record, record.inputs.size()) == type
            && linearThroughout(mModel, record);
        for (size_t i = 0; i < inputs && same; ++i)
        {
            same = record.inputs[i] >= 0 && slotType(mModel, record, i) == type
                && mModel.tensors[record.inputs[i]].type == type;
        }
        return same;
    }

    std::optional<size_t> producer(int32_t t) const
    {
        return t >= 0 && mProducers[t] >= 0 ? std::optional<size_t>(static_cast<size_t>(mProducers[t])) : std::nullopt;
    }

    //! Whether tensor `t` is an internal activation that layer `l` alone reads.
    bool readOnlyBy(int32_t t, size_t l) const
    {
        std::vector<size_t> const& readers = mReaders[t];
        return !isObserved(mModel.tensors[t]) && !readers.empty()
            && std::all_of(readers.begin(), readers.end(), [l](size_t r) { return r == l; });
    }

    //! The values of a constant tensor: a fixed constant's, or one value through shuffles of one.
    std::optional<std::vector<float>> constantValues(int32_t t) const
    {
        for (std::optional<size_t> p = producer(t); p;
             p = producer(layer(*p).inputs.empty() ? -1 : layer(*p).inputs[0]))
        {
            if (auto const* constant = fixedConstant(layer(*p)))
            {
                std::vector<float> values = constant->weights.toFloat();
                bool const direct = layer(*p).outputs[0] == t;
                return direct || values.size() == 1 ? std::optional<std::vector<float>>(values) : std::nullopt;
            }
            if (layer(*p).type != nvinfer1::LayerType::kSHUFFLE || layer(*p).inputs.size() != 1)
            {
                return std::nullopt;
            }
        }
        return std::nullopt;
    }

    //! A quantize or dequantize layer's scaling, where its scale's extents are known: one element, or one per index
    //! of its axis.
    std::optional<Scaling> scalingOf(LayerRecord const& record) const
    {
        auto const* quantize = paramsOf<network::QuantizeParams>(record);
        auto const* dequantize = paramsOf<network::DequantizeParams>(record);
        if ((quantize == nullptr && dequantize == nullptr) || record.inputs.size() < 2 || record.outputs.size() != 1
            || !linearThroughout(mModel, record))
        {
            return std::nullopt;
        }
        Scaling scaling;
        scaling.quantized = quantize != nullptr ? quantize->toType : slotType(mModel, record, 0);
        scaling.scale = record.inputs[1];
        scaling.zeroPoint = record.inputs.size() > 2 ? record.inputs[2] : -1;
        std::optional<std::vector<int64_t>> const dims = constantDims(mModel, scaling.scale);
        if (!dims || !isQuantizedType(scaling.quantized))
        {
            return std::nullopt;
        }
        if (volume(*dims) != 1)
        {
            scaling.axis = quantize != nullptr ? quantize->axis : dequantize->axis;
        }
        return scaling;
    }

    bool zeroPointIsZero(int32_t t) const
    {
        std::optional<std::vector<float>> const values = t >= 0 ? constantValues(t) : std::vector<float>{};
        return values && std::all_of(values->begin(), values->end(), [](float v) { return v == 0.0F; });
    }

    bool sameValues(int32_t a, int32_t b) const
    {
        if (a == b)
        {
            return true;
        }
        std::optional<std::vector<float>> const first = constantValues(a);
        std::optional<std::vector<float>> const second = constantValues(b);
        return first && second && *first == *second && mModel.tensors[a].type == mModel.tensors[b].type;
    }

    bool sameScaling(Scaling const& a, Scaling const& b) const
    {
        bool const zeroPoints = (zeroPointIsZero(a.zeroPoint) && zeroPointIsZero(b.zeroPoint))
            || (a.zeroPoint >= 0 && b.zeroPoint >= 0 && sameValues(a.zeroPoint, b.zeroPoint));
        return a.quantized == b.quantized && a.axis == b.axis && sameValues(a.scale, b.scale) && zeroPoints;
    }

    bool positive(int32_t scale) const
    {
        std::optional<std::vector<float>> const values = constantValues(scale);
        return values && std::all_of(values->begin(), values->end(), [](float s) { return s > 0.0F; });
    }

    //! The dequantization writing input `i` of layer `l`, where `l` alone reads it and it converts nothing else.
    std::optional<size_t> dequantizationInto(size_t l, size_t i) const
    {
        int32_t const t = layer(l).inputs[i];
        std::optional<size_t> const dq = producer(t);
        if (!dq || paramsOf<network::DequantizeParams>(layer(*dq)) == nullptr || layer(*dq).guards != layer(l).guards
            || !readOnlyBy(t, l))
        {
            return std::nullopt;
        }
        LayerRecord const& record = layer(*dq);
        bool const types = slotType(mModel, record, 0) == mModel.tensors[record.inputs[0]].type
            && slotType(mModel, record, record.inputs.size()) == mModel.tensors[t].type;
        return types ? dq : std::nullopt;
    }

    //! A tensor like `like` (its extents) holding `type`, for the data a moved layer writes.
    int32_t addTensorLike(int32_t like, DataType type)
    {
        TensorRecord const& original = mModel.tensors[like];
        TensorRecord tensor;
        tensor.name = original.name + " (" + dataTypeName(type) + ")";
        tensor.type = type;
        tensor.dims = original.dims;
        tensor.maxBytes = original.maxBytes / static_cast<int64_t>(elementSize(original.type))
            * static_cast<int64_t>(elementSize(type));
        mModel.tensors.push_back(std::move(tensor));
        return static_cast<int32_t>(mModel.tensors.size() - 1);
    }

    //! Data-movement layer `record` moved onto quantized data: it converts nothing, and a pooling computes as the
    //! backends' quantized poolings do, comparing in FP32.
    static LayerRecord movedOntoQuantized(LayerRecord record)
    {
        record.ioTypes.clear();
        record.precision = isPooling(record) ? std::optional<DataType>(DataType::kFLOAT) : std::nullopt;
        return record;
    }

    template <typename Params>
    static LayerRecord withAxis(LayerRecord record, std::optional<int32_t> axis)
    {
        if (axis)
        {
            auto params = std::make_shared<Params>(*paramsOf<Params>(record));
            params->axis = *axis;
            record.params = std::move(params);
        }
        return record;
    }

    //! Replaces the layers `removed` by `added`, in that order where layer `at` (one of them) was.
    void replaceLayers(std::set<size_t> const& removed, size_t at, std::vector<LayerRecord> added)
    {
        std::vector<LayerRecord> layers;
        for (size_t l = 0; l < mModel.layers.size(); ++l)
        {
            if (l == at)
            {
                std::move(added.begin(), added.end(), std::back_inserter(layers));
            }
            else if (removed.count(l) == 0)
            {
                layers.push_back(std::move(mModel.layers[l]));
            }
        }
        mModel.layers = std::move(layers);
    }

    bool moveDequantizationsForward(size_t m);
    bool moveQuantizationBack(size_t m);
    bool moveScalingBack(size_t m);
    bool removeRoundTrip(size_t d);

    PlanModel& mModel;
    QuantizationPropagationRules const& mRules;
    std::vector<std::vector<size_t>> mReaders;
    std::vector<int64_t> mProducers;
    QuantizationPropagation mDone;
};

//! DQ(x) -> layer -> z becomes x -> layer -> DQ -> z: every moved input a DQ of one scaling that the layer alone reads.
bool Propagator::moveDequantizationsForward(size_t m)
{
    LayerRecord const& moving = layer(m);
    size_t const inputs = dataInputs(moving);
    std::set<size_t> dequantizations;
    std::optional<Scaling> scaling;
    std::optional<int32_t> axis;
    for (size_t i = 0; i < inputs; ++i)
    {
        std::optional<size_t> const dq = dequantizationInto(m, i);
        std::optional<Scaling> const own = dq ? scalingOf(layer(*dq)) : std::nullopt;
        if (!own || (scaling && !sameScaling(*scaling, *own)))
        {
            return false;
        }
        std::optional<int32_t> const carried = own->axis ? carriedAxis(mModel, moving, i, *own->axis) : std::nullopt;
        if (own->axis && (!carried || (axis && *axis != *carried)))
        {
            return false;
        }
        scaling = own;
        axis = carried;
        dequantizations.insert(*dq);
    }
    if (isPooling(moving) && !positive(scaling->scale))
    {
        return false;
    }
    int32_t const output = moving.outputs[0];
    LayerRecord moved = movedOntoQuantized(moving);
    for (size_t i = 0; i < inputs; ++i)
    {
        moved.inputs[i] = layer(*producer(moving.inputs[i])).inputs[0];
    }
    moved.outputs = {addTensorLike(output, scaling->quantized)};
    if (isPooling(moved) && !mRules.poolsQuantized(mModel, moved))
    {
        mModel.tensors.pop_back();
        return false;
    }
    LayerRecord dequantize = withAxis<network::DequantizeParams>(layer(*dequantizations.begin()), axis);
    dequantize.inputs[0] = moved.outputs[0];
    dequantize.outputs = {output};
    dequantizations.insert(m);
    replaceLayers(dequantizations, m, {std::move(moved), std::move(dequantize)});
    return true;
}

//! x -> layer -> Q -> z becomes x -> Q -> layer -> z (a concatenation: each input through its own Q).
bool Propagator::moveQuantizationBack(size_t m)
{
    LayerRecord const& moving = layer(m);
    int32_t const output = moving.outputs[0];
    std::vector<size_t> const& readers = mReaders[output];
    if (readers.size() != 1 || !readOnlyBy(output, readers[0]) || layer(readers[0]).inputs[0] != output)
    {
        return false;
    }
    size_t const q = readers[0];
    LayerRecord const& quantize = layer(q);
    std::optional<Scaling> const scaling = scalingOf(quantize);
    if (!scaling || paramsOf<network::QuantizeParams>(quantize) == nullptr || quantize.guards != moving.guards
        || slotType(mModel, quantize, 0) != mModel.tensors[output].type
        || slotType(mModel, quantize, quantize.inputs.size()) != mModel.tensors[quantize.outputs[0]].type
        || (isPooling(moving) && !positive(scaling->scale)))
    {
        return false;
    }
    size_t const inputs = dataInputs(moving);
    std::vector<std::optional<int32_t>> axes(inputs);
    for (size_t i = 0; i < inputs && scaling->axis; ++i)
    {
        auto const rank = static_cast<int32_t>(mModel.tensors[moving.inputs[i]].dims.size());
        for (int32_t a = 0; a < rank && !axes[i]; ++a)
        {
            axes[i] = carriedAxis(mModel, moving, i, a) == scaling->axis ? std::optional<int32_t>(a) : std::nullopt;
        }
        if (!axes[i])
        {
            return false;
        }
    }
    size_t const tensorsBefore = mModel.tensors.size();
    LayerRecord moved = movedOntoQuantized(moving);
    moved.outputs = quantize.outputs;
    std::vector<LayerRecord> added;
    for (size_t i = 0; i < inputs; ++i)
    {
        LayerRecord quantizeInput = withAxis<network::QuantizeParams>(quantize, axes[i]);
        quantizeInput.name += inputs > 1 ? " (" + std::to_string(i) + ")" : "";
        quantizeInput.inputs[0] = moving.inputs[i];
        quantizeInput.outputs = {addTensorLike(moving.inputs[i], scaling->quantized)};
        moved.inputs[i] = quantizeInput.outputs[0];
        added.push_back(std::move(quantizeInput));
    }
    if (isPooling(moved) && !mRules.poolsQuantized(mModel, moved))
    {
        mModel.tensors.resize(tensorsBefore);
        return false;
    }
    added.push_back(std::move(moved));
    replaceLayers({m, q}, q, std::move(added));
    return true;
}

//! x -> shuffle -> product by a constant of one value -> z -> Q becomes x -> product -> shuffle -> z -> Q (and the Q
//! then moves back before the shuffle): the product maps each element alone, so the shuffle moves the same values. The
//! product reads a copy of the constant shaped as x's rank (the original leaves where nothing else reads it). Only
//! where a quantization reads the product alone: elsewhere nothing would gain.
bool Propagator::moveScalingBack(size_t m)
{
    LayerRecord const& moving = layer(m);
    int32_t const output = moving.outputs[0];
    std::vector<size_t> const& readers = mReaders[output];
    if (!mRules.movesScalingsBack || moving.type != nvinfer1::LayerType::kSHUFFLE || readers.size() != 1
        || !readOnlyBy(output, readers[0]))
    {
        return false;
    }
    size_t const p = readers[0];
    LayerRecord const& product = layer(p);
    auto const* operation = paramsOf<network::ElementWiseParams>(product);
    if (operation == nullptr || operation->operation != nvinfer1::ElementWiseOperation::kPROD
        || product.inputs.size() != 2 || product.outputs.size() != 1 || product.guards != moving.guards
        || !movesInOneFloatType(product))
    {
        return false;
    }
    std::vector<size_t> const& quantizations = mReaders[product.outputs[0]];
    if (quantizations.size() != 1 || !readOnlyBy(product.outputs[0], quantizations[0])
        || paramsOf<network::QuantizeParams>(layer(quantizations[0])) == nullptr)
    {
        return false;
    }
    size_t const slot = product.inputs[0] == output ? 1 : 0;
    int32_t const factor = product.inputs[slot];
    std::optional<size_t> const constant = producer(factor);
    auto const* values = constant ? fixedConstant(layer(*constant)) : nullptr;
    if (values == nullptr || values->weights.count() != 1 || product.inputs[1 - slot] != output)
    {
        return false;
    }
    int32_t const x = moving.inputs[0];
    auto const rank = static_cast<int32_t>(mModel.tensors[x].dims.size());
    LayerRecord reshaped = layer(*constant);
    auto params = std::make_shared<network::ConstantParams>(*values);
    params->dimensions = nvinfer1::Dims{rank, {}};
    std::fill(params->dimensions.d, params->dimensions.d + rank, 1);
    reshaped.params = std::move(params);
    reshaped.name += " (rank " + std::to_string(rank) + ")";
    TensorRecord tensor = mModel.tensors[factor];
    tensor.name = reshaped.name;
    tensor.dims.assign(static_cast<size_t>(rank), constantNode(mModel, 1));
    mModel.tensors.push_back(std::move(tensor));
    reshaped.outputs = {static_cast<int32_t>(mModel.tensors.size() - 1)};

    LayerRecord scaled = product;
    scaled.inputs[slot] = reshaped.outputs[0];
    scaled.inputs[1 - slot] = x;
    scaled.outputs = {addTensorLike(x, mModel.tensors[output].type)};
    LayerRecord shuffled = moving;
    shuffled.inputs[0] = scaled.outputs[0];
    shuffled.outputs = product.outputs;
    std::set<size_t> removed{m, p};
    if (readOnlyBy(factor, p))
    {
        removed.insert(*constant);
    }
    replaceLayers(removed, m, {std::move(reshaped), std::move(scaled), std::move(shuffled)});
    return true;
}

//! DQ(x) -> Q of the same scaling: the Q's readers read x, and both layers leave.
bool Propagator::removeRoundTrip(size_t d)
{
    LayerRecord const& dequantize = layer(d);
    if (paramsOf<network::DequantizeParams>(dequantize) == nullptr || dequantize.outputs.size() != 1)
    {
        return false;
    }
    int32_t const dequantized = dequantize.outputs[0];
    std::vector<size_t> const& readers = mReaders[dequantized];
    if (readers.size() != 1 || !readOnlyBy(dequantized, readers[0]) || layer(readers[0]).inputs[0] != dequantized)
    {
        return false;
    }
    LayerRecord const& quantize = layer(readers[0]);
    std::optional<Scaling> const in = scalingOf(dequantize);
    std::optional<Scaling> const out = scalingOf(quantize);
    int32_t const requantized = quantize.outputs.empty() ? -1 : quantize.outputs[0];
    if (paramsOf<network::QuantizeParams>(quantize) == nullptr || !in || !out || !sameScaling(*in, *out)
        || !zeroPointIsZero(in->zeroPoint) || quantize.guards != dequantize.guards
        || isObserved(mModel.tensors[requantized])
        || mModel.tensors[dequantize.inputs[0]].type != mModel.tensors[requantized].type)
    {
        return false;
    }
    std::optional<std::vector<float>> const scales = constantValues(in->scale);
    for (DataType const type : {slotType(mModel, dequantize, dequantize.inputs.size()),
             mModel.tensors[dequantized].type, slotType(mModel, quantize, 0)})
    {
        if (!scales || !roundTrips(in->quantized, type, *scales))
        {
            return false;
        }
    }
    int32_t const source = dequantize.inputs[0];
    for (LayerRecord& record : mModel.layers)
    {
        std::replace(record.inputs.begin(), record.inputs.end(), requantized, source);
    }
    replaceLayers({d, readers[0]}, d, {});
    return true;
}

} // namespace

QuantizationPropagation propagateQuantization(PlanModel& model, QuantizationPropagationRules const& rules)
{
    return Propagator(model, rules).run();
}

} // namespace kiln::plan
