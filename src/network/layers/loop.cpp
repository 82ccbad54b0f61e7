#include "network/layers/loop.h"

#include "core/data_type.h"
#include "core/logging.h"
#include "network/add_layer.h"
#include "shape/equality.h"

namespace kiln::network
{
namespace
{

bool isIndexScalar(TensorFacts const& facts)
{
    return facts.dims.nbDims == 0
        && (facts.type == nvinfer1::DataType::kINT32 || facts.type == nvinfer1::DataType::kINT64);
}

std::string describe(TensorFacts const& facts)
{
    return dataTypeName(facts.type) + " of rank " + std::to_string(facts.dims.nbDims);
}

} // namespace

bool RecurrenceParams::infer(InferenceContext& ctx) const
{
    if (ctx.nbInputs() < 1 || !ctx.hasInput(0))
    {
        return ctx.fail("a recurrence takes its initial value");
    }
    TensorFacts const& initial = ctx.input(0);
    if (ctx.hasInput(1))
    {
        // Only plans hold the next value as an input (the network keeps the back edge out of its order). A plan
        // built in a reduced precision may carry the value in another floating-point type than the initial value's
        // (builder/precision.cpp): the copies that set and update the value convert.
        TensorFacts const& next = ctx.input(1);
        bool const typesAgree = next.type == initial.type || (isFloatType(next.type) && isFloatType(initial.type));
        if (!typesAgree || next.dims.nbDims != initial.dims.nbDims)
        {
            return ctx.fail("a recurrence's next value must have its initial value's type (or both be floating "
                            "point) and rank, not "
                + describe(next) + " (next) and " + describe(initial) + " (initial)");
        }
        return ctx.setOutput(0, next.type, initial.dims) && ctx.setOutput(1, next.type, initial.dims);
    }
    return ctx.setOutput(0, initial.type, initial.dims) && ctx.setOutput(1, initial.type, initial.dims);
}

bool TripLimitParams::infer(InferenceContext& ctx) const
{
    if (ctx.nbInputs() != 1 || !ctx.hasInput(0))
    {
        return ctx.fail("a trip limit takes one input");
    }
    TensorFacts const& limit = ctx.input(0);
    if (kind == nvinfer1::TripLimit::kCOUNT && !isIndexScalar(limit))
    {
        return ctx.fail("a kCOUNT trip limit must be a 0-D INT32 or INT64 tensor, not " + describe(limit));
    }
    if (kind == nvinfer1::TripLimit::kWHILE && (limit.type != nvinfer1::DataType::kBOOL || limit.dims.nbDims != 0))
    {
        return ctx.fail("a kWHILE trip limit must be a 0-D BOOL tensor, not " + describe(limit));
    }
    return true;
}

bool IteratorParams::infer(InferenceContext& ctx) const
{
    if (ctx.nbInputs() != 1 || !ctx.hasInput(0))
    {
        return ctx.fail("an iterator takes one input");
    }
    int32_t const rank = ctx.rank(0);
    if (axis < 0 || axis >= rank)
    {
        return ctx.fail("an iterator's axis must lie in [0, " + std::to_string(rank) + ") for its input of rank "
            + std::to_string(rank) + ", not " + std::to_string(axis));
    }
    std::vector<Dim> dims;
    for (int32_t d = 0; d < rank; ++d)
    {
        if (d != axis)
        {
            dims.push_back(ctx.dim(0, d));
        }
    }
    return ctx.setOutput(0, ctx.input(0).type, dims);
}

bool LoopOutputParams::infer(InferenceContext& ctx) const
{
    if (ctx.nbInputs() < 1 || !ctx.hasInput(0))
    {
        return ctx.fail("a loop output takes the tensor it gives out of the loop");
    }
    TensorFacts const& value = ctx.input(0);
    if (!stacks())
    {
        return ctx.setOutput(0, value.type, value.dims);
    }
    int32_t const rank = value.dims.nbDims;
    if (axis < 0 || axis > rank)
    {
        return ctx.fail("a concatenating loop output's axis must lie in [0, " + std::to_string(rank)
            + "] for its input of rank " + std::to_string(rank) + ", not " + std::to_string(axis));
    }
    Dim length = ctx.constant(1); // provisional until setInput(1) gives the length
    if (ctx.hasInput(1))
    {
        TensorFacts const& given = ctx.input(1);
        if (!isIndexScalar(given) || !given.values.has_value())
        {
            return ctx.fail("a concatenating loop output's length (input 1) must be a 0-D INT32 or INT64 shape tensor "
                            "(its value known before the network runs), not "
                + describe(given) + (given.values.has_value() ? "" : " computed at run time"));
        }
        length = Dim(ctx.builder(), given.values->at(0));
    }
    else if (ctx.building())
    {
        return ctx.fail("a concatenating loop output needs its length: call setInput(1, length)");
    }
    std::vector<Dim> dims;
    for (int32_t d = 0; d <= rank; ++d)
    {
        if (d == axis)
        {
            dims.push_back(length);
        }
        if (d < rank)
        {
            dims.push_back(ctx.dim(0, d));
        }
    }
    return ctx.setOutput(0, value.type, dims);
}

template <typename Api, typename Params>
nvinfer1::ILoop* LoopBoundaryLayer<Api, Params>::getLoop() const noexcept
{
    return &mLoop;
}

template class LoopBoundaryLayer<nvinfer1::IRecurrenceLayer, RecurrenceParams>;
template class LoopBoundaryLayer<nvinfer1::ITripLimitLayer, TripLimitParams>;
template class LoopBoundaryLayer<nvinfer1::IIteratorLayer, IteratorParams>;
template class LoopBoundaryLayer<nvinfer1::ILoopOutputLayer, LoopOutputParams>;

nvinfer1::ITensor* RecurrenceLayer::getInput(int32_t index) const noexcept
{
    return index == 0 ? inputs()[0] : index == 1 ? mNext : nullptr;
}

void RecurrenceLayer::setInput(int32_t index, nvinfer1::ITensor& tensor) noexcept
{
    if (index == 0)
    {
        LayerBase::setInput(index, tensor);
        return;
    }
    if (index != 1)
    {
        logError("IRecurrenceLayer::setInput on layer \"" + name() + "\": input index " + std::to_string(index)
            + " is out of range (0: the initial value, 1: the next value)");
        return;
    }
    if (!loop().network().owns(&tensor))
    {
        logError("IRecurrenceLayer::setInput on layer \"" + name() + "\": tensor \"" + std::string(tensor.getName())
            + "\" does not belong to this network");
        return;
    }
    // The next value is read at the end of each iteration; the builder checks it against the initial value.
    mNext = static_cast<Tensor*>(&tensor);
}

nvinfer1::IRecurrenceLayer* Loop::addRecurrence(nvinfer1::ITensor& initialValue) noexcept
{
    RecurrenceParams params;
    params.loop = mNumber;
    return mNetwork.addLayer<RecurrenceLayer>("Recurrence", {&initialValue}, params, 1, 1, *this);
}

nvinfer1::ITripLimitLayer* Loop::addTripLimit(nvinfer1::ITensor& tensor, nvinfer1::TripLimit limit) noexcept
{
    if (static_cast<int32_t>(limit) < 0 || static_cast<int32_t>(limit) >= nvinfer1::EnumMax<nvinfer1::TripLimit>())
    {
        logError("ILoop::addTripLimit: " + std::to_string(static_cast<int32_t>(limit)) + " is no TripLimit");
        return nullptr;
    }
    bool& taken = limit == nvinfer1::TripLimit::kCOUNT ? mHasCount : mHasWhile;
    if (taken)
    {
        logError(std::string("ILoop::addTripLimit: the loop already has a ")
            + (limit == nvinfer1::TripLimit::kCOUNT ? "kCOUNT" : "kWHILE") + " trip limit (at most one of each)");
        return nullptr;
    }
    TripLimitParams params;
    params.loop = mNumber;
    params.kind = limit;
    auto* layer = mNetwork.addLayer<TripLimitLayer>("TripLimit", {&tensor}, params, 1, 1, *this);
    taken = layer != nullptr;
    return layer;
}

nvinfer1::IIteratorLayer* Loop::addIterator(nvinfer1::ITensor& tensor, int32_t axis, bool reverse) noexcept
{
    IteratorParams params;
    params.loop = mNumber;
    params.axis = axis;
    params.reverse = reverse;
    return mNetwork.addLayer<IteratorLayer>("Iterator", {&tensor}, params, 1, 1, *this);
}

nvinfer1::ILoopOutputLayer* Loop::addLoopOutput(
    nvinfer1::ITensor& tensor, nvinfer1::LoopOutput outputKind, int32_t axis) noexcept
{
    if (static_cast<int32_t>(outputKind) < 0
        || static_cast<int32_t>(outputKind) >= nvinfer1::EnumMax<nvinfer1::LoopOutput>())
    {
        logError("ILoop::addLoopOutput: " + std::to_string(static_cast<int32_t>(outputKind)) + " is no LoopOutput");
        return nullptr;
    }
    LoopOutputParams params;
    params.loop = mNumber;
    params.kind = outputKind;
    params.axis = axis;
    return mNetwork.addLayer<LoopOutputLayer>("LoopOutput", {&tensor}, params, 1, 2, *this);
}

nvinfer1::ILoop* Network::addLoop() noexcept
{
    mLoops.push_back(std::make_unique<Loop>(*this, static_cast<int32_t>(mLoops.size())));
    return mLoops.back().get();
}

} // namespace kiln::network
