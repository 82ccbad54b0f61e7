// The CPU reference of the recurrent sequence the CUDA backend fuses from a loop (network/fused/recurrent_sequence.h):
// each step's products of the hidden state with the gates' weights summed in double, the cell's formulas in float
// with the activations of the layers they replace, and the states stored in the layer's type between steps, as the
// loop stored them.
#include "backend/cpu/kernels/layer_inputs.h"
#include "backend/cpu/kernels/nn/activation.h"
#include "backend/cpu/kernels/nn/element_access.h"
#include "backend/cpu/layer_kernels.h"
#include "backend/shared/recurrent_sequence_geometry.h"

#include <vector>

namespace kiln::cpu
{
namespace
{

using network::CellFunction;
using network::RecurrentSequenceParams;

class CellActivation
{
public:
    explicit CellActivation(CellFunction const& function)
    {
        mParams.activation = function.type;
        mParams.alpha = function.alpha;
        mParams.beta = function.beta;
    }
    float operator()(float x) const
    {
        return activate(mParams, x);
    }

private:
    network::ActivationParams mParams;
};

} // namespace

void run(RecurrentSequenceParams const& params, LayerInputs const& inputs, LayerOutputs const& outputs)
{
    for (TensorView const& output : outputs)
    {
        requireFloatingPoint(output, "recurrent sequence output");
    }
    backend::RecurrentSequenceGeometry const g = backend::recurrentSequenceGeometry(params, inputs, outputs);
    for (size_t slot = 0; slot < inputs.size(); ++slot)
    {
        if (hasInput(inputs, slot))
        {
            requireFloatingPoint(inputs[slot], "recurrent sequence input");
        }
    }
    nvinfer1::DataType const type = outputs[0].type;
    int64_t const states = g.batch * g.hidden;
    std::vector<float> hidden(static_cast<size_t>(states));
    std::vector<float> cell(static_cast<size_t>(states));
    for (int64_t i = 0; i < states; ++i)
    {
        hidden[i] = roundedTo(type, loadFloat(inputs[params.initialHiddenSlot()], i));
        cell[i] = hasInput(inputs, params.initialCellSlot())
            ? roundedTo(type, loadFloat(inputs[params.initialCellSlot()], i))
            : 0.0F;
    }
    bool const biased = hasInput(inputs, params.hiddenBiasSlot());
    CellActivation const f(params.gateFunction);
    CellActivation const candidateOf(params.candidateFunction);
    CellActivation const outputOf(params.outputFunction);
    std::vector<float> nextHidden(hidden.size());
    std::vector<float> products(static_cast<size_t>(params.gates));
    for (int64_t k = 0; k < g.steps; ++k)
    {
        int64_t const row = g.inputRow(params, k);
        for (int64_t b = 0; b < g.batch; ++b)
        {
            for (int64_t j = 0; j < g.hidden; ++j)
            {
                for (int32_t gate = 0; gate < params.gates; ++gate)
                {
                    ConstTensorView const& weights = inputs[params.weightsSlot(gate)];
                    double dot = 0.0;
                    for (int64_t i = 0; i < g.hidden; ++i)
                    {
                        dot += static_cast<double>(hidden[b * g.hidden + i]) * loadFloat(weights, j * g.hidden + i);
                    }
                    products[gate] = static_cast<float>(dot);
                }
                auto const a = [&](int32_t gate) {
                    return loadFloat(inputs[params.inputSlot(gate)], g.inputAt(row, b, j)) + products[gate];
                };
                int64_t const at = b * g.hidden + j;
                float h = 0.0F;
                if (params.gates == RecurrentSequenceParams::kRnnGates)
                {
                    h = f(a(0));
                }
                else if (params.gates == RecurrentSequenceParams::kGruGates)
                {
                    float const z = f(a(0));
                    float const r = f(a(1));
                    float const recurrent
                        = products[2] + (biased ? loadFloat(inputs[params.hiddenBiasSlot()], j) : 0.0F);
                    float const n
                        = candidateOf(loadFloat(inputs[params.inputSlot(2)], g.inputAt(row, b, j)) + r * recurrent);
                    h = n + z * (hidden[at] - n);
                }
                else
                {
                    float const c = f(a(2)) * cell[at] + f(a(0)) * candidateOf(a(3));
                    cell[at] = roundedTo(type, c);
                    h = f(a(1)) * outputOf(cell[at]);
                }
                nextHidden[at] = roundedTo(type, h);
                storeFloat(outputs[0], g.stackedRow(params, k) * states + at, h);
            }
        }
        hidden.swap(nextHidden);
    }
    // Last values: zeros where no step ran, as a loop's outputs are.
    for (int64_t i = 0; i < states; ++i)
    {
        if (params.writesLastHidden)
        {
            storeFloat(outputs[params.lastHiddenSlot()], i, g.steps > 0 ? hidden[i] : 0.0F);
        }
        if (params.writesLastCell)
        {
            storeFloat(outputs[params.lastCellSlot()], i, g.steps > 0 ? cell[i] : 0.0F);
        }
    }
}

void run(network::RecurrentSequencePairParams const& params, LayerInputs const& inputs, LayerOutputs const& outputs)
{
    auto const [firstInputs, secondInputs] = params.split(inputs, false);
    auto const [firstOutputs, secondOutputs] = params.split(outputs, true);
    run(params.first, firstInputs, firstOutputs);
    run(params.second, secondInputs, secondOutputs);
}

} // namespace kiln::cpu
