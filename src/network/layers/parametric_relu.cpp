#include "network/layers/parametric_relu.h"

#include "core/data_type.h"

namespace kiln::network
{

bool ParametricReLUParams::infer(InferenceContext& ctx) const
{
    if (ctx.nbInputs() != 2 || !ctx.hasInput(0) || !ctx.hasInput(1))
    {
        return ctx.fail("a parametric ReLU layer takes an input and a slope");
    }
    nvinfer1::DataType const type = ctx.input(0).type;
    if (!isFloatType(type))
    {
        return ctx.fail("parametric ReLU takes FLOAT, HALF or BF16 inputs, not " + dataTypeName(type));
    }
    if (ctx.input(1).type != type)
    {
        return ctx.fail("the slope (" + dataTypeName(ctx.input(1).type) + ") must have the input's type ("
            + dataTypeName(type) + ")");
    }
    int32_t const rank = ctx.rank(0);
    if (ctx.rank(1) != rank)
    {
        return ctx.fail("the slope has rank " + std::to_string(ctx.rank(1)) + ", the input " + std::to_string(rank)
            + "; give the slope the input's rank (extents of 1 broadcast)");
    }
    for (int32_t i = 0; i < rank; ++i)
    {
        Dim const x = ctx.dim(0, i);
        Dim const slope = ctx.dim(1, i);
        bool const stretches = slope.isConstant() && slope.constant() == 1;
        if (!stretches && x.isConstant() && slope.isConstant() && x.constant() != slope.constant())
        {
            return ctx.fail("the slope's extent " + std::to_string(slope.constant()) + " along axis "
                + std::to_string(i) + " is neither 1 nor the input's " + std::to_string(x.constant()));
        }
    }
    return ctx.setOutput(0, type, ctx.input(0).dims);
}

PointwiseParams const& ParametricReLUParams::program()
{
    static PointwiseParams const chain = [] {
        using nvinfer1::ElementWiseOperation;
        using nvinfer1::LayerType;
        auto const step = [](LayerType kind, int32_t operation, int32_t first, int32_t second) {
            PointwiseStep s;
            s.kind = kind;
            s.operation = operation;
            s.first = first;
            s.second = second;
            return s;
        };
        int32_t const x = PointwiseOperand::input(0);
        int32_t const slope = PointwiseOperand::input(1);
        PointwiseParams params;
        params.steps = {
            step(LayerType::kACTIVATION, static_cast<int32_t>(nvinfer1::ActivationType::kRELU), x, 0),
            step(LayerType::kELEMENTWISE, static_cast<int32_t>(ElementWiseOperation::kSUB), x,
                PointwiseOperand::step(0)),
            step(LayerType::kELEMENTWISE, static_cast<int32_t>(ElementWiseOperation::kPROD), slope,
                PointwiseOperand::step(1)),
            step(LayerType::kELEMENTWISE, static_cast<int32_t>(ElementWiseOperation::kSUM), PointwiseOperand::step(0),
                PointwiseOperand::step(2)),
        };
        return params;
    }();
    return chain;
}

} // namespace kiln::network
