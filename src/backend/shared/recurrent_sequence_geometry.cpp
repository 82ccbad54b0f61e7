#include "backend/shared/recurrent_sequence_geometry.h"

#include "core/dims_text.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace kiln::backend
{
namespace
{

void require(bool holds, Shape const& shape, char const* what, std::string const& expected)
{
    if (!holds)
    {
        throw std::invalid_argument(
            std::string("recurrent sequence: ") + what + " has shape " + shapeText(shape) + "; expected " + expected);
    }
}

} // namespace

RecurrentSequenceGeometry recurrentSequenceGeometry(network::RecurrentSequenceParams const& params,
    std::vector<Shape const*> const& inputs, std::vector<Shape const*> const& outputs)
{
    bool const outputsGiven = std::all_of(outputs.begin(), outputs.end(), [](Shape const* s) { return s != nullptr; });
    if (inputs.size() != params.inputCount() || outputs.size() != params.outputCount()
        || inputs[params.initialHiddenSlot()] == nullptr || !outputsGiven)
    {
        throw std::invalid_argument("recurrent sequence: " + std::to_string(inputs.size()) + " inputs and "
            + std::to_string(outputs.size()) + " outputs, where its cell takes " + std::to_string(params.inputCount())
            + " and writes " + std::to_string(params.outputCount()));
    }
    Shape const& initialHidden = *inputs[params.initialHiddenSlot()];
    require(initialHidden.size() == 2, initialHidden, "the initial hidden state", "[batch, hidden]");
    RecurrentSequenceGeometry g;
    g.batch = initialHidden[0];
    g.hidden = initialHidden[1];
    std::string const state = "[" + std::to_string(g.batch) + ", " + std::to_string(g.hidden) + "]";
    Shape const& stacked = *outputs[0];
    require(stacked.size() == 3 && stacked[1] == g.batch && stacked[2] == g.hidden, stacked, "the stacked output",
        "[steps, " + std::to_string(g.batch) + ", " + std::to_string(g.hidden) + "]");
    g.steps = stacked[0];
    for (int32_t gate = 0; gate < params.gates; ++gate)
    {
        Shape const* input = inputs[params.inputSlot(gate)];
        Shape const* weights = inputs[params.weightsSlot(gate)];
        if (input == nullptr || weights == nullptr)
        {
            throw std::invalid_argument(
                "recurrent sequence: gate " + std::to_string(gate) + " has no input or weights");
        }
        bool const fits = input->size() == 3 && (*input)[1] == g.batch && (*input)[2] == g.hidden
            && (gate == 0 || (*input)[0] == g.inputSteps);
        require(fits, *input, "a gate's input",
            "[steps, " + std::to_string(g.batch) + ", " + std::to_string(g.hidden) + "], as every gate's");
        g.inputSteps = (*input)[0];
        require(*weights == Shape{g.hidden, g.hidden}, *weights, "a gate's recurrence weights",
            "[" + std::to_string(g.hidden) + ", " + std::to_string(g.hidden) + "]");
    }
    if (g.inputSteps < g.steps)
    {
        throw std::invalid_argument("recurrent sequence: the trip count " + std::to_string(g.steps)
            + " exceeds the iterated inputs' " + std::to_string(g.inputSteps) + " steps");
    }
    if (Shape const* cell = inputs[params.initialCellSlot()]; cell != nullptr)
    {
        require(*cell == initialHidden, *cell, "the initial cell state", state);
    }
    if (Shape const* bias = inputs[params.hiddenBiasSlot()]; bias != nullptr)
    {
        require(*bias == Shape{1, g.hidden}, *bias, "the recurrence bias", "[1, " + std::to_string(g.hidden) + "]");
    }
    for (size_t o = 1; o < outputs.size(); ++o)
    {
        require(*outputs[o] == initialHidden, *outputs[o], "a last-value output", state);
    }
    return g;
}

RecurrentSequenceGeometry recurrentSequenceGeometry(network::RecurrentSequenceParams const& params,
    std::vector<ConstTensorView> const& inputs, std::vector<TensorView> const& outputs)
{
    std::vector<Shape const*> inputShapes;
    for (ConstTensorView const& input : inputs)
    {
        inputShapes.push_back(input.data != nullptr || input.count() == 0 ? &input.shape : nullptr);
    }
    std::vector<Shape const*> outputShapes;
    for (TensorView const& output : outputs)
    {
        outputShapes.push_back(&output.shape);
    }
    return recurrentSequenceGeometry(params, inputShapes, outputShapes);
}

} // namespace kiln::backend
