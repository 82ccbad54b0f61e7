// Reductions (sum, product, maximum, minimum, mean) over any axes through oneDNN's reduction. Its destination keeps
// the reduced axes as extents of 1, which is the same row-major data as an output without them: keepDimensions does
// not matter here. Axes of extent 1 are dropped and neighbouring axes that are both reduced or both kept merge, so
// that oneDNN sees the fewest axes (its fast kernel reduces the innermost ones: a global average pooling is
// [N * C, H * W] -> [N * C, 1]). Unlike the reference, oneDNN's maximum and minimum keep a NaN only where it comes
// last.
#include "backend/cpu/fast/kernels.h"

#include "network/layers/reduce.h"
#include "plan/plan_graph.h"

#include <algorithm>
#include <limits>

namespace kiln::cpu::fast
{
namespace
{

using nvinfer1::ReduceOperation;

dnnl::algorithm reductionOf(ReduceOperation operation)
{
    using dnnl::algorithm;
    switch (operation)
    {
    case ReduceOperation::kSUM: return algorithm::reduction_sum;
    case ReduceOperation::kPROD: return algorithm::reduction_mul;
    case ReduceOperation::kMAX: return algorithm::reduction_max;
    case ReduceOperation::kMIN: return algorithm::reduction_min;
    case ReduceOperation::kAVG: return algorithm::reduction_mean;
    case ReduceOperation::kNONE: break; // refused when the layer is added (TensorRT 10.16's collectives use it)
    }
    return algorithm::undef;
}

//! The result of reducing no elements, as the reference kernel gives it (the mean of none is NaN).
float reductionOfNothing(ReduceOperation operation)
{
    switch (operation)
    {
    case ReduceOperation::kSUM: return 0.0F;
    case ReduceOperation::kPROD: return 1.0F;
    case ReduceOperation::kMAX: return -std::numeric_limits<float>::infinity();
    case ReduceOperation::kMIN: return std::numeric_limits<float>::infinity();
    case ReduceOperation::kAVG: return std::numeric_limits<float>::quiet_NaN();
    case ReduceOperation::kNONE: break;
    }
    return 0.0F;
}

//! The input and the output as the reduction sees them: axes of extent 1 dropped, neighbouring axes that are both
//! reduced or both kept merged.
struct Folded
{
    Shape source;
    Shape destination;
};

Folded fold(Shape const& input, uint32_t reduceAxes)
{
    Folded folded;
    bool previousReduced = false;
    for (size_t axis = 0; axis < input.size(); ++axis)
    {
        bool const reduced = ((reduceAxes >> axis) & 1U) != 0;
        if (input[axis] == 1)
        {
            continue;
        }
        if (!folded.source.empty() && reduced == previousReduced)
        {
            folded.source.back() *= input[axis];
            folded.destination.back() *= reduced ? 1 : input[axis];
        }
        else
        {
            folded.source.push_back(input[axis]);
            folded.destination.push_back(reduced ? 1 : input[axis]);
        }
        previousReduced = reduced;
    }
    return folded;
}

class ReduceKernel final : public Kernel
{
public:
    ReduceKernel(State& state, network::ReduceParams const& params)
        : mState(state)
        , mOperation(params.operation)
        , mReduceAxes(params.reduceAxes)
    {
    }

    void run(LayerInputs const& inputs, LayerOutputs const& outputs) override
    {
        ConstTensorView const& input = inputs[0];
        TensorView const& output = outputs.at(0);
        if (output.count() == 0)
        {
            return;
        }
        if (input.count() == 0)
        {
            std::fill_n(output.as<float>(), output.count(), reductionOfNothing(mOperation));
            return;
        }
        std::optional<PlainPrimitive>& prepared
            = mCache.get(inputs, mState.resolvedThreads(), [&] { return prepare(input.shape); });
        if (!prepared)
        {
            std::copy_n(input.as<float>(), input.count(), output.as<float>());
            return;
        }
        prepared->run({input.data, output.data}, mState.stream);
    }

private:
    //! The primitive for an input of `input`'s shape; none where only axes of extent 1 are reduced, which leaves
    //! the values as they are.
    std::optional<PlainPrimitive> prepare(Shape const& input) const
    {
        Folded const folded = fold(input, mReduceAxes);
        if (folded.source == folded.destination)
        {
            return std::nullopt;
        }
        dnnl::memory::desc const source = linearDesc(folded.source);
        dnnl::memory::desc const destination = linearDesc(folded.destination);
        dnnl::reduction::desc const description(reductionOf(mOperation), source, destination, 0.0F, 0.0F);
        dnnl::reduction::primitive_desc const chosen(description, mState.engine);
        return PlainPrimitive(
            dnnl::reduction(chosen), {{DNNL_ARG_SRC, source}, {DNNL_ARG_DST, destination}}, mState.engine);
    }

    State& mState;
    ReduceOperation const mOperation;
    uint32_t const mReduceAxes;
    PreparedCache<std::optional<PlainPrimitive>> mCache;
};

} // namespace

bool supportsReduce(plan::PlanModel const& /*model*/, plan::LayerRecord const& layer)
{
    auto const* params = plan::paramsOf<network::ReduceParams>(layer);
    return params != nullptr && readsOneTensor(layer) && reductionOf(params->operation) != dnnl::algorithm::undef;
}

std::unique_ptr<Kernel> makeReduce(State& state, plan::LayerRecord const& layer)
{
    return std::make_unique<ReduceKernel>(state, *plan::paramsOf<network::ReduceParams>(layer));
}

} // namespace kiln::cpu::fast
