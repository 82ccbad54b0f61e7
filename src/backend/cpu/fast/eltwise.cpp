// Activations and unary operations through oneDNN's eltwise, where it has an algorithm that computes what the
// reference kernel does. An element-wise function does not care for the tensor's shape or how its axes lie in memory,
// as long as the output lies as the input does: the primitive sees one axis.
// Unlike the reference, oneDNN's ReLU and clip turn NaN into 0 (as in the convolutions' fused activations).
#include "backend/cpu/fast/kernels.h"

#include "network/layers/unary.h"
#include "plan/plan_graph.h"

#include <stdexcept>

namespace kiln::cpu::fast
{
namespace
{

using nvinfer1::UnaryOperation;

std::optional<Eltwise> eltwiseOfUnary(UnaryOperation operation)
{
    using dnnl::algorithm;
    switch (operation)
    {
    case UnaryOperation::kSQRT: return Eltwise{algorithm::eltwise_sqrt, 0.0F, 0.0F};
    case UnaryOperation::kABS: return Eltwise{algorithm::eltwise_abs, 0.0F, 0.0F};
    // -1 * x + 0: the same but for the sign of a zero (-x gives -0 for +0, oneDNN +0).
    case UnaryOperation::kNEG: return Eltwise{algorithm::eltwise_linear, -1.0F, 0.0F};
    // 1 * x^-1, which oneDNN computes as the division 1 / x, as the reference does.
    case UnaryOperation::kRECIP: return Eltwise{algorithm::eltwise_pow, 1.0F, -1.0F};
    // Both round half to even.
    case UnaryOperation::kROUND: return Eltwise{algorithm::eltwise_round, 0.0F, 0.0F};
    // Exp and log stay on the reference: oneDNN 2.6's exp (AVX2) turns NaN into infinity and flushes results below
    // FLT_MIN to 0, and its log is off by up to 4e-6 around 1 (log(1) = -1.4e-6). It has no trigonometry, erf, sign,
    // ceil or floor.
    default: return std::nullopt;
    }
}

class EltwiseKernel final : public Kernel
{
public:
    EltwiseKernel(State& state, Eltwise eltwise)
        : mState(state)
        , mEltwise(eltwise)
    {
    }

    void run(LayerInputs const& inputs, LayerOutputs const& outputs) override
    {
        TensorView const& output = outputs.at(0);
        if (output.count() == 0)
        {
            return;
        }
        if (inputs[0].format != output.format)
        {
            throw std::invalid_argument("an activation or unary operation reads and writes one format");
        }
        int32_t const threads = primitiveThreads(mState, output.count());
        PlainPrimitive& prepared = mCache.get(inputs, threads, [&] { return prepare(output.count()); });
        prepared.run({inputs[0].data, output.data}, mState.stream);
    }

private:
    PlainPrimitive prepare(int64_t count) const
    {
        dnnl::memory::desc const data = linearDesc({count});
        dnnl::eltwise_forward::desc const description(
            dnnl::prop_kind::forward_inference, mEltwise.algorithm, data, mEltwise.alpha, mEltwise.beta);
        dnnl::eltwise_forward::primitive_desc const chosen(description, mState.engine);
        return PlainPrimitive(
            dnnl::eltwise_forward(chosen), {{DNNL_ARG_SRC, data}, {DNNL_ARG_DST, data}}, mState.engine);
    }

    State& mState;
    Eltwise const mEltwise;
    PreparedCache<PlainPrimitive> mCache;
};

} // namespace

bool supportsActivation(plan::PlanModel const& /*model*/, plan::LayerRecord const& layer)
{
    auto const* params = plan::paramsOf<network::ActivationParams>(layer);
    return params != nullptr && readsOneTensor(layer)
        && eltwiseOf(params->activation, params->alpha, params->beta).has_value();
}

std::unique_ptr<Kernel> makeActivation(State& state, plan::LayerRecord const& layer)
{
    auto const& params = *plan::paramsOf<network::ActivationParams>(layer);
    return std::make_unique<EltwiseKernel>(state, *eltwiseOf(params.activation, params.alpha, params.beta));
}

bool supportsUnary(plan::PlanModel const& model, plan::LayerRecord const& layer)
{
    auto const* params = plan::paramsOf<network::UnaryParams>(layer);
    return params != nullptr && readsOneTensor(layer)
        && (eltwiseOfUnary(params->operation).has_value() || isFloatFlags(model, layer));
}

std::unique_ptr<Kernel> makeUnary(State& state, plan::LayerRecord const& layer)
{
    UnaryOperation const operation = plan::paramsOf<network::UnaryParams>(layer)->operation;
    std::optional<Eltwise> const eltwise = eltwiseOfUnary(operation);
    return eltwise ? std::unique_ptr<Kernel>(std::make_unique<EltwiseKernel>(state, *eltwise))
                   : makeFloatFlags(state, layer);
}

} // namespace kiln::cpu::fast
