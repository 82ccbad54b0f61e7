#include "backend/cpu/kernels/nn/pointwise.h"

#include "backend/cpu/kernels/layer_inputs.h"
#include "backend/cpu/kernels/nn/activation.h"
#include "backend/cpu/kernels/nn/broadcast.h"
#include "backend/cpu/kernels/nn/element_access.h"
#include "backend/cpu/kernels/nn/element_wise.h"
#include "backend/cpu/kernels/nn/unary.h"
#include "core/quantization.h"

#include <stdexcept>

namespace kiln::cpu
{

using network::PointwiseOperand;
using nvinfer1::LayerType;

PointwiseFunction::PointwiseFunction(network::PointwiseStep const& step)
    : mStep(step)
{
    mActivation.activation = static_cast<nvinfer1::ActivationType>(step.operation);
    mActivation.alpha = step.alpha;
    mActivation.beta = step.beta;
}

float PointwiseFunction::operator()(float a, float b) const
{
    switch (mStep.kind)
    {
    case LayerType::kELEMENTWISE:
        return floatArithmetic(static_cast<nvinfer1::ElementWiseOperation>(mStep.operation), a, b);
    case LayerType::kACTIVATION: return activate(mActivation, a);
    case LayerType::kUNARY: return applyUnary(static_cast<nvinfer1::UnaryOperation>(mStep.operation), a);
    case LayerType::kQUANTIZE:
        return roundedTo(mStep.valueType,
            roundThroughQuantization(roundedTo(mStep.valueType, a), mStep.alpha,
                static_cast<nvinfer1::DataType>(mStep.operation) == nvinfer1::DataType::kFP8));
    default: return a;
    }
}

Shape pointwiseOutputShape(std::vector<ConstTensorView> const& inputs)
{
    if (inputs.empty())
    {
        throw std::invalid_argument("point-wise chain: no inputs");
    }
    Shape shape = inputs[0].shape;
    for (ConstTensorView const& input : inputs)
    {
        shape = broadcastShape({shape, input.shape});
    }
    return shape;
}

void runPointwise(
    network::PointwiseParams const& params, std::vector<ConstTensorView> const& inputs, TensorView const& output)
{
    if (!network::wellFormed(params.steps, inputs.size()))
    {
        throw std::invalid_argument("point-wise chain: a step reads an operand it cannot have");
    }
    requireShape(output.shape, pointwiseOutputShape(inputs), "point-wise chain output");
    requireFloatingPoint(output, "point-wise chain output");
    std::vector<Shape> strides;
    for (ConstTensorView const& input : inputs)
    {
        requireFloatingPoint(input, "point-wise chain input");
        strides.push_back(broadcastStrides(input.shape, output.shape));
    }
    std::vector<PointwiseFunction> functions(params.steps.begin(), params.steps.end());
    std::vector<float> results(params.steps.size());
    Shape coordinates(output.shape.size(), 0);
    int64_t const count = output.count();
    auto const operand = [&](int32_t source) {
        if (PointwiseOperand::isStep(source))
        {
            return results[static_cast<size_t>(PointwiseOperand::stepOf(source))];
        }
        auto const input = static_cast<size_t>(source);
        int64_t offset = 0;
        for (size_t axis = 0; axis < coordinates.size(); ++axis)
        {
            offset += coordinates[axis] * strides[input][axis];
        }
        return loadFloat(inputs[input], offset);
    };
    for (int64_t i = 0; i < count; ++i)
    {
        for (size_t s = 0; s < params.steps.size(); ++s)
        {
            network::PointwiseStep const& step = params.steps[s];
            results[s] = functions[s](operand(step.first), step.binary() ? operand(step.second) : 0.0F);
        }
        storeFloat(output, i, results.back());
        for (size_t axis = coordinates.size(); axis-- > 0;)
        {
            if (++coordinates[axis] < output.shape[axis])
            {
                break;
            }
            coordinates[axis] = 0;
        }
    }
}

void run(network::PointwiseParams const& params, LayerInputs const& inputs, LayerOutputs const& outputs)
{
    runPointwise(params, inputs, outputs.at(0));
}

} // namespace kiln::cpu
