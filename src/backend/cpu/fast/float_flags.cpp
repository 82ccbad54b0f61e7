// IsNaN and IsInf of FP32 values into BOOL flags (1 or 0), row-major: transformers' exports test every attention
// weight so, where(isnan(p), 0, p) after each softmax. The reference kernel's loop runs on one thread; this is the
// same test on the threads, the same bytes.
#include "backend/cpu/fast/kernels.h"

#include "network/layers/unary.h"
#include "plan/plan_graph.h"

#include <cmath>

namespace kiln::cpu::fast
{
namespace
{

using nvinfer1::UnaryOperation;

class FloatFlagsKernel final : public Kernel
{
public:
    FloatFlagsKernel(State& state, UnaryOperation operation)
        : mState(state)
        , mOperation(operation)
    {
    }

    void run(LayerInputs const& inputs, LayerOutputs const& outputs) override
    {
        int64_t const count = outputs.at(0).count();
        auto const* values = static_cast<float const*>(inputs[0].data);
        auto* flags = static_cast<uint8_t*>(outputs.at(0).data);
        bool const nan = mOperation == UnaryOperation::kISNAN;
#pragma omp parallel for simd schedule(static) num_threads(mState.resolvedThreads()) if (count > kParallelElements)
        for (int64_t i = 0; i < count; ++i)
        {
            flags[i] = (nan ? std::isnan(values[i]) : std::isinf(values[i])) ? 1 : 0;
        }
    }

private:
    State& mState;
    UnaryOperation const mOperation;
};

} // namespace

bool isFloatFlags(plan::PlanModel const& model, plan::LayerRecord const& layer)
{
    auto const* params = plan::paramsOf<network::UnaryParams>(layer);
    if (params == nullptr
        || (params->operation != UnaryOperation::kISNAN && params->operation != UnaryOperation::kISINF)
        || layer.inputs.size() != 1 || layer.inputs[0] < 0 || layer.outputs.size() != 1 || layer.epilogue.any())
    {
        return false;
    }
    return rowMajorSlotOf(model, layer, 0, nvinfer1::DataType::kFLOAT)
        && rowMajorSlotOf(model, layer, 1, nvinfer1::DataType::kBOOL);
}

std::unique_ptr<Kernel> makeFloatFlags(State& state, plan::LayerRecord const& layer)
{
    return std::make_unique<FloatFlagsKernel>(state, plan::paramsOf<network::UnaryParams>(layer)->operation);
}

} // namespace kiln::cpu::fast
