// A fused point-wise chain (network::PointwiseParams, made by plan/passes/pointwise_fusion.h) in one pass over
// memory: the output is cut into blocks of kBlock elements, and each block goes through the chain's steps as an
// interpreted program over a register file of one block per step, so that the interpretation costs one dispatch per
// block and step, and the intermediate results stay in the cache. Operands that broadcast are gathered into a block
// first. Additions, products, differences, quotients, maxima, minima, ReLU, leaky ReLU and clip run as loops the
// compiler vectorises, with the reference's results bit for bit; sigmoid, tanh, GELU's tanh form, hard sigmoid and exp
// run in FP32 (vector_functions.h, which states their tolerance against the reference); the other steps call the
// reference's function of one element (kernels/nn/pointwise.h). Threads take whole blocks and every element is
// computed alone, so the results do not depend on the thread count. Blocks follow the output's memory order, kLINEAR
// or kHWC: an input stored as the output is read in place, one stored otherwise (a squeeze-and-excitation's scale
// [N, C, 1, 1] beside kHWC activations) through its strides in that order.
#include "backend/cpu/fast/kernels.h"
#include "backend/cpu/fast/vector_functions.h"

#include "backend/cpu/kernels/nn/broadcast.h"
#include "backend/cpu/kernels/nn/element_access.h"
#include "backend/cpu/kernels/nn/pointwise.h"
#include "plan/plan_graph.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace kiln::cpu::fast
{
namespace
{

using network::PointwiseOperand;
using network::PointwiseStep;
using nvinfer1::ElementWiseOperation;

constexpr int64_t kBlock = 256;

//! How a block of one input is found: where the input lies in memory as the output does, in place; else gathered.
struct InputLayout
{
    bool inPlace{false};
    bool single{false}; //!< one element, repeated
    Shape strides;      //!< the element strides along the output's axes in memory order (0 where it repeats)
};

//! What one run at a set of input shapes needs.
struct Prepared
{
    Shape shape;       //!< the output's
    Shape storedShape; //!< the output's extents in the order its axes lie in memory, the order blocks walk
    std::vector<InputLayout> inputs;
};

//! The element strides for reading `input` while walking an output of `shape` stored in `format`, along the output's
//! axes in memory order: 0 where the input repeats. Each tensor is kLINEAR or kHWC.
Shape storedStrides(ConstTensorView const& input, Shape const& shape, TensorFormat format)
{
    Shape logical = broadcastStrides(input.shape, shape);
    if (input.format != TensorFormat::kLINEAR)
    {
        std::vector<int32_t> const order = storedAxisOrder(input.format, input.shape.size());
        int64_t step = 1;
        for (size_t p = order.size(); p-- > 0;)
        {
            auto const axis = static_cast<size_t>(order[p]);
            logical[axis] = logical[axis] == 0 ? 0 : step;
            step *= input.shape[axis];
        }
    }
    std::vector<int32_t> const order = storedAxisOrder(format, shape.size());
    Shape stored(order.size());
    for (size_t p = 0; p < order.size(); ++p)
    {
        stored[p] = logical[static_cast<size_t>(order[p])];
    }
    return stored;
}

//! Copies the `count` elements of `input` that output elements `start`... read into `block` (not a single element's:
//! that block is filled once for all).
void gather(
    float const* input, InputLayout const& layout, Shape const& shape, int64_t start, int64_t count, float* block)
{
    size_t const rank = shape.size();
    Shape coordinates(rank);
    int64_t rest = start;
    for (size_t axis = rank; axis-- > 0;)
    {
        coordinates[axis] = rest % shape[axis];
        rest /= shape[axis];
    }
    int64_t const inner = shape.back();
    int64_t const step = layout.strides.back();
    for (int64_t done = 0; done < count;)
    {
        int64_t offset = 0;
        for (size_t axis = 0; axis < rank; ++axis)
        {
            offset += coordinates[axis] * layout.strides[axis];
        }
        int64_t const run = std::min(count - done, inner - coordinates.back());
#pragma omp simd
        for (int64_t i = 0; i < run; ++i)
        {
            block[done + i] = input[offset + i * step];
        }
        done += run;
        coordinates.back() += run;
        for (size_t axis = rank - 1; axis > 0 && coordinates[axis] == shape[axis]; --axis)
        {
            coordinates[axis] = 0;
            ++coordinates[axis - 1];
        }
    }
}

float maxOrNan(float a, float b)
{
    return std::isnan(a) || std::isnan(b) ? std::numeric_limits<float>::quiet_NaN() : (a > b ? a : b);
}

float minOrNan(float a, float b)
{
    return std::isnan(a) || std::isnan(b) ? std::numeric_limits<float>::quiet_NaN() : (a < b ? a : b);
}

//! One step over `count` elements: d = f(a, b). The element-wise loops compute what the reference's function does
//! (IEEE arithmetic), in vectors: `omp simd` says what GCC's cheap vectoriser at -O2 cannot check itself, that d, a
//! and b never overlap but where they are the same block (each element is read before it is written).
void evaluate(PointwiseStep const& step, PointwiseFunction const& function, float const* a, float const* b, float* d,
    int64_t count)
{
    if (step.kind == nvinfer1::LayerType::kELEMENTWISE)
    {
        auto const each = [&](auto&& f) {
#pragma omp simd
            for (int64_t i = 0; i < count; ++i)
            {
                d[i] = f(a[i], b[i]);
            }
        };
        switch (static_cast<ElementWiseOperation>(step.operation))
        {
        case ElementWiseOperation::kSUM: return each([](float x, float y) { return x + y; });
        case ElementWiseOperation::kPROD: return each([](float x, float y) { return x * y; });
        case ElementWiseOperation::kSUB: return each([](float x, float y) { return x - y; });
        case ElementWiseOperation::kDIV: return each([](float x, float y) { return x / y; });
        case ElementWiseOperation::kMAX: return each(maxOrNan);
        case ElementWiseOperation::kMIN: return each(minOrNan);
        default: return each(function);
        }
    }
    if (vectorizes(step))
    {
        return evaluateVectorized(step, a, d, count);
    }
    for (int64_t i = 0; i < count; ++i)
    {
        d[i] = function(a[i], 0.0F);
    }
}

class PointwiseKernel final : public Kernel
{
public:
    PointwiseKernel(State& state, network::PointwiseParams const& params)
        : mState(state)
        , mSteps(params.steps)
        , mFunctions(params.steps.begin(), params.steps.end())
    {
    }

    void run(LayerInputs const& inputs, LayerOutputs const& outputs) override
    {
        TensorView const& output = outputs.at(0);
        int64_t const count = output.count();
        if (count == 0)
        {
            return;
        }
        Prepared const& prepared
            = mCache.get(inputs, mState.resolvedThreads(), [&] { return prepare(inputs, output.format); });
        requireShape(output.shape, prepared.shape, "point-wise chain output");
        int64_t const blocks = (count + kBlock - 1) / kBlock;
        auto* const out = static_cast<float*>(output.data);
#pragma omp parallel if (blocks > 4)
        {
            // Per thread: one block per step's result and per gathered input.
            std::vector<float> registers(static_cast<size_t>(kBlock) * (mSteps.size() + inputs.size()));
            std::vector<float const*> sources(inputs.size());
            float* const gathered = registers.data() + kBlock * static_cast<int64_t>(mSteps.size());
            for (size_t i = 0; i < inputs.size(); ++i)
            {
                // A repeated element's block is the same for every block of the output: filled once.
                if (prepared.inputs[i].single)
                {
                    float* const block = gathered + kBlock * static_cast<int64_t>(i);
                    std::fill(block, block + std::min(kBlock, count), *static_cast<float const*>(inputs[i].data));
                }
            }
#pragma omp for schedule(static)
            for (int64_t b = 0; b < blocks; ++b)
            {
                int64_t const start = b * kBlock;
                int64_t const n = std::min(kBlock, count - start);
                for (size_t i = 0; i < inputs.size(); ++i)
                {
                    auto const* data = static_cast<float const*>(inputs[i].data);
                    InputLayout const& layout = prepared.inputs[i];
                    float* const block = gathered + kBlock * static_cast<int64_t>(i);
                    if (!layout.inPlace && !layout.single)
                    {
                        gather(data, layout, prepared.storedShape, start, n, block);
                    }
                    sources[i] = layout.inPlace ? data + start : block;
                }
                auto const operand = [&](int32_t source) -> float const* {
                    return PointwiseOperand::isStep(source)
                        ? registers.data() + kBlock * PointwiseOperand::stepOf(source)
                        : sources[static_cast<size_t>(source)];
                };
                for (size_t s = 0; s < mSteps.size(); ++s)
                {
                    PointwiseStep const& step = mSteps[s];
                    float* const result = s + 1 == mSteps.size() ? out + start
                                                                 : registers.data() + kBlock * static_cast<int64_t>(s);
                    evaluate(step, mFunctions[s], operand(step.first), step.binary() ? operand(step.second) : nullptr,
                        result, n);
                }
            }
        }
    }

private:
    static Prepared prepare(LayerInputs const& inputs, TensorFormat outputFormat)
    {
        Prepared prepared;
        prepared.shape = pointwiseOutputShape(inputs);
        for (int32_t axis : storedAxisOrder(outputFormat, prepared.shape.size()))
        {
            prepared.storedShape.push_back(prepared.shape[static_cast<size_t>(axis)]);
        }
        Shape const contiguous = contiguousStrides(prepared.storedShape);
        for (ConstTensorView const& input : inputs)
        {
            InputLayout layout;
            layout.strides = storedStrides(input, prepared.shape, outputFormat);
            // In place where it lies as the output does: stored alike, or differing only along axes of extent 1.
            layout.inPlace = input.shape == prepared.shape;
            for (size_t p = 0; layout.inPlace && p < contiguous.size(); ++p)
            {
                layout.inPlace = prepared.storedShape[p] == 1 || layout.strides[p] == contiguous[p];
            }
            layout.single = !layout.inPlace && input.count() == 1;
            prepared.inputs.push_back(std::move(layout));
        }
        return prepared;
    }

    State& mState;
    std::vector<PointwiseStep> const mSteps;
    std::vector<PointwiseFunction> const mFunctions;
    PreparedCache<Prepared> mCache;
};

} // namespace

bool supportsPointwise(plan::PlanModel const& /*model*/, plan::LayerRecord const& layer)
{
    auto const* params = plan::paramsOf<network::PointwiseParams>(layer);
    return params != nullptr && !layer.epilogue.any() && layer.outputs.size() == 1
        && network::wellFormed(params->steps, layer.inputs.size())
        && std::all_of(layer.inputs.begin(), layer.inputs.end(), [](int32_t t) { return t >= 0; });
}

std::unique_ptr<Kernel> makePointwise(State& state, plan::LayerRecord const& layer)
{
    return std::make_unique<PointwiseKernel>(state, *plan::paramsOf<network::PointwiseParams>(layer));
}

} // namespace kiln::cpu::fast
