// Element-wise arithmetic (sum, product, difference, quotient, maximum, minimum) through oneDNN's binary, with
// numpy-style broadcasting: both inputs have the output's rank, and an extent of 1 repeats. oneDNN's fast kernels
// broadcast the second operand only; where the first alone is broadcast, the operands swap: as they are where the
// operation commutes, and a difference a - b as -(b - a), through a linear post-op (-1 x + 0: the same values, as
// IEEE rounding is symmetric, and the same zeros, as -0 + 0 is +0 like a - a, but for (-0) - (+0), +0 here). The
// other cases (a broadcast first operand of a quotient, both operands broadcast) run on oneDNN's reference
// implementation, which broadcasts both (a BERT mask's 1 - m over [N, 1, 128, 128] took 0.49 ms there, on two
// threads). Each tensor is described as it is stored (kLINEAR or kHWC), so that a channels-last product of a
// squeeze-and-excitation block reads its tensors as they are; an input of the output's shape stored otherwise is
// converted into the output's format first. oneDNN 2.6 has no power: a power by a constant 2 runs as x * x, others
// on the reference; comparisons and logic produce BOOL, which the fast path does not take. Unlike the reference,
// oneDNN's maximum and minimum propagate a NaN of the second operand only. A channels-last product or sum by one value
// per channel, a row-major one by one value per index along adjacent axes, and a row-major sum, difference or product
// with a tensor repeated along one axis run in loops of Kiln's own (ChannelRows, AxisRows, RepeatedBlocks).
#include "backend/cpu/fast/kernels.h"

#include "network/layers/elementwise.h"
#include "plan/plan_graph.h"

#include <algorithm>
#include <array>
#include <vector>

namespace kiln::cpu::fast
{
namespace
{

using nvinfer1::ElementWiseOperation;

std::optional<dnnl::algorithm> binaryOf(ElementWiseOperation operation)
{
    using dnnl::algorithm;
    switch (operation)
    {
    case ElementWiseOperation::kSUM: return algorithm::binary_add;
    case ElementWiseOperation::kPROD: return algorithm::binary_mul;
    case ElementWiseOperation::kMAX: return algorithm::binary_max;
    case ElementWiseOperation::kMIN: return algorithm::binary_min;
    case ElementWiseOperation::kSUB: return algorithm::binary_sub;
    case ElementWiseOperation::kDIV: return algorithm::binary_div;
    default: return std::nullopt;
    }
}

bool commutes(ElementWiseOperation operation)
{
    return operation != ElementWiseOperation::kSUB && operation != ElementWiseOperation::kDIV;
}

//! oneDNN's memory has at least one axis: a scalar is a tensor of one element.
Shape atLeastOneAxis(Shape const& shape)
{
    return shape.empty() ? Shape{1} : shape;
}

//! A product or sum of channels-last activations [N, C, H, W] and a tensor of one value per channel [N or 1, C, 1, 1]
//! (a squeeze-and-excitation's scale): each row of C values with the channels' row of its image, in a loop of Kiln's
//! own, with the reference's results bit for bit.
struct ChannelRows
{
    bool product{true};    //!< else a sum
    size_t activations{0}; //!< the input holding [N, C, H, W]; the other holds the channels' values
    int64_t images{0};
    int64_t rows{0}; //!< H * W
    int64_t channels{0};
    bool rowPerImage{false}; //!< the channels' values have a row per image, else one row for all

    //! The shapes and formats it takes, where `operation` is a sum or a product.
    static std::optional<ChannelRows> of(
        ElementWiseOperation operation, LayerInputs const& inputs, TensorView const& output)
    {
        Shape const& shape = output.shape;
        if ((operation != ElementWiseOperation::kPROD && operation != ElementWiseOperation::kSUM)
            || output.format != TensorFormat::kHWC || shape.size() != 4)
        {
            return std::nullopt;
        }
        for (size_t a = 0; a < 2; ++a)
        {
            ConstTensorView const& full = inputs[a];
            Shape const& values = inputs[1 - a].shape;
            bool const perChannel = values.size() == 4 && (values[0] == shape[0] || values[0] == 1)
                && values[1] == shape[1] && values[2] == 1 && values[3] == 1;
            if (full.shape == shape && full.format == TensorFormat::kHWC && perChannel)
            {
                return ChannelRows{operation == ElementWiseOperation::kPROD, a, shape[0], shape[2] * shape[3], shape[1],
                    values[0] == shape[0] && shape[0] > 1};
            }
        }
        return std::nullopt;
    }

