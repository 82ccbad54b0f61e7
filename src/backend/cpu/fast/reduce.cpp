// Reductions (sum, product, maximum, minimum, mean) over any axes through oneDNN's reduction. Its destination keeps
// the reduced axes as extents of 1, which is the same row-major data as an output without them: keepDimensions does
// not matter here. Axes of extent 1 are dropped and neighbouring axes that are both reduced or both kept merge, so
// that oneDNN sees the fewest axes (its fast kernel reduces the innermost ones: a global average pooling is
// [N * C, H * W] -> [N * C, 1]). Unlike the reference, oneDNN's maximum and minimum keep a NaN only where it comes
// last. A channels-last input is folded in the order its axes lie in memory: a global average pooling of a kHWC
// tensor is [N, H * W, C] -> [N, 1, C], the same row-major output. Sums and means over the middle or the innermost
// axis, the shapes above, run in loops of Kiln's own (RowReduction, InnermostReduction).
#include "backend/cpu/fast/kernels.h"

#include "network/layers/reduce.h"
#include "plan/plan_graph.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <utility>
#include <vector>

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

//! `input`'s shape and `reduceAxes` in the order its axes lie in memory, for a reduction writing a row-major output:
//! a kHWC input's kept axes must lie in their logical order (its channels and batch, where both spatial axes are
//! reduced), so that the output's elements come out row-major. Throws std::invalid_argument otherwise.
std::pair<Shape, uint32_t> inMemoryOrder(ConstTensorView const& input, uint32_t reduceAxes, TensorFormat output)
{
    if (input.format == TensorFormat::kLINEAR && output == TensorFormat::kLINEAR)
    {
        return {input.shape, reduceAxes};
    }
    std::vector<int32_t> const order = input.format == TensorFormat::kLINEAR
        ? std::vector<int32_t>{}
        : storedAxisOrder(input.format, input.shape.size());
    Shape shape;
    uint32_t axes = 0;
    int32_t lastKept = -1;
    bool inOrder = output == TensorFormat::kLINEAR && input.format == TensorFormat::kHWC;
    for (size_t p = 0; p < order.size(); ++p)
    {
        auto const axis = static_cast<size_t>(order[p]);
        bool const reduced = ((reduceAxes >> axis) & 1U) != 0;
        shape.push_back(input.shape[axis]);
        axes |= reduced ? 1U << p : 0U;
        if (!reduced && input.shape[axis] > 1)
        {
            inOrder = inOrder && order[p] > lastKept;
            lastKept = order[p];
        }
    }
    if (!inOrder)
    {
        throw std::invalid_argument("a reduction reads a channels-last tensor only where it keeps its axes in their "
                                    "order, and writes a row-major output");
    }
    return {shape, axes};
}

//! `result` = the sum of `count` rows of `length` values, `stride` apart from `first`, added in their order, times
//! `scale`.
void sumRowsInto(float const* first, int64_t count, int64_t stride, int64_t length, float scale, float* result)
{
    std::copy_n(first, length, result);
    for (int64_t r = 1; r < count; ++r)
    {
        float const* row = first + r * stride;
#pragma omp simd
        for (int64_t i = 0; i < length; ++i)
        {
            result[i] += row[i];
        }
    }
#pragma omp simd
    for (int64_t i = 0; i < length; ++i)
    {
        result[i] *= scale;
    }
}

//! A sum or mean over the middle axis of row-major [outer, rows, inner] data with more than one inner element: the
//! global pooling of channels-last activations ([N, H * W, C]), which oneDNN 2.6's reduction runs one element at a
//! time. The rows are summed in chunks, each a stretch of memory read in order into a row of partial sums, and the
//! partial sums are added in the chunks' order. A chunk's rows depend on the shape alone, never on the thread count,
//! so that the sums' order, and so their bits, are the same at any thread count; threads take whole chunks, and only
//! past kParallelElements, below which waking them costs more than it saves.
struct RowReduction
{
    static constexpr int64_t kChunkElements = 16384;

    int64_t outer{0};
    int64_t rows{0};
    int64_t inner{0};
    bool mean{false};

