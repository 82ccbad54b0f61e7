// Select (ONNX's Where) of FP32 values by a BOOL condition, each input the output's shape or one element, row-major:
// transformers' exports turn a softmax's NaN (a row of masked scores) into zeros so, where(isnan(p), 0, p), over
// every attention weight. The reference kernel copies each element through its broadcast offsets on one thread
// (1 ms for BERT-base's [8, 12, 128, 128] at batch 8); this is one pass of choices, on the threads. Element for
// element the same choice and copy, so the same bits.
#include "backend/cpu/fast/kernels.h"

#include "network/layers/select.h"
#include "plan/plan_graph.h"

#include <stdexcept>

namespace kiln::cpu::fast
{
namespace
{

using nvinfer1::DataType;

class SelectKernel final : public Kernel
{
public:
    explicit SelectKernel(State& state)
        : mState(state)
    {
    }

    void run(LayerInputs const& inputs, LayerOutputs const& outputs) override
    {
        TensorView const& output = outputs.at(0);
        int64_t const count = output.count();
        auto const single = [count](ConstTensorView const& input) {
            if (input.count() != count && input.count() != 1)
            {
                throw std::invalid_argument("select: an input is neither the output's shape nor one element");
            }
            return input.count() == 1 && count != 1;
        };
        bool const conditionOne = single(inputs[0]);
        bool const thenOne = single(inputs[1]);
        bool const elseOne = single(inputs[2]);
        auto const* condition = static_cast<uint8_t const*>(inputs[0].data);
        auto const* thenValues = static_cast<float const*>(inputs[1].data);
        auto const* elseValues = static_cast<float const*>(inputs[2].data);
        auto* values = static_cast<float*>(output.data);
#pragma omp parallel for schedule(static) num_threads(mState.resolvedThreads()) if (count > kParallelElements)
        for (int64_t i = 0; i < count; ++i)
        {
            values[i] = condition[conditionOne ? 0 : i] != 0 ? thenValues[thenOne ? 0 : i]
                                                             : elseValues[elseOne ? 0 : i];
        }
    }

private:
    State& mState;
};

//! Whether tensor `t` has the same extents as `output` at every run, or holds one element.
bool alikeOrSingle(plan::PlanModel const& model, int32_t t, int32_t output)
{
    if (plan::sameShape(model, t, output))
    {
        return true;
    }
    std::optional<std::vector<int64_t>> const dims = plan::constantDims(model, t);
    return dims && volume(*dims) == 1;
}

} // namespace

bool supportsSelect(plan::PlanModel const& model, plan::LayerRecord const& layer)
{
    if (plan::paramsOf<network::SelectParams>(layer) == nullptr || layer.inputs.size() != 3 || layer.outputs.size() != 1
        || layer.epilogue.any() || !rowMajorSlotOf(model, layer, 0, DataType::kBOOL)
        || !rowMajorSlotOf(model, layer, 1, DataType::kFLOAT) || !rowMajorSlotOf(model, layer, 2, DataType::kFLOAT)
        || !rowMajorSlotOf(model, layer, 3, DataType::kFLOAT))
    {
        return false;
    }
    int32_t const output = layer.outputs[0];
    return alikeOrSingle(model, layer.inputs[0], output) && alikeOrSingle(model, layer.inputs[1], output)
        && alikeOrSingle(model, layer.inputs[2], output);
}

std::unique_ptr<Kernel> makeSelect(State& state, plan::LayerRecord const& /*layer*/)
{
    return std::make_unique<SelectKernel>(state);
}

} // namespace kiln::cpu::fast