    void run(float const* x, float const* values, float* out) const
    {
        int64_t const count = images * rows;
#pragma omp parallel for schedule(static) if (count * channels > kParallelElements)
        for (int64_t r = 0; r < count; ++r)
        {
            float const* row = x + r * channels;
            float const* value = values + (rowPerImage ? r / rows * channels : 0);
            float* result = out + r * channels;
            if (product)
            {
#pragma omp simd
                for (int64_t c = 0; c < channels; ++c)
                {
                    result[c] = row[c] * value[c];
                }
            }
            else
            {
#pragma omp simd
                for (int64_t c = 0; c < channels; ++c)
                {
                    result[c] = row[c] + value[c];
                }
            }
        }
    }
};

//! A product or sum of row-major data and one value per index along a run of adjacent axes, the other input 1 along
//! every other axis (a detector's weights of 16 bins, [1, 1, 16, 1], times [N, 4, 16, anchors]; ResNeSt's split
//! attention, [N, 2, C, 1, 1] times [N, 2, C, H, W]): each run of the contiguous elements after those axes with its
//! index's value, in a loop of Kiln's own, with the reference's results bit for bit. oneDNN 2.6's binary broadcasts
//! such an operand only in its reference implementation (11 ms for 410 K elements on two threads; 13 to 26 ms for
//! ResNeSt-14d's products). Where the axes are the last ones (a row of values), oneDNN's broadcast is fast.
struct AxisRows
{
    bool product{true};
    size_t full{0};    //!< the input with the output's shape; the other holds the values
    int64_t rows{0};   //!< runs of `inner` elements: the elements up to and along the axes
    int64_t extent{0}; //!< the values': run r takes value r % extent
    int64_t inner{0};  //!< the elements after the axes, which share a value

    static std::optional<AxisRows> of(
        ElementWiseOperation operation, LayerInputs const& inputs, TensorView const& output)
    {
        Shape const& shape = output.shape;
        if ((operation != ElementWiseOperation::kPROD && operation != ElementWiseOperation::kSUM)
            || output.format != TensorFormat::kLINEAR)
        {
            return std::nullopt;
        }
        for (size_t a = 0; a < 2; ++a)
        {
            ConstTensorView const& full = inputs[a];
            Shape const& values = inputs[1 - a].shape;
            if (full.shape != shape || full.format != TensorFormat::kLINEAR || values.size() != shape.size())
            {
                continue;
            }
            // The axes where the values are more than one must be adjacent, and match the output's.
            std::optional<size_t> first;
            size_t last = 0;
            for (size_t k = 0; k < shape.size(); ++k)
            {
                if (values[k] != 1)
                {
                    first = first.value_or(k);
                    last = k;
                }
            }
            if (!first)
            {
                continue;
            }
            int64_t extent = 1;
            bool matches = true;
            for (size_t k = *first; k <= last; ++k)
            {
                matches = matches && values[k] == shape[k];
                extent *= shape[k];
            }
            int64_t inner = 1;
            for (size_t k = last + 1; k < shape.size(); ++k)
            {
                inner *= shape[k];
            }
            if (matches && inner > 1)
            {
                return AxisRows{operation == ElementWiseOperation::kPROD, a, output.count() / inner, extent, inner};
            }
        }
        return std::nullopt;
    }