    void run(float const* input, float* output) const
    {
        if (inner >= kChunkElements)
        {
            sumLongRows(input, output);
            return;
        }
        int64_t const chunkRows = std::max<int64_t>(1, kChunkElements / inner);
        int64_t const chunks = (rows + chunkRows - 1) / chunkRows;
        std::vector<float> partials(static_cast<size_t>(outer * chunks * inner), 0.0F);
#pragma omp parallel for collapse(2) schedule(static) if (outer * rows * inner > kParallelElements)
        for (int64_t o = 0; o < outer; ++o)
        {
            for (int64_t k = 0; k < chunks; ++k)
            {
                float* const sums = partials.data() + (o * chunks + k) * inner;
                int64_t const end = std::min(rows, (k + 1) * chunkRows);
                for (int64_t r = k * chunkRows; r < end; ++r)
                {
                    float const* row = input + (o * rows + r) * inner;
#pragma omp simd
                    for (int64_t i = 0; i < inner; ++i)
                    {
                        sums[i] += row[i];
                    }
                }
            }
        }
        float const scale = mean ? 1.0F / static_cast<float>(rows) : 1.0F;
        for (int64_t o = 0; o < outer; ++o)
        {
            sumRowsInto(partials.data() + o * chunks * inner, chunks, inner, inner, scale, output + o * inner);
        }
    }

private:
    //! Rows of kChunkElements or more, where each chunk above would be one row (a split-attention sum of two halves
    //! of 400,000 elements): each element is the sum of its column in the rows' order, the same bits as the chunks
    //! give, added straight into the output. Threads take stretches of columns, which needs no partial sums (the
    //! chunks' cost a pass over memory and an allocation the size of the input) and no serial pass adding them.
    void sumLongRows(float const* input, float* output) const
    {
        int64_t const stretches = (inner + kChunkElements - 1) / kChunkElements;
        float const scale = mean ? 1.0F / static_cast<float>(rows) : 1.0F;
#pragma omp parallel for collapse(2) schedule(static) if (outer * rows * inner > kParallelElements)
        for (int64_t o = 0; o < outer; ++o)
        {
            for (int64_t k = 0; k < stretches; ++k)
            {
                int64_t const begin = k * kChunkElements;
                int64_t const length = std::min(kChunkElements, inner - begin);
                sumRowsInto(input + o * rows * inner + begin, rows, inner, length, scale, output + o * inner + begin);
            }
        }
    }
};

//! A sum or mean of each row of row-major [rows, length] data (a global average pooling of row-major activations,
//! [N * C, H * W]), which oneDNN 2.6's reduction ran at several times the cost of reading the data. Each row is summed
//! by one thread in a fixed order, so the bits are the same at any thread count; threads take whole rows, and only
//! past kParallelElements.
struct InnermostReduction
{
    int64_t rows{0};
    int64_t length{0};
    bool mean{false};

    void run(float const* input, float* output) const
    {
        float const scale = mean ? 1.0F / static_cast<float>(length) : 1.0F;
#pragma omp parallel for schedule(static) if (rows * length > kParallelElements)
        for (int64_t r = 0; r < rows; ++r)
        {
            float const* row = input + r * length;
            float sum = 0.0F;
#pragma omp simd reduction(+ : sum)
            for (int64_t i = 0; i < length; ++i)
            {
                sum += row[i];
            }
            output[r] = sum * scale;
        }
    }
};

//! What one input shape needs: nothing (only axes of extent 1 reduced: a copy), the rows' reduction, or oneDNN's.
struct Prepared
{
    std::optional<RowReduction> rows;
    std::optional<InnermostReduction> innermost;
    std::optional<PlainPrimitive> primitive;
};

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
        Prepared& prepared = mCache.get(inputs, mState.resolvedThreads(), [&] {
            auto const [shape, axes] = inMemoryOrder(input, mReduceAxes, output.format);
            return prepare(shape, axes);
        });
        if (prepared.rows)
        {
            prepared.rows->run(input.as<float>(), output.as<float>());
        }
        else if (prepared.innermost)
        {
            prepared.innermost->run(input.as<float>(), output.as<float>());
        }
        else if (prepared.primitive)
        {
            prepared.primitive->run({input.data, output.data}, mState.stream);
        }
        else
        {
            std::copy_n(input.as<float>(), input.count(), output.as<float>());
        }
    }

private:
    //! The work for an input of `input`'s shape; none where only axes of extent 1 are reduced, which leaves the
    //! values as they are.
    Prepared prepare(Shape const& input, uint32_t reduceAxes) const
    {
        Folded folded = fold(input, reduceAxes);
        if (folded.source == folded.destination)
        {
            return {};
        }
        if (folded.destination.front() == 1)
        {
            // Reduced rows first: [rows, inner] is [1, rows, inner].
            folded.source.insert(folded.source.begin(), 1);
            folded.destination.insert(folded.destination.begin(), 1);
        }
        bool const sums = mOperation == ReduceOperation::kSUM || mOperation == ReduceOperation::kAVG;
        if (sums && folded.source.size() == 3 && folded.destination[1] == 1)
        {
            return {
                RowReduction{folded.source[0], folded.source[1], folded.source[2], mOperation == ReduceOperation::kAVG},
                std::nullopt, std::nullopt};
        }
        if (sums && folded.source.size() == 2 && folded.destination[1] == 1)
        {
            return {std::nullopt,
                InnermostReduction{folded.source[0], folded.source[1], mOperation == ReduceOperation::kAVG},
                std::nullopt};
        }
        dnnl::memory::desc const source = linearDesc(folded.source);
        dnnl::memory::desc const destination = linearDesc(folded.destination);
        dnnl::reduction::desc const description(reductionOf(mOperation), source, destination, 0.0F, 0.0F);
        dnnl::reduction::primitive_desc const chosen(description, mState.engine);
        return {std::nullopt, std::nullopt,
            PlainPrimitive(
                dnnl::reduction(chosen), {{DNNL_ARG_SRC, source}, {DNNL_ARG_DST, destination}}, mState.engine)};
    }

    State& mState;
    ReduceOperation const mOperation;
    uint32_t const mReduceAxes;
    PreparedCache<Prepared> mCache;
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
