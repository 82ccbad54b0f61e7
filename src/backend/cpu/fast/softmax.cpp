// Softmax along one axis through oneDNN's softmax, on the tensors as they lie. Unlike the reference, where a row holds
// a NaN or +inf, oneDNN gives NaN there and 0 elsewhere in the row, not NaN throughout.
#include "backend/cpu/fast/kernels.h"

#include "network/layers/softmax.h"
#include "plan/plan_graph.h"

#include <bit>

namespace kiln::cpu::fast
{
namespace
{

class SoftMaxKernel final : public Kernel
{
public:
    SoftMaxKernel(State& state, plan::LayerRecord const& layer)
        : mState(state)
        , mAxis(std::countr_zero(plan::paramsOf<network::SoftMaxParams>(layer)->axes))
    {
    }

    void run(LayerInputs const& inputs, LayerOutputs const& outputs) override
    {
        TensorView const& output = outputs.at(0);
        if (output.count() == 0)
        {
            return;
        }
        Prepared& prepared = mCache.get(inputs, mState.resolvedThreads(), [&] { return prepare(output.shape); });
        // oneDNN's memory objects are not const-aware; the source is only read.
        prepared.source.set_data_handle(const_cast<void*>(inputs[0].data));
        prepared.destination.set_data_handle(output.data);
        prepared.primitive.execute(
            mState.stream, {{DNNL_ARG_SRC, prepared.source}, {DNNL_ARG_DST, prepared.destination}});
        mState.stream.wait();
    }

private:
    struct Prepared
    {
        dnnl::softmax_forward primitive;
        dnnl::memory source;
        dnnl::memory destination;
    };

    Prepared prepare(Shape const& shape) const
    {
        dnnl::memory::desc const data = linearDesc(shape);
        dnnl::softmax_forward::desc const description(dnnl::prop_kind::forward_inference, data, mAxis);
        return Prepared{dnnl::softmax_forward(dnnl::softmax_forward::primitive_desc(description, mState.engine)),
            userMemory(data, mState.engine), userMemory(data, mState.engine)};
    }

    State& mState;
    int const mAxis;
    PreparedCache<Prepared> mCache;
};

} // namespace

bool supportsSoftMax(plan::PlanModel const& model, plan::LayerRecord const& layer)
{
    auto const* params = plan::paramsOf<network::SoftMaxParams>(layer);
    if (params == nullptr || layer.inputs.size() != 1 || layer.inputs[0] < 0 || layer.epilogue.any())
    {
        return false;
    }
    size_t const rank = model.tensors[layer.inputs[0]].dims.size();
    return std::popcount(params->axes) == 1 && static_cast<size_t>(std::countr_zero(params->axes)) < rank;
}

std::unique_ptr<Kernel> makeSoftMax(State& state, plan::LayerRecord const& layer)
{
    return std::make_unique<SoftMaxKernel>(state, layer);
}

} // namespace kiln::cpu::fast