    void run(float const* x, float const* values, float* out) const
    {
#pragma omp parallel for schedule(static) if (rows * inner > kParallelElements)
        for (int64_t r = 0; r < rows; ++r)
        {
            float const value = values[r % extent];
            float const* row = x + r * inner;
            float* result = out + r * inner;
            if (product)
            {
#pragma omp simd
                for (int64_t i = 0; i < inner; ++i)
                {
                    result[i] = row[i] * value;
                }
            }
            else
            {
#pragma omp simd
                for (int64_t i = 0; i < inner; ++i)
                {
                    result[i] = row[i] + value;
                }
            }
        }
    }
};

//! A sum, difference or product of row-major data and a tensor of its shape but for one axis other than the last, along
//! which it is 1 (a shifted-window attention's mask, [B, W, 1, N, N], added to its scores, [B, W, heads, N, N]): each
//! block of elements after the axis with the other's same block, in a loop of Kiln's own, with the reference's results
//! bit for bit. oneDNN 2.6's binary broadcasts such an operand only in its reference implementation (Swin-T's largest,
//! [1, 64, 3, 49, 49], took 14.5 ms on two threads).
struct RepeatedBlocks
{
    ElementWiseOperation operation{ElementWiseOperation::kSUM};
    size_t full{0};     //!< the input with the output's shape; the other repeats along the axis
    int64_t blocks{0};  //!< of the output: its elements up to and along the axis
    int64_t repeats{0}; //!< the axis's extent: block b reads the other's block b / repeats
    int64_t inner{0};   //!< the elements of a block, after the axis

    static std::optional<RepeatedBlocks> of(
        ElementWiseOperation operation, LayerInputs const& inputs, TensorView const& output)
    {
        Shape const& shape = output.shape;
        bool const taken = operation == ElementWiseOperation::kSUM || operation == ElementWiseOperation::kPROD
            || operation == ElementWiseOperation::kSUB;
        if (!taken || output.format != TensorFormat::kLINEAR || shape.size() < 2)
        {
            return std::nullopt;
        }
        for (size_t a = 0; a < 2; ++a)
        {
            ConstTensorView const& full = inputs[a];
            ConstTensorView const& other = inputs[1 - a];
            if (full.shape != shape || full.format != TensorFormat::kLINEAR || other.format != TensorFormat::kLINEAR
                || other.shape.size() != shape.size())
            {
                continue;
            }
            std::optional<size_t> axis;
            bool oneAxis = true;
            for (size_t k = 0; k < shape.size(); ++k)
            {
                if (other.shape[k] != shape[k])
                {
                    oneAxis = oneAxis && !axis && other.shape[k] == 1;
                    axis = k;
                }
            }
            if (!oneAxis || !axis || *axis + 1 == shape.size())
            {
                continue;
            }
            int64_t inner = 1;
            for (size_t k = *axis + 1; k < shape.size(); ++k)
            {
                inner *= shape[k];
            }
            return RepeatedBlocks{operation, a, output.count() / inner, shape[*axis], inner};
        }
        return std::nullopt;
    }

    //! out = a op b, element by element, where `full` says which of a and b is x: the reference's order for a
    //! difference.
    void run(float const* x, float const* other, float* out) const
    {
        switch (operation)
        {
        case ElementWiseOperation::kSUM: combine(x, other, out, [](float a, float b) { return a + b; }); break;
        case ElementWiseOperation::kPROD: combine(x, other, out, [](float a, float b) { return a * b; }); break;
        default:
            if (full == 0)
            {
                combine(x, other, out, [](float a, float b) { return a - b; });
            }
            else
            {
                combine(x, other, out, [](float a, float b) { return b - a; });
            }
        }
    }

private:
    //! out = f(x, other's repeated block), block by block.
    template <typename Function>
    void combine(float const* x, float const* other, float* out, Function const& f) const
    {
#pragma omp parallel for schedule(static) if (blocks * inner > kParallelElements)
        for (int64_t b = 0; b < blocks; ++b)
        {
            float const* const block = x + b * inner;
            float const* const repeated = other + b / repeats * inner;
            float* const result = out + b * inner;
#pragma omp simd
            for (int64_t i = 0; i < inner; ++i)
            {
                result[i] = f(block[i], repeated[i]);
            }
        }
    }
};

class ElementWiseKernel final : public Kernel
{
public:
    ElementWiseKernel(State& state, ElementWiseOperation operation)
        : mState(state)
        , mOperation(operation)
    {
    }

