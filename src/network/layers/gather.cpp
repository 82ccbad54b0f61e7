#include "network/layers/gather.h"

#include "network/layers/layer_utils.h"
#include "core/data_type.h"

namespace kiln::network
{
namespace
{

using nvinfer1::GatherMode;

std::vector<Dim> dimsOf(InferenceContext& ctx, int32_t input, int32_t from, int32_t to)
{
    std::vector<Dim> dims;
    for (int32_t i = from; i < to; ++i)
    {
        dims.push_back(ctx.dim(input, i));
    }
    return dims;
}

void append(std::vector<Dim>& to, std::vector<Dim> const& from)
{
    to.insert(to.end(), from.begin(), from.end());
}

bool defaultShape(InferenceContext& ctx, int32_t axis, int32_t batchDims, std::vector<Dim>& out)
{
    int32_t const dataRank = ctx.rank(0);
    int32_t const indicesRank = ctx.rank(1);
    if (batchDims == 1 && (axis < 1 || indicesRank < 1))
    {
        return ctx.fail("a kDEFAULT gather with one element-wise dim needs gather axis >= 1 and indices of rank >= 1");
    }
    out = dimsOf(ctx, 0, 0, axis);
    append(out, dimsOf(ctx, 1, batchDims, indicesRank));
    append(out, dimsOf(ctx, 0, axis + 1, dataRank));
    return true;
}

bool ndShape(InferenceContext& ctx, int32_t batchDims, std::vector<Dim>& out)
{
    int32_t const dataRank = ctx.rank(0);
    int32_t const indicesRank = ctx.rank(1);
    if (indicesRank < 1 || indicesRank <= batchDims)
    {
        return ctx.fail(
            "a kND gather needs indices of rank above the " + std::to_string(batchDims) + " element-wise dims");
    }
    Dim const k = ctx.dim(1, indicesRank - 1);
    if (!k.isConstant())
    {
        return ctx.fail("the last dimension of kND gather indices must be known at build time");
    }
    if (batchDims + k.constant() > dataRank)
    {
        return ctx.fail("kND gather indices address " + std::to_string(k.constant()) + " dims after "
            + std::to_string(batchDims) + " element-wise dims of data of rank " + std::to_string(dataRank));
    }
    out = dimsOf(ctx, 1, 0, indicesRank - 1);
    append(out, dimsOf(ctx, 0, batchDims + static_cast<int32_t>(k.constant()), dataRank));
    return true;
}

//! Gathering constant indices from a 1-D shape tensor keeps its values known.
void propagateValues(InferenceContext& ctx)
{
    TensorFacts const& data = ctx.input(0);
    TensorFacts const& indices = ctx.input(1);
    if (!data.values || data.dims.nbDims != 1 || !indices.values || indices.dims.nbDims > 1)
    {
        return;
    }
    int64_t const extent = static_cast<int64_t>(data.values->size());
    std::vector<nvinfer1::IDimensionExpr const*> values;
    for (auto const* index : *indices.values)
    {
        if (!index->isConstant())
        {
            return;
        }
        int64_t position = index->getConstantValue();
        position = position < 0 ? position + extent : position;
        if (position < 0 || position >= extent)
        {
            return; // the runtime reports the bad index
        }
        values.push_back((*data.values)[static_cast<size_t>(position)]);
    }
    ctx.output(0).values = std::move(values);
}

} // namespace

bool GatherParams::infer(InferenceContext& ctx) const
{
    if (ctx.nbInputs() != 2 || !ctx.hasInput(0) || !ctx.hasInput(1))
    {
        return ctx.fail("a gather layer takes data and indices inputs");
    }
    nvinfer1::DataType const indicesType = ctx.input(1).type;
    if (indicesType != nvinfer1::DataType::kINT32 && indicesType != nvinfer1::DataType::kINT64)
    {
        return ctx.fail("gather indices must be INT32 or INT64, not " + dataTypeName(indicesType));
    }
    int32_t const dataRank = ctx.rank(0);
    if (numElementWiseDims < 0 || (mode == GatherMode::kDEFAULT && numElementWiseDims > 1)
        || numElementWiseDims > dataRank)
    {
        return ctx.fail("gather element-wise dims " + std::to_string(numElementWiseDims) + " are out of range");
    }
    std::vector<Dim> out;
    if (mode == GatherMode::kND)
    {
        if (!ndShape(ctx, numElementWiseDims, out))
        {
            return false;
        }
    }
    else
    {
        int32_t const axis = normalizeAxis(gatherAxis, dataRank);
        if (axis < 0)
        {
            return ctx.fail("gather axis " + std::to_string(gatherAxis) + " is out of range for data of rank "
                + std::to_string(dataRank));
        }
        if (mode == GatherMode::kELEMENT)
        {
            if (ctx.rank(1) != dataRank)
            {
                return ctx.fail("kELEMENT gather indices must have the data's rank " + std::to_string(dataRank));
            }
            out = dimsOf(ctx, 1, 0, dataRank);
        }
        else if (!defaultShape(ctx, axis, numElementWiseDims, out))
        {
            return false;
        }
    }
    if (!ctx.setOutput(0, ctx.input(0).type, out))
    {
        return false;
    }
    if (mode == GatherMode::kDEFAULT && numElementWiseDims == 0 && out.size() <= 1)
    {
        propagateValues(ctx);
    }
    return true;
}

} // namespace kiln::network
