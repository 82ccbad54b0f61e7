// Softmax along one axis, on the tensors as they lie:
// - along the innermost axis, through oneDNN's softmax. Unlike the reference, where a row holds a NaN or +inf, oneDNN
//   gives NaN there and 0 elsewhere in the row, not NaN throughout;
// - along any other axis (a detector's distribution over 16 bins, [N, 4, 16, anchors] along axis 2), in loops of Kiln's
//   own that run along the contiguous inner elements: oneDNN 2.6 has no optimised softmax there, and its reference one
//   took 16 ms for 410 K elements. exp is vector_functions.h's, within its stated tolerance; a NaN or +inf makes its
//   whole row NaN, as in the reference.
#include "backend/cpu/fast/kernels.h"

#include "backend/cpu/fast/vector_functions.h"
#include "network/layers/softmax.h"
#include "plan/plan_graph.h"

#include <NvInfer.h>

#include <algorithm>
#include <bit>
#include <vector>

namespace kiln::cpu::fast
{
namespace
{

//! Softmax of `outer` slices of [axis, inner] elements along their axis, the inner elements `inner` apart: the maxima,
//! the exponentials and their sums computed for a row of inner elements at a time, so that every loop runs over
//! contiguous memory.
void softMaxAlongStridedAxis(float const* input, float* output, int64_t outer, int64_t axis, int64_t inner, int threads)
{
    network::PointwiseStep exp;
    exp.kind = nvinfer1::LayerType::kUNARY;
    exp.operation = static_cast<int32_t>(nvinfer1::UnaryOperation::kEXP);
#pragma omp parallel num_threads(threads)
    {
        std::vector<float> largest(static_cast<size_t>(inner));
        std::vector<float> sums(static_cast<size_t>(inner));
#pragma omp for schedule(static)
        for (int64_t o = 0; o < outer; ++o)
        {
            float const* x = input + o * axis * inner;
            float* y = output + o * axis * inner;
            std::copy(x, x + inner, largest.begin());
            for (int64_t a = 1; a < axis; ++a)
            {
                float const* row = x + a * inner;
                for (int64_t i = 0; i < inner; ++i)
                {
                    // NaN goes through, so that its row gives NaN (as does +inf, through inf - inf).
                    largest[i] = row[i] > largest[i] || row[i] != row[i] ? row[i] : largest[i];
                }
            }
            std::fill(sums.begin(), sums.end(), 0.0F);
            for (int64_t a = 0; a < axis; ++a)
            {
                float const* row = x + a * inner;
                float* shifted = y + a * inner;
                for (int64_t i = 0; i < inner; ++i)
                {
                    shifted[i] = row[i] - largest[i];
                }
                evaluateVectorized(exp, shifted, shifted, inner);
                for (int64_t i = 0; i < inner; ++i)
                {
                    sums[i] += shifted[i];
                }
            }
            for (int64_t a = 0; a < axis; ++a)
            {
                float* row = y + a * inner;
                for (int64_t i = 0; i < inner; ++i)
                {
                    row[i] /= sums[i];
                }
            }
        }
    }
}

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
        int64_t inner = 1;
        for (size_t a = static_cast<size_t>(mAxis) + 1; a < output.shape.size(); ++a)
        {
            inner *= output.shape[a];
        }
        if (inner > 1)
        {
            int64_t const axis = output.shape[static_cast<size_t>(mAxis)];
            int64_t const outer = output.count() / (axis * inner);
            softMaxAlongStridedAxis(static_cast<float const*>(inputs[0].data), static_cast<float*>(output.data), outer,
                axis, inner, outer > 1 ? mState.resolvedThreads() : 1);
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