    void run(LayerInputs const& inputs, LayerOutputs const& outputs) override
    {
        TensorView const& output = outputs.at(0);
        if (output.count() == 0)
        {
            return;
        }
        Prepared& prepared = mCache.get(inputs, mState.resolvedThreads(), [&] { return prepare(inputs, output); });
        if (prepared.channelRows)
        {
            ChannelRows const& rows = *prepared.channelRows;
            rows.run(inputs[rows.activations].as<float>(), inputs[1 - rows.activations].as<float>(),
                static_cast<float*>(output.data));
            return;
        }
        if (prepared.axisRows)
        {
            AxisRows const& rows = *prepared.axisRows;
            rows.run(
                inputs[rows.full].as<float>(), inputs[1 - rows.full].as<float>(), static_cast<float*>(output.data));
            return;
        }
        if (prepared.repeatedBlocks)
        {
            RepeatedBlocks const& blocks = *prepared.repeatedBlocks;
            blocks.run(
                inputs[blocks.full].as<float>(), inputs[1 - blocks.full].as<float>(), static_cast<float*>(output.data));
            return;
        }
        void const* first = convertedIfNeeded(prepared, inputs, output.format, 0);
        void const* second = convertedIfNeeded(prepared, inputs, output.format, 1);
        if (prepared.swapped)
        {
            std::swap(first, second);
        }
        prepared.primitive.run({first, second, output.data}, mState.stream);
    }

private:
    struct Prepared
    {
        PlainPrimitive primitive;
        //! The primitive's first source is the layer's second input (a difference then negated by a post-op).
        bool swapped{false};
        std::optional<ChannelRows> channelRows;       //!< where it runs instead of the primitive
        std::optional<AxisRows> axisRows;             //!< the same
        std::optional<RepeatedBlocks> repeatedBlocks; //!< the same
        //! By input: it has the output's shape but not its format, and is converted into it before the primitive.
        std::array<bool, 2> converted{false, false};
    };

    //! Whether input `i` of the output's shape is stored in another format: oneDNN 2.6's binary then runs its
    //! reference implementation (a residual sum of a row-major slice and a channels-last convolution output took 29 ns
    //! an element, where a conversion first and the fast binary take a fraction of that).
    static bool storedOtherwise(ConstTensorView const& input, TensorView const& output)
    {
        return input.shape == output.shape && input.format != output.format && input.shape.size() >= 3;
    }

    //! Input `i`'s data as the primitive reads it: converted into `format` where prepare said so.
    void const* convertedIfNeeded(Prepared const& prepared, LayerInputs const& inputs, TensorFormat format, size_t i)
    {
        return prepared.converted[i] ? inFormat(inputs[i], format, mConverted[i]).data : inputs[i].data;
    }

