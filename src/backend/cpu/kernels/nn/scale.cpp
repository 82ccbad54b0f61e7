#include "backend/cpu/kernels/nn/scale.h"

#include "backend/cpu/kernels/layer_inputs.h"
#include "backend/cpu/kernels/nn/element_access.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace kiln::cpu
{
namespace
{

// Loads a weight list, or leaves it empty when absent; checks its count.
std::vector<float> loadWeights(network::WeightsBuffer const& weights, int64_t expectedCount, char const* name)
{
    if (weights.empty())
    {
        return {};
    }
    if (weights.count() != expectedCount)
    {
        throw std::invalid_argument(std::string("scale: ") + name + " has " + std::to_string(weights.count())
            + " weights, expected 0 or " + std::to_string(expectedCount));
    }
    ConstTensorView const view = weightsView(weights, Shape{weights.count()});
    requireFloatingPoint(view, name);
    return loadAllAsFloat(view);
}

} // namespace

int64_t scaleWeightCount(network::ScaleParams const& params, Shape const& inputShape)
{
    if (params.channelAxis < 0 || params.channelAxis >= static_cast<int32_t>(inputShape.size()))
    {
        throw std::invalid_argument(
            "scale: channelAxis " + std::to_string(params.channelAxis) + " outside input " + shapeText(inputShape));
    }
    switch (params.mode)
    {
    case nvinfer1::ScaleMode::kUNIFORM: return 1;
    case nvinfer1::ScaleMode::kCHANNEL: return inputShape[static_cast<size_t>(params.channelAxis)];
    case nvinfer1::ScaleMode::kELEMENTWISE:
        return volume(Shape(inputShape.begin() + params.channelAxis, inputShape.end()));
    }
    throw std::invalid_argument("scale: unknown ScaleMode");
}

void runScale(network::ScaleParams const& params, ConstTensorView const& input, TensorView const& output)
{
    requireShape(output.shape, input.shape, "scale output");
    requireFloatingPoint(input, "scale input");
    requireFloatingPoint(output, "scale output");
    int64_t const weightCount = scaleWeightCount(params, input.shape);
    std::vector<float> const shifts = loadWeights(params.shift, weightCount, "shift");
    std::vector<float> const scales = loadWeights(params.scale, weightCount, "scale");
    std::vector<float> const powers = loadWeights(params.power, weightCount, "power");

    // Element i uses weight (i / repeat) % weightCount: kCHANNEL repeats each weight over the axes after the
    // channel axis; kELEMENTWISE and kUNIFORM cycle through all weights (repeat 1).
    int64_t repeat = 1;
    if (params.mode == nvinfer1::ScaleMode::kCHANNEL)
    {
        repeat = volume(Shape(input.shape.begin() + params.channelAxis + 1, input.shape.end()));
    }
    int64_t const count = input.count();
    for (int64_t i = 0; i < count; ++i)
    {
        size_t const w = static_cast<size_t>((i / repeat) % weightCount);
        float value = loadFloat(input, i);
        value = value * (scales.empty() ? 1.0F : scales[w]) + (shifts.empty() ? 0.0F : shifts[w]);
        if (!powers.empty())
        {
            value = std::pow(value, powers[w]);
        }
        storeFloat(output, i, value);
    }
}

void run(network::ScaleParams const& params, LayerInputs const& inputs, LayerOutputs const& outputs)
{
    runScale(params, inputs[0], outputs[0]);
}

} // namespace kiln::cpu
