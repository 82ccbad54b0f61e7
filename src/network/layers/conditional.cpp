#include "network/layers/conditional.h"

#include "core/data_type.h"
#include "core/logging.h"
#include "network/add_layer.h"
#include "shape/equality.h"

namespace kiln::network
{
namespace
{

//! Whether `input` is a usable condition: a 0-D BOOL tensor. Else `why` says what it is.
bool isCondition(TensorFacts const& input, std::string& why)
{
    if (input.type == nvinfer1::DataType::kBOOL && input.dims.nbDims == 0)
    {
        return true;
    }
    why = "a conditional's condition must be a 0-D BOOL tensor, not " + dataTypeName(input.type) + " of rank "
        + std::to_string(input.dims.nbDims);
    return false;
}

bool sameValues(TensorFacts const& a, TensorFacts const& b)
{
    if (!a.values || !b.values || a.values->size() != b.values->size())
    {
        return false;
    }
    for (size_t v = 0; v < a.values->size(); ++v)
    {
        if (!shape::structurallyEqual(*(*a.values)[v], *(*b.values)[v]))
        {
            return false;
        }
    }
    return true;
}

} // namespace

bool ConditionParams::infer(InferenceContext& ctx) const
{
    std::string why;
    if (ctx.nbInputs() != 1 || !ctx.hasInput(0))
    {
        return ctx.fail("a condition layer takes one input");
    }
    return isCondition(ctx.input(0), why) || ctx.fail(why);
}

bool ConditionalOutputParams::infer(InferenceContext& ctx) const
{
    if (ctx.nbInputs() < 2 || !ctx.hasInput(0) || !ctx.hasInput(1))
    {
        return ctx.fail("a conditional output takes the true branch's tensor and the false branch's");
    }
    std::string why;
    if (ctx.hasInput(2) && !isCondition(ctx.input(2), why))
    {
        return ctx.fail(why);
    }
    if (!ctx.hasInput(2) && ctx.building())
    {
        return ctx.fail("the conditional has no condition: call IIfConditional::setCondition");
    }
    TensorFacts const& whenTrue = ctx.input(0);
    TensorFacts const& whenFalse = ctx.input(1);
    if (whenTrue.type != whenFalse.type)
    {
        return ctx.fail("the branches' tensors must have one type, not " + dataTypeName(whenTrue.type) + " (true) and "
            + dataTypeName(whenFalse.type) + " (false)");
    }
    if (whenTrue.dims.nbDims != rank || whenFalse.dims.nbDims != rank)
    {
        return ctx.fail("the branches' tensors must have one rank, not " + std::to_string(whenTrue.dims.nbDims)
            + " (true) and " + std::to_string(whenFalse.dims.nbDims) + " (false)");
    }
    std::vector<Dim> dims;
    for (int32_t axis = 0; axis < rank; ++axis)
    {
        Dim const extent = ctx.dim(0, axis);
        Dim const other = ctx.dim(1, axis);
        if (shape::structurallyEqual(*extent.get(), *other.get()))
        {
            dims.push_back(extent);
        }
        else
        {
            // Known once the conditional has run; memory is planned for the larger branch.
            Dim const upper = extent.max(other);
            dims.emplace_back(ctx.builder(), ctx.builder().declareSizeTensor(1 + axis, *upper.get(), *upper.get()));
        }
        if (!ctx.setOutput(1 + axis, nvinfer1::DataType::kINT64, std::vector<Dim>{}))
        {
            return false;
        }
    }
    if (!ctx.setOutput(0, whenTrue.type, dims))
    {
        return false;
    }
    if (sameValues(whenTrue, whenFalse))
    {
        ctx.output(0).values = whenTrue.values;
    }
    return true;
}

template <typename Api, typename Params>
nvinfer1::IIfConditional* ConditionalBoundary<Api, Params>::getConditional() const noexcept
{
    return &mConditional;
}

template class ConditionalBoundary<nvinfer1::IConditionLayer, ConditionParams>;
template class ConditionalBoundary<nvinfer1::IIfConditionalInputLayer, IdentityParams>;
template class ConditionalBoundary<nvinfer1::IIfConditionalOutputLayer, ConditionalOutputParams>;

nvinfer1::IConditionLayer* IfConditional::setCondition(nvinfer1::ITensor& condition) noexcept
{
    if (mCondition != nullptr)
    {
        logError(
            "IIfConditional::setCondition: the conditional already has its condition (\"" + mCondition->name() + "\")");
        return nullptr;
    }
    auto* layer = mNetwork.addLayer<ConditionLayer>("Condition", {&condition}, ConditionParams{}, 1, 1, *this);
    if (layer == nullptr)
    {
        return nullptr;
    }
    mCondition = static_cast<Tensor*>(&condition);
    for (ConditionalOutputLayer* output : mOutputs)
    {
        output->attachCondition(*mCondition);
    }
    return layer;
}

nvinfer1::IIfConditionalOutputLayer* IfConditional::addOutput(
    nvinfer1::ITensor& trueSubgraphOutput, nvinfer1::ITensor& falseSubgraphOutput) noexcept
{
    ConditionalOutputParams params;
    params.rank = trueSubgraphOutput.getDimensions().nbDims;
    std::vector<nvinfer1::ITensor*> inputs{&trueSubgraphOutput, &falseSubgraphOutput};
    if (mCondition != nullptr)
    {
        inputs.push_back(mCondition);
    }
    auto* layer = mNetwork.addLayer<ConditionalOutputLayer>("ConditionalOutput", inputs, params, 2, 3, *this);
    if (layer != nullptr)
    {
        mOutputs.push_back(layer);
    }
    return layer;
}

nvinfer1::IIfConditionalInputLayer* IfConditional::addInput(nvinfer1::ITensor& input) noexcept
{
    return mNetwork.addLayer<ConditionalInputLayer>("ConditionalInput", {&input}, IdentityParams{}, 1, 1, *this);
}

nvinfer1::IIfConditional* Network::addIfConditional() noexcept
{
    mConditionals.push_back(std::make_unique<IfConditional>(*this));
    return mConditionals.back().get();
}

} // namespace kiln::network
