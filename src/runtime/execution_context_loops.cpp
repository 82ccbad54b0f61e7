// How a run walks the plan's layers, and runs its loops (plan/plan_loops.h): each loop's range of layers once per
// iteration, its boundary layers by copies the context makes through the executor. A loop's steps are small where it
// runs a recurrent network (a few products and point-wise chains an iteration), so the boundaries copy as little as
// they can: an iterator whose slice is one aligned block of the iterated tensor is placed on that block, as is a
// value the body computes for a stacked output (its layer then writes the output in place); a recurrence copies its
// next value once where no next value lies in a recurrence's memory; and a last-value output copies only in the last
// iteration where the trip count is known before the loop.
#include "runtime/execution_context.h"

#include "core/data_type.h"
#include "core/dims_text.h"
#include "network/layers/loop.h"
#include "shape/evaluate.h"

#include <device_common/element_size.h>

#include <algorithm>

namespace kiln::runtime
{
namespace
{

std::string nameOf(plan::PlanModel const& model, size_t l)
{
    return "layer \"" + model.layers[l].name + "\": ";
}

} // namespace

bool ExecutionContext::runLayers(size_t begin, size_t end, int32_t scope, cudaStream_t stream, std::string& error)
{
    auto const& model = mEngine.model();
    size_t l = begin;
    while (l < end)
    {
        int32_t const nested = mEngine.loopStartingAt(l, scope);
        if (nested >= 0)
        {
            if (!runLoop(nested, stream, error))
            {
                return false;
            }
            l = mEngine.loops()[static_cast<size_t>(nested)].end;
            continue;
        }
        std::string layerError;
        if (!step(l, stream, layerError))
        {
            error = nameOf(model, l) + layerError;
            return false;
        }
        if (!mDebugTensorsOf[l].empty() && wroteOutputs(l) && !reportDebugTensors(mDebugTensorsOf[l], stream, error))
        {
            return false;
        }
        ++l;
    }
    return true;
}

bool ExecutionContext::scalarValue(int32_t tensor, cudaStream_t stream, int64_t& value, std::string& error)
{
    plan::TensorRecord const& record = mEngine.model().tensors[static_cast<size_t>(tensor)];
    if (record.values.has_value())
    {
        shape::EvalResult const result = shape::evaluate(mEngine.dimExpr(record.values->at(0)), mBoundValues);
        if (!result.ok())
        {
            error = "the value of \"" + record.name + "\": " + result.error;
            return false;
        }
        value = *result.value;
        return true;
    }
    // On the CUDA backend the run waits here for the layers that compute it.
    value = mExecutor->readScalar(ConstTensorView(record.type, Shape{}, addressOf(tensor)), stream);
    return true;
}

bool ExecutionContext::copyWhole(int32_t from, int32_t to, cudaStream_t stream, std::string& error)
{
    auto const& tensors = mEngine.model().tensors;
    if (!checkShape(from, error) || !checkShape(to, error))
    {
        return false;
    }
    if (toShape(mShapes[from]) != toShape(mShapes[to]))
    {
        error = "\"" + tensors[from].name + "\" " + dimsText(mShapes[from]) + " must have the shape of \""
            + tensors[to].name + "\" " + dimsText(mShapes[to]) + " (a recurrence's values keep one shape)";
        return false;
    }
    mExecutor->copyTensor(
        ConstTensorView(tensors[from].type, toShape(mShapes[from]), addressOf(from), tensors[from].format),
        TensorView{tensors[to].type, toShape(mShapes[to]), addressOf(to), tensors[to].format}, stream);
    return true;
}

std::byte* ExecutionContext::sliceBlock(int32_t whole, int32_t part, int32_t axis, int64_t index) const
{
    auto const& tensors = mEngine.model().tensors;
    nvinfer1::Dims const& dims = mShapes[whole];
    if (tensors[whole].format != TensorFormat::kLINEAR || tensors[part].format != TensorFormat::kLINEAR
        || tensors[whole].type != tensors[part].type || addressOf(whole) == nullptr)
    {
        return nullptr;
    }
    for (int32_t d = 0; d < axis; ++d)
    {
        if (dims.d[d] != 1)
        {
            return nullptr; // the slice is a block per index of the axes before
        }
    }
    int64_t inner = 1;
    for (int32_t d = axis + 1; d < dims.nbDims; ++d)
    {
        inner *= dims.d[d];
    }
    auto const offset = static_cast<int64_t>(elementSize(tensors[whole].type)) * inner * index;
    // Kernels may take the arena's alignment for granted (vector loads, the GEMM algorithms chosen at build time).
    return offset % plan::kArenaAlignment == 0 ? addressOf(whole) + offset : nullptr;
}

std::byte* ExecutionContext::ownMemory(int32_t t) const
{
    int64_t const offset = mEngine.model().tensors[t].arenaOffset;
    return offset >= 0 ? mExecutor->contextMemory() + offset : addressOf(t);
}

bool ExecutionContext::copySlice(
    int32_t whole, int32_t part, int32_t axis, int64_t index, bool intoWhole, cudaStream_t stream, std::string& error)
{
    auto const& tensors = mEngine.model().tensors;
    if (!checkShape(whole, error) || !checkShape(part, error))
    {
        return false;
    }
    nvinfer1::Dims const& dims = mShapes[whole];
    if (tensors[whole].format != TensorFormat::kLINEAR || tensors[part].format != TensorFormat::kLINEAR)
    {
        error = "a loop's iterators and stacked outputs take row-major tensors only";
        return false;
    }
    int64_t outer = 1;
    int64_t inner = 1;
    for (int32_t d = 0; d < dims.nbDims; ++d)
    {
        (d < axis ? outer : inner) *= d == axis ? 1 : dims.d[d];
    }
    int64_t const extent = dims.d[axis];
    size_t const wholeSize = elementSize(tensors[whole].type);
    size_t const partSize = elementSize(tensors[part].type);
    auto* wholeData = addressOf(whole);
    auto* partData = addressOf(part);
    for (int64_t o = 0; o < outer; ++o)
    {
        auto const wholeAt = static_cast<size_t>((o * extent + index) * inner);
        auto const partAt = static_cast<size_t>(o * inner);
        ConstTensorView const wholeView(tensors[whole].type, Shape{inner}, wholeData + wholeAt * wholeSize);
        ConstTensorView const partView(tensors[part].type, Shape{inner}, partData + partAt * partSize);
        if (intoWhole)
        {
            mExecutor->copyTensor(
                partView, TensorView{tensors[whole].type, Shape{inner}, wholeData + wholeAt * wholeSize}, stream);
        }
        else
        {
            mExecutor->copyTensor(
                wholeView, TensorView{tensors[part].type, Shape{inner}, partData + partAt * partSize}, stream);
        }
    }
    return true;
}

bool ExecutionContext::runBoundary(
    size_t l, int64_t index, int64_t count, bool mayBeLast, bool& stop, cudaStream_t stream, std::string& error)
{
    plan::LayerRecord const& layer = mEngine.model().layers[l];
    mRan[l] = true;
    if (auto const* limit = dynamic_cast<network::TripLimitParams const*>(layer.params.get()))
    {
        int64_t holds = 1;
        if (limit->kind == nvinfer1::TripLimit::kWHILE && !scalarValue(layer.inputs[0], stream, holds, error))
        {
            return false;
        }
        stop = holds == 0;
        return true;
    }
    if (auto const* iterator = dynamic_cast<network::IteratorParams const*>(layer.params.get()))
    {
        int64_t const extent = mShapes[layer.inputs[0]].d[iterator->axis];
        int64_t const at = iterator->reverse ? count - 1 - index : index;
        if (iterator->reverse && count < 0)
        {
            error = "a reverse iterator needs its loop's kCOUNT trip limit";
            return false;
        }
        if (at < 0 || at >= extent)
        {
            error = "iteration " + std::to_string(index) + " reads index " + std::to_string(at) + " of axis "
                + std::to_string(iterator->axis) + ", whose extent is " + std::to_string(extent);
            return false;
        }
        if (!checkShape(layer.inputs[0], error) || !checkShape(layer.outputs[0], error))
        {
            return false;
        }
        if (std::byte* block = sliceBlock(layer.inputs[0], layer.outputs[0], iterator->axis, at); block != nullptr)
        {
            placeTensor(layer.outputs[0], block); // the iterated tensor is not written while the loop runs
            return true;
        }
        placeTensor(layer.outputs[0], ownMemory(layer.outputs[0])); // where an earlier run placed it on a block
        return copySlice(layer.inputs[0], layer.outputs[0], iterator->axis, at, false, stream, error);
    }
    if (auto const* output = dynamic_cast<network::LoopOutputParams const*>(layer.params.get()))
    {
        if (!output->stacks())
        {
            return !mayBeLast || copyWhole(layer.inputs[0], layer.outputs[0], stream, error);
        }
        int64_t const length = mShapes[layer.outputs[0]].d[output->axis];
        if (index >= length)
        {
            error = "the loop runs more iterations than the length of its output (" + std::to_string(length) + ")";
            return false;
        }
        int64_t const at = output->kind == nvinfer1::LoopOutput::kREVERSE ? length - 1 - index : index;
        if (addressOf(layer.inputs[0]) == sliceBlock(layer.outputs[0], layer.inputs[0], output->axis, at))
        {
            return true; // its layer wrote it there (placeStackedValues)
        }
        return copySlice(layer.outputs[0], layer.inputs[0], output->axis, at, true, stream, error);
    }
    return true; // a recurrence: set before the first iteration, updated after each
}

bool ExecutionContext::runIteration(
    int32_t k, int64_t index, int64_t count, bool& stop, cudaStream_t stream, std::string& error)
{
    auto const& model = mEngine.model();
    plan::LoopRange const& loop = mEngine.loops()[static_cast<size_t>(k)];
    // Without a kWHILE limit, the kCOUNT limit says which iteration is the last.
    bool const mayBeLast = loop.whileLimit >= 0 || count < 0 || index == count - 1;
    for (size_t l = loop.begin; l < loop.end; ++l)
    {
        for (int32_t t : model.layers[l].outputs)
        {
            mConditions[static_cast<size_t>(t)] = -1; // conditions computed in the loop change with each iteration
        }
    }
    placeStackedValues(loop, index);
    size_t l = loop.begin;
    while (l < loop.end)
    {
        int32_t const nested = mEngine.loopStartingAt(l, k);
        if (nested >= 0)
        {
            if (!runLoop(nested, stream, error))
            {
                return false;
            }
            l = mEngine.loops()[static_cast<size_t>(nested)].end;
            continue;
        }
        if (mPrepared[l].work != PreparedLayer::Work::kLOOP_BOUNDARY)
        {
            if (!runLayers(l, l + 1, k, stream, error))
            {
                return false;
            }
        }
        else if (!runBoundary(l, index, count, mayBeLast, stop, stream, error))
        {
            error = nameOf(model, l) + error;
            return false;
        }
        if (stop)
        {
            return true;
        }
        ++l;
    }
    return updateRecurrences(loop, stream, error);
}

bool ExecutionContext::computedInBody(plan::LoopRange const& loop, int32_t t) const
{
    plan::TensorRecord const& record = mEngine.model().tensors[t];
    if (record.arenaOffset < 0 || record.viewOf >= 0)
    {
        return false;
    }
    return std::any_of(mViewsOf[t].begin(), mViewsOf[t].end(), [&](ViewSlot const& slot) {
        PreparedLayer const& writer = mPrepared[slot.layer];
        return slot.output && slot.layer >= loop.begin && slot.layer < loop.end
            && writer.work == PreparedLayer::Work::kRUN && !writer.guarded;
    });
}

void ExecutionContext::placeStackedValues(plan::LoopRange const& loop, int64_t index)
{
    auto const& model = mEngine.model();
    for (size_t o : loop.outputs)
    {
        plan::LayerRecord const& layer = model.layers[o];
        auto const* output = dynamic_cast<network::LoopOutputParams const*>(layer.params.get());
        int32_t const value = layer.inputs[0];
        if (!output->stacks() || !computedInBody(loop, value) || mShapes[layer.outputs[0]].nbDims <= output->axis)
        {
            continue;
        }
        int64_t const length = mShapes[layer.outputs[0]].d[output->axis];
        int64_t const at = output->kind == nvinfer1::LoopOutput::kREVERSE ? length - 1 - index : index;
        std::byte* block = index < length ? sliceBlock(layer.outputs[0], value, output->axis, at) : nullptr;
        // A value two outputs stack is placed on the last one's block; the other copies it from there.
        placeTensor(value, block != nullptr ? block : ownMemory(value));
    }
}

bool ExecutionContext::recurrencesReadApart(plan::LoopRange const& loop) const
{
    auto const& model = mEngine.model();
    auto const bytesOf
        = [&](int32_t t) { return static_cast<int64_t>(elementSize(model.tensors[t].type)) * elementsOf(mShapes[t]); };
    for (size_t r : loop.recurrences)
    {
        int32_t const next = model.layers[r].inputs[1];
        std::byte const* const nextBegin = addressOf(next);
        for (size_t s : loop.recurrences)
        {
            int32_t const value = model.layers[s].outputs[0];
            std::byte const* const valueBegin = addressOf(value);
            if (nextBegin < valueBegin + bytesOf(value) && valueBegin < nextBegin + bytesOf(next))
            {
                return false;
            }
        }
    }
    return true;
}

bool ExecutionContext::updateRecurrences(plan::LoopRange const& loop, cudaStream_t stream, std::string& error)
{
    auto const& model = mEngine.model();
    // Where a next value lies in a recurrence's memory (a swap, or a view of one), every next value goes to its stage
    // first, so that recurrences reading one another's values update together.
    bool const direct = recurrencesReadApart(loop);
    for (int32_t stage = direct ? 1 : 0; stage < 2; ++stage)
    {
        for (size_t r : loop.recurrences)
        {
            plan::LayerRecord const& layer = model.layers[r];
            int32_t const from = stage == 0 || direct ? layer.inputs[1] : layer.outputs[1];
            int32_t const to = stage == 0 ? layer.outputs[1] : layer.outputs[0];
            if (!copyWhole(from, to, stream, error))
            {
                error = nameOf(model, r) + error;
                return false;
            }
        }
    }
    return true;
}

bool ExecutionContext::runLoop(int32_t k, cudaStream_t stream, std::string& error)
{
    auto const& model = mEngine.model();
    plan::LoopRange const& loop = mEngine.loops()[static_cast<size_t>(k)];
    if (!model.layers[loop.begin].guards.empty())
    {
        bool hold = true;
        if (!guardsHold(loop.begin, stream, hold, error))
        {
            return false;
        }
        if (!hold)
        {
            return true; // the loop belongs to the side of a conditional that was not taken
        }
    }
    int64_t count = -1; // no kCOUNT limit: until the kWHILE condition is false
    if (loop.countLimit >= 0)
    {
        if (!scalarValue(model.layers[loop.countLimit].inputs[0], stream, count, error))
        {
            return false;
        }
        count = std::max<int64_t>(count, 0);
    }
    for (size_t o : loop.outputs)
    {
        int32_t const t = model.layers[o].outputs[0];
        if (!checkShape(t, error))
        {
            return false;
        }
        mExecutor->zeroBytes(addressOf(t), elementSize(model.tensors[t].type) * elementsOf(mShapes[t]), stream);
    }
    for (size_t r : loop.recurrences)
    {
        if (!copyWhole(model.layers[r].inputs[0], model.layers[r].outputs[0], stream, error))
        {
            error = nameOf(model, r) + error;
            return false;
        }
    }
    bool stop = false;
    for (int64_t index = 0; (count < 0 || index < count) && !stop; ++index)
    {
        if (!runIteration(k, index, count, stop, stream, error))
        {
            return false;
        }
    }
    return true;
}

} // namespace kiln::runtime