    Prepared prepare(LayerInputs const& inputs, TensorView const& output) const
    {
        if (std::optional<ChannelRows> rows = ChannelRows::of(mOperation, inputs, output))
        {
            return Prepared{{}, false, rows, std::nullopt, std::nullopt};
        }
        if (std::optional<AxisRows> rows = AxisRows::of(mOperation, inputs, output))
        {
            return Prepared{{}, false, std::nullopt, rows, std::nullopt};
        }
        if (std::optional<RepeatedBlocks> blocks = RepeatedBlocks::of(mOperation, inputs, output))
        {
            return Prepared{{}, false, std::nullopt, std::nullopt, blocks};
        }
        Shape const result = atLeastOneAxis(output.shape);
        bool const swapped = (commutes(mOperation) || mOperation == ElementWiseOperation::kSUB)
            && inputs[0].shape != output.shape && inputs[1].shape == output.shape;
        std::array<bool, 2> const converted{storedOtherwise(inputs[0], output), storedOtherwise(inputs[1], output)};
        size_t const firstIndex = swapped ? 1 : 0;
        ConstTensorView const& first = inputs[firstIndex];
        ConstTensorView const& second = inputs[1 - firstIndex];
        dnnl::memory::desc const source0
            = storedDesc(atLeastOneAxis(first.shape), converted[firstIndex] ? output.format : first.format);
        dnnl::memory::desc const source1
            = storedDesc(atLeastOneAxis(second.shape), converted[1 - firstIndex] ? output.format : second.format);
        dnnl::memory::desc const destination = storedDesc(result, output.format);
        dnnl::binary::desc const description(*binaryOf(mOperation), source0, source1, destination);
        dnnl::primitive_attr attributes;
        if (swapped && !commutes(mOperation))
        {
            dnnl::post_ops negation;
            negation.append_eltwise(1.0F, dnnl::algorithm::eltwise_linear, -1.0F, 0.0F);
            attributes.set_post_ops(negation);
        }
        dnnl::binary::primitive_desc const chosen(description, attributes, mState.engine);
        return Prepared{
            PlainPrimitive(dnnl::binary(chosen),
                {{DNNL_ARG_SRC_0, source0}, {DNNL_ARG_SRC_1, source1}, {DNNL_ARG_DST, destination}}, mState.engine),
            swapped, std::nullopt, std::nullopt, std::nullopt, converted};
    }

    State& mState;
    ElementWiseOperation const mOperation;
    PreparedCache<Prepared> mCache;
    std::array<std::vector<std::byte>, 2> mConverted; //!< inputs converted into the output's format
};

//! x^2 for a power by a constant exponent of 2 (RMSNorm's and LayerNorm's expansions, T5's among them): the product
//! x * x, the correctly rounded square, which the reference computes too.
class SquareKernel final : public Kernel
{
public:
    explicit SquareKernel(State& state)
        : mProduct(state, ElementWiseOperation::kPROD)
    {
    }

    void run(LayerInputs const& inputs, LayerOutputs const& outputs) override
    {
        mOperands.assign(2, inputs.at(0));
        mProduct.run(mOperands, outputs);
    }

private:
    ElementWiseKernel mProduct;
    LayerInputs mOperands; //!< the base twice
};

//! Whether `layer` raises its first input, of the output's shape, to a constant power of 2.
bool squares(plan::PlanModel const& model, plan::LayerRecord const& layer)
{
    auto const producer = [&model](int32_t t) -> std::optional<size_t> {
        for (size_t l = 0; l < model.layers.size(); ++l)
        {
            std::vector<int32_t> const& outputs = model.layers[l].outputs;
            if (std::find(outputs.begin(), outputs.end(), t) != outputs.end())
            {
                return l;
            }
        }
        return std::nullopt;
    };
    return plan::paramsOf<network::ElementWiseParams>(layer)->operation == ElementWiseOperation::kPOW
        && plan::sameShape(model, layer.inputs[0], layer.outputs.at(0))
        && plan::scalarConstant(model, layer.inputs[1], producer) == 2.0F;
}

} // namespace

bool supportsElementWise(plan::PlanModel const& model, plan::LayerRecord const& layer)
{
    auto const* params = plan::paramsOf<network::ElementWiseParams>(layer);
    return params != nullptr && layer.inputs.size() == 2 && layer.inputs[0] >= 0 && layer.inputs[1] >= 0
        && !layer.epilogue.any() && (binaryOf(params->operation).has_value() || squares(model, layer));
}

std::unique_ptr<Kernel> makeElementWise(State& state, plan::LayerRecord const& layer)
{
    ElementWiseOperation const operation = plan::paramsOf<network::ElementWiseParams>(layer)->operation;
    if (operation == ElementWiseOperation::kPOW)
    {
        return std::make_unique<SquareKernel>(state); // supportsElementWise took only squares
    }
    return std::make_unique<ElementWiseKernel>(state, operation);
}

} // namespace kiln::cpu::fast
