#include "network/layers/select.h"

#include "core/data_type.h"
#include "network/layers/elementwise.h"

#include <algorithm>

namespace kiln::network
{

namespace
{

//! Where the condition and both choices are shape tensors, the output is one too: `otherwise + condition * (then -
//! otherwise)` entry by entry, the condition's values being 0 or 1 (exporters replace the -1 entries of a target
//! shape so).
void selectValues(InferenceContext& ctx)
{
    auto const& condition = ctx.input(0).values;
    auto const& then = ctx.input(1).values;
    auto const& otherwise = ctx.input(2).values;
    if (!condition || !then || !otherwise)
    {
        return;
    }
    // An empty input (extent 0) makes the output empty: 0 broadcasts with 1 to 0.
    bool const empty = condition->empty() || then->empty() || otherwise->empty();
    size_t const count = empty ? 0 : std::max({condition->size(), then->size(), otherwise->size()});
    auto const entry = [count](std::vector<nvinfer1::IDimensionExpr const*> const& values, size_t i) {
        return values.size() == count ? values[i] : values.size() == 1 ? values[0] : nullptr;
    };
    nvinfer1::IExprBuilder& builder = ctx.builder();
    std::vector<nvinfer1::IDimensionExpr const*> values;
    for (size_t i = 0; i < count; ++i)
    {
        auto const* c = entry(*condition, i);
        auto const* a = entry(*then, i);
        auto const* b = entry(*otherwise, i);
        if (c == nullptr || a == nullptr || b == nullptr)
        {
            return; // sizes that do not broadcast: an ordinary tensor
        }
        using nvinfer1::DimensionOperation;
        auto const* difference = builder.operation(DimensionOperation::kSUB, *a, *b);
        auto const* chosen = difference ? builder.operation(DimensionOperation::kPROD, *c, *difference) : nullptr;
        if (chosen == nullptr)
        {
            return;
        }
        auto const* value = builder.operation(DimensionOperation::kSUM, *b, *chosen);
        if (value == nullptr)
        {
            return;
        }
        values.push_back(value);
    }
    ctx.output(0).values = std::move(values);
}

} // namespace

bool SelectParams::infer(InferenceContext& ctx) const
{
    if (ctx.nbInputs() != 3 || !ctx.hasInput(0) || !ctx.hasInput(1) || !ctx.hasInput(2))
    {
        return ctx.fail("a select layer takes condition, then and else inputs");
    }
    if (ctx.input(0).type != nvinfer1::DataType::kBOOL)
    {
        return ctx.fail("the select condition must be BOOL, not " + dataTypeName(ctx.input(0).type));
    }
    if (ctx.input(1).type != ctx.input(2).type)
    {
        return ctx.fail("the select then (" + dataTypeName(ctx.input(1).type) + ") and else ("
            + dataTypeName(ctx.input(2).type) + ") inputs must have one type");
    }
    // Like TensorRT's element-wise layers: all inputs have one rank, and an extent of 1 stretches.
    int32_t const rank = ctx.rank(0);
    if (ctx.rank(1) != rank || ctx.rank(2) != rank)
    {
        return ctx.fail("the select inputs have ranks " + std::to_string(rank) + ", " + std::to_string(ctx.rank(1))
            + " and " + std::to_string(ctx.rank(2)) + "; they must be equal");
    }
    std::vector<Dim> dims;
    for (int32_t i = 0; i < rank; ++i)
    {
        Dim result = ctx.dim(0, i);
        for (int32_t input = 1; input < 3; ++input)
        {
            Dim const d = ctx.dim(input, i);
            if (result.isConstant() && d.isConstant() && result.constant() != d.constant() && result.constant() != 1
                && d.constant() != 1)
            {
                return ctx.fail("the select inputs' extents " + std::to_string(result.constant()) + " and "
                    + std::to_string(d.constant()) + " along axis " + std::to_string(i) + " do not broadcast");
            }
            result = broadcastExtent(result, d);
        }
        dims.push_back(result);
    }
    if (!ctx.setOutput(0, ctx.input(1).type, dims))
    {
        return false;
    }
    selectValues(ctx);
    return true;
}

} // namespace kiln::network
