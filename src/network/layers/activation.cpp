#include "network/layers/activation.h"

#include "core/data_type.h"
#include "network/network.h"

namespace kiln::network
{

bool ActivationParams::infer(InferenceContext& ctx) const
{
    if (ctx.nbInputs() != 1 || !ctx.hasInput(0))
    {
        return ctx.fail("an activation layer takes one input");
    }
    if (!isFloatType(ctx.input(0).type) && ctx.input(0).type != nvinfer1::DataType::kINT8)
    {
        return ctx.fail("activations take FLOAT, HALF, BF16 or INT8 inputs, not " + dataTypeName(ctx.input(0).type));
    }
    return ctx.setOutput(0, ctx.input(0).type, ctx.input(0).dims);
}

void ActivationLayer::setActivationType(nvinfer1::ActivationType type) noexcept
{
    mutableParams().activation = type;
}

} // namespace kiln::network
