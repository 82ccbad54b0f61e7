// The shapes of a context's tensors for a run: every shape once the inputs' shapes are known, then, each time a layer
// writes a size tensor, those of the tensors whose extents depend on it. A model with many data-dependent extents
// (a detector's per-class filtering learns hundreds in one run) thus evaluates each shape about once a run, rather
// than every shape once for each extent it learns.
#include "runtime/execution_context.h"

#include "core/checked_size.h"
#include "core/dims_text.h"

#include <algorithm>

namespace kiln::runtime
{

bool ExecutionContext::computeShapes(std::vector<nvinfer1::Dims>& shapes, std::string& error) const
{
    shape::SymbolValues values;
    return computeShapes(shapes, values, error);
}

bool ExecutionContext::computeShapes(
    std::vector<nvinfer1::Dims>& shapes, shape::SymbolValues& values, std::string& error) const
{
    std::vector<nvinfer1::Dims> capacities(mEngine.model().tensors.size());
    std::vector<std::string> deferred(capacities.size());
    shapes.assign(capacities.size(), nvinfer1::Dims{});
    if (!bindRunTimeValues(values, error))
    {
        return false;
    }
    shape::Evaluator evaluator(values);
    shape::Evaluator upperBounds(values, shape::SizeTensorValue::kUPPER);
    for (size_t t = 0; t < shapes.size(); ++t)
    {
        if (!evaluateShape(
                static_cast<int32_t>(t), evaluator, upperBounds, shapes[t], capacities[t], deferred[t], error))
        {
            return false;
        }
    }
    return true;
}

bool ExecutionContext::evaluateShape(int32_t t, shape::Evaluator& evaluator, shape::Evaluator& upperBounds,
    nvinfer1::Dims& dims, nvinfer1::Dims& capacity, std::string& deferred, std::string& error) const
{
    auto const& record = mEngine.model().tensors[static_cast<size_t>(t)];
    dims.nbDims = static_cast<int32_t>(record.dims.size());
    capacity.nbDims = dims.nbDims;
    deferred.clear();
    for (int32_t axis = 0; axis < dims.nbDims; ++axis)
    {
        shape::Expr const& expr = mEngine.dimExpr(record.dims[axis]);
        shape::EvalResult extent = evaluator.evaluate(expr);
        bool const waits = !extent.ok() && mEngine.isDataDependent(t);
        if (waits)
        {
            extent = upperBounds.evaluate(expr); // its layer has not run: the memory holds the upper bound
        }
        if (!extent.ok() || *extent.value < 0)
        {
            error = "dimension " + std::to_string(axis) + " of \"" + record.name
                + "\": " + (extent.ok() ? "negative" : extent.error);
            if (!mEngine.isConditional(t))
            {
                return false;
            }
            deferred = std::move(error); // its layer may not run
            std::fill(dims.d, dims.d + dims.nbDims, -1);
            capacity = dims;
            return true;
        }
        dims.d[axis] = waits ? -1 : *extent.value;
        capacity.d[axis] = *extent.value;
    }
    // Extents follow the inputs' shapes and values, which the application (or a model's data) sets: a size that
    // wraps would pass the comparison with the planned size below and let the layer write past its buffer.
    std::optional<int64_t> const elements = checkedElementCount(capacity.d, capacity.d + capacity.nbDims);
    std::optional<size_t> const bytes
        = elements ? checkedByteSize(*elements, std::max<size_t>(elementSize(record.type), 1)) : std::nullopt;
    if (!bytes)
    {
        error = "\"" + record.name + "\" would have shape " + dimsText(capacity)
            + ": more elements or bytes than a 64-bit size counts";
        return false;
    }
    if (mHoldsNoElement[static_cast<size_t>(t)] && *elements > 0)
    {
        error = "\"" + record.name + "\" would have shape " + dimsText(capacity)
            + ", but the plan gives it no memory (it holds no element at any shape the plan was built for)";
        return false;
    }
    if (record.arenaOffset >= 0 && static_cast<int64_t>(*bytes) > record.maxBytes)
    {
        error = "\"" + record.name + "\" needs more memory than planned for optimization profile "
            + std::to_string(mProfile) + "; are the input shapes within the profile?";
        return false;
    }
    return true;
}

bool ExecutionContext::bindRunTimeValues(shape::SymbolValues& values, std::string& error) const
{
    if (!allInputDimensionsSpecified())
    {
        error = "not every input shape is known; call setInputShape for each input with runtime dimensions";
        return false;
    }
    auto const& model = mEngine.model();
    std::vector<std::vector<int64_t>> shapeInputValues(model.tensors.size());
    for (int32_t io : model.ioTensors)
    {
        if (!mEngine.isShapeInput(io))
        {
            continue;
        }
        auto const& record = model.tensors[io];
        if (!mAddresses[io].has_value() || *mAddresses[io] == nullptr)
        {
            error = "\"" + record.name
                + "\" is a shape tensor: give the host memory holding its values with "
                  "setInputTensorAddress (or setTensorAddress) first";
            return false;
        }
        void const* data = *mAddresses[io];
        for (size_t v = 0; v < record.values->size(); ++v)
        {
            shapeInputValues[io].push_back(record.type == nvinfer1::DataType::kINT32
                    ? static_cast<int32_t const*>(data)[v]
                    : static_cast<int64_t const*>(data)[v]);
        }
    }
    mEngine.bindSymbols(mInputShapes, shapeInputValues, values);
    return true;
}

bool ExecutionContext::resolveShapes(std::string& error)
{
    // Shape-tensor inputs are read from host memory every time: their values may change without a call.
    if (!mShapesValid || mHasShapeInputs)
    {
        mBoundValues = shape::SymbolValues{};
        mShapesValid = bindRunTimeValues(mBoundValues, error) && updateShapes(error);
    }
    return mShapesValid;
}

bool ExecutionContext::updateShapes(std::string& error)
{
    // The bound values may have changed in any way: nothing evaluated before holds.
    mShapeEvaluator.reset();
    mUpperBoundEvaluator.reset();
    mValueEvaluator.reset();
    ++mBoundValuesVersion; // shape values evaluated on the host are stale
    size_t const tensors = mEngine.model().tensors.size();
    mShapes.resize(tensors);
    mCapacities.resize(tensors);
    mShapeErrors.resize(tensors);
    for (size_t t = 0; t < tensors; ++t)
    {
        if (!evaluateShape(static_cast<int32_t>(t), mShapeEvaluator, mUpperBoundEvaluator, mShapes[t], mCapacities[t],
                mShapeErrors[t], error))
        {
            mShapesValid = false; // the shapes are half written: the next use computes them all again
            return false;
        }
    }
    for (PreparedAlias& alias : mAliases)
    {
        placeAlias(alias);
    }
    for (size_t l = 0; l < mPrepared.size(); ++l)
    {
        refreshViewShapes(l);
    }
    return true;
}

bool ExecutionContext::updateShapesLearning(std::vector<int32_t> const& symbols, std::string& error)
{
    // Binding a symbol that had no value leaves every value computed without it as it was: the evaluators keep their
    // caches, and only the shapes that depend on the new values are evaluated again. Views stay where they are: no
    // view's place or shape depends on a size tensor (the plan's validation refuses one).
    ++mBoundValuesVersion; // shape values evaluated on the host are evaluated again (from the cache where they can)
    for (int32_t s : symbols)
    {
        for (int32_t t : mEngine.tensorsShapedBy(s))
        {
            if (!evaluateShape(
                    t, mShapeEvaluator, mUpperBoundEvaluator, mShapes[t], mCapacities[t], mShapeErrors[t], error))
            {
                mShapesValid = false;
                return false;
            }
            for (ViewSlot const& slot : mViewsOf[t])
            {
                refreshViewShapes(slot.layer);
            }
        }
    }
    return true;
}

void ExecutionContext::placeAlias(PreparedAlias& alias)
{
    int64_t const before = alias.offsetBytes;
    if (std::string why = locateAlias(alias); !why.empty())
    {
        // As the slice's kernel would, the run fails when a layer reads it (a conditional's may not run).
        mShapeErrors[alias.tensor] = std::move(why);
        alias.offsetBytes = 0;
    }
    if (mAddressesPrepared && alias.offsetBytes != before)
    {
        std::byte* const base = mTensorAddresses[mEngine.model().tensors[alias.tensor].viewOf];
        setViewAddresses(alias.tensor, base != nullptr ? base + alias.offsetBytes : nullptr);
    }
}

std::string ExecutionContext::locateAlias(PreparedAlias& alias)
{
    plan::PlanModel const& model = mEngine.model();
    plan::TensorRecord const& record = model.tensors[alias.tensor];
    int32_t const viewed = record.viewOf;
    for (int32_t t : {alias.tensor, viewed})
    {
        if (!mShapeErrors[t].empty())
        {
            return mShapeErrors[t];
        }
    }
    alias.offsetBytes = 0;
    int64_t const elements = elementsOf(mShapes[alias.tensor]);
    if (elements == 0)
    {
        return {}; // reads nothing, wherever it starts
    }
    // Nothing below allocates unless it fails: shape inputs make every run place the views again.
    auto const layer = [&] { return "layer \"" + model.layers[alias.layer].name + "\": "; };
    shape::EvalResult const offset = mValueEvaluator.evaluate(mEngine.dimExpr(record.viewOffset));
    shape::EvalResult const check = record.viewCheck >= 0 ? mValueEvaluator.evaluate(mEngine.dimExpr(record.viewCheck))
                                                          : shape::EvalResult{int64_t{0}, {}};
    if (!offset.ok() || !check.ok())
    {
        return layer() + "where \"" + record.name + "\" starts: " + (offset.ok() ? check.error : offset.error);
    }
    if (*check.value != 0 || *offset.value < 0 || *offset.value > elementsOf(mShapes[viewed]) - elements)
    {
        return layer() + "\"" + record.name + "\" " + dimsText(mShapes[alias.tensor]) + " does not lie inside \""
            + model.tensors[viewed].name + "\" " + dimsText(mShapes[viewed])
            + " for these shapes (a slice's start and size must keep it inside its input)";
    }
    alias.offsetBytes = *offset.value * static_cast<int64_t>(elementSize(record.type));
    return {};
}

void ExecutionContext::refreshViewShapes(size_t l)
{
    plan::LayerRecord const& layer = mEngine.model().layers[l];
    PreparedLayer& prepared = mPrepared[l];
    prepared.unknownShape = -1;
    // Inputs, then outputs: the first tensor without a shape is the one a run reports.
    for (size_t i = 0; i < layer.inputs.size(); ++i)
    {
        int32_t const t = layer.inputs[i];
        if (t >= 0)
        {
            nvinfer1::Dims const& dims = mShapes[t];
            prepared.inputs[i].shape.assign(dims.d, dims.d + dims.nbDims); // same rank: no allocation
            if (prepared.unknownShape < 0 && !mShapeErrors[t].empty())
            {
                prepared.unknownShape = t;
            }
        }
    }
    for (size_t o = 0; o < layer.outputs.size(); ++o)
    {
        int32_t const t = layer.outputs[o];
        nvinfer1::Dims const& dims = mCapacities[t]; // a data-dependent output is written into its capacity
        prepared.outputs[o].shape.assign(dims.d, dims.d + dims.nbDims);
        if (prepared.unknownShape < 0 && !mShapeErrors[t].empty())
        {
            prepared.unknownShape = t;
        }
    }
}

} // namespace kiln::runtime
