// Layer normalization (statistics over the trailing axes, a scale and a shift per normalized element) through
// oneDNN's layer_normalization, which normalizes the last axis of a 2-D view of the tensor: [outer, normalized
// elements]; rows of 2^14 elements or more (which oneDNN gives one thread each) in loops of Kiln's own that spread each
// row over the threads. A normalization of whole samples with weights per channel (PoolFormer's, its affine step folded
// in: passes/sample_affine_folding.h) runs in those loops at any length, reading the weights per channel as its samples
// lie, row-major or channels-last. Group and
// instance normalization, whose weights vary along the axes that are not normalized, stay on the reference. oneDNN sums
// squares in FP32, the reference (and Kiln's loops) in double: values beyond about 1e19, whose squares overflow,
// normalize to 0 on oneDNN.
#include "backend/cpu/fast/kernels.h"

#include "backend/cpu/kernels/nn/broadcast.h"
#include "backend/cpu/kernels/tensor/shape_utils.h"
#include "network/layers/normalization.h"
#include "plan/plan_graph.h"
#include "shape/expr.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <vector>

namespace kiln::cpu::fast
{
namespace
{

using dnnl::memory;

//! Rows of this many elements or more are normalized by loops of Kiln's own, each row spread over the threads: oneDNN
//! 2.6's layer normalization gives each row to one thread (PoolFormer-S12's group normalizations of one group, one
//! row of 25,088 to 200,704 elements an image, took 0.6 to 2 ms each on two threads). The choice does not depend on the
//! thread count, so that every count gives the same bits.
constexpr int64_t kLongRow = int64_t{1} << 14;
//! A row's sums in Kiln's loops are taken over chunks of this many elements and added in order: the same bits at any
//! thread count.
constexpr int64_t kChunk = 4096;

//! The sum of f(x[i]) over a row of `count` elements, in double, chunk by chunk.
template <typename Term>
double chunkedSum(float const* x, int64_t count, int threads, Term const& term)
{
    int64_t const chunks = (count + kChunk - 1) / kChunk;
    std::vector<double> partial(static_cast<size_t>(chunks));
#pragma omp parallel for schedule(static) num_threads(threads)
    for (int64_t c = 0; c < chunks; ++c)
    {
        double sum = 0.0;
        for (int64_t i = c * kChunk; i < std::min(count, (c + 1) * kChunk); ++i)
        {
            sum += term(x[i]);
        }
        partial[static_cast<size_t>(c)] = sum;
    }
    double total = 0.0;
    for (double const sum : partial)
    {
        total += sum;
    }
    return total;
}

//! A row's scale or shift in Kiln's loops: element i's is values[i * step] (a step of 0: one value for all), or where
//! `perChannel` the value of its channel (the first normalized axis).
struct Weights
{
    float const* values;
    int64_t step;
    bool perChannel{false};

    float at(int64_t element, int64_t channel) const
    {
        return perChannel ? values[channel] : values[element * step];
    }
};

//! How a row's elements lie: `channels` along the first normalized axis, innermost where `channelsLast` (a sample of a
//! kHWC tensor), else outermost.
struct RowLayout
{
    int64_t channels;
    bool channelsLast;
};

//! y = (x - center) * inverse * scale + shift over a row, the weights per channel: a loop over the channels
//! inside or outside one over the positions, as the row lies.
void applyPerChannel(float const* x, float* y, int64_t count, Weights const& scale, Weights const& shift,
    RowLayout const& layout, float center, float inverse, int threads)
{
    int64_t const channels = layout.channels;
    int64_t const positions = count / channels;
    if (layout.channelsLast)
    {
#pragma omp parallel for schedule(static) num_threads(threads)
        for (int64_t p = 0; p < positions; ++p)
        {
#pragma omp simd
            for (int64_t c = 0; c < channels; ++c)
            {
                int64_t const i = p * channels + c;
                y[i] = (x[i] - center) * inverse * scale.at(i, c) + shift.at(i, c);
            }
        }
        return;
    }
#pragma omp parallel for schedule(static) num_threads(threads)
    for (int64_t c = 0; c < channels; ++c)
    {
#pragma omp simd
        for (int64_t i = c * positions; i < (c + 1) * positions; ++i)
        {
            y[i] = (x[i] - center) * inverse * scale.at(i, c) + shift.at(i, c);
        }
    }
}

//! One row normalized as the reference does (the mean, then the squared deviations, in double), then scaled and
//! shifted per element in FP32, spread over the threads.
void normalizeRowAcrossThreads(float const* x, float* y, int64_t count, Weights const& scale, Weights const& shift,
    RowLayout const& layout, float epsilon, int threads)
{
    double const mean
        = chunkedSum(x, count, threads, [](float v) { return static_cast<double>(v); }) / static_cast<double>(count);
    double const variance = chunkedSum(x, count, threads, [mean](float v) {
        double const deviation = static_cast<double>(v) - mean;
        return deviation * deviation;
    }) / static_cast<double>(count);
    auto const center = static_cast<float>(mean);
    auto const inverseDeviation = static_cast<float>(1.0 / std::sqrt(variance + static_cast<double>(epsilon)));
    if (scale.perChannel || shift.perChannel)
    {
        applyPerChannel(x, y, count, scale, shift, layout, center, inverseDeviation, threads);
        return;
    }
#pragma omp parallel for simd schedule(static) num_threads(threads)
    for (int64_t i = 0; i < count; ++i)
    {
        y[i] = (x[i] - center) * inverseDeviation * scale.values[i * scale.step] + shift.values[i * shift.step];
    }
}

class NormalizationKernel final : public Kernel
{
public:
    NormalizationKernel(State& state, plan::LayerRecord const& layer)
        : mState(state)
        , mOwner(layer.params)
        , mParams(*plan::paramsOf<network::NormalizationParams>(layer))
    {
    }

    void run(LayerInputs const& inputs, LayerOutputs const& outputs) override
    {
        TensorView const& output = outputs.at(0);
        if (output.count() == 0)
        {
            return;
        }
        Prepared& prepared
            = mCache.get(inputs, mState.resolvedThreads(), [&] { return prepare(inputs, output.shape); });
        int64_t const elements = volume(prepared.normalized);
        if (prepared.ownLoops)
        {
            int64_t const rows = output.count() / elements;
            Weights const scale = weightsOf(inputs[1], prepared.normalized, prepared.scaleValues);
            Weights const shift = weightsOf(inputs[2], prepared.normalized, prepared.shiftValues);
            RowLayout const layout{prepared.normalized[0], inputs[0].format == TensorFormat::kHWC};
            for (int64_t row = 0; row < rows; ++row)
            {
                normalizeRowAcrossThreads(inputs[0].as<float>() + row * elements,
                    static_cast<float*>(output.data) + row * elements, elements, scale, shift, layout, mParams.epsilon,
                    mState.resolvedThreads());
            }
            return;
        }
        // oneDNN's memory objects are not const-aware; the sources are only read.
        prepared.source.set_data_handle(const_cast<void*>(inputs[0].data));
        prepared.destination.set_data_handle(output.data);
        prepared.scale.set_data_handle(perElement(inputs[1], prepared.normalized, prepared.scaleValues));
        prepared.shift.set_data_handle(perElement(inputs[2], prepared.normalized, prepared.shiftValues));
        prepared.primitive.execute(mState.stream,
            {{DNNL_ARG_SRC, prepared.source}, {DNNL_ARG_DST, prepared.destination}, {DNNL_ARG_SCALE, prepared.scale},
                {DNNL_ARG_SHIFT, prepared.shift}});
        mState.stream.wait();
    }

private:
    //! What a run of one shape needs: oneDNN's primitive and its memory objects for the rows oneDNN normalizes (left
    //! empty where Kiln's loops do).
    struct Prepared
    {
        dnnl::layer_normalization_forward primitive;
        memory source;
        memory destination;
        memory scale;
        memory shift;
        Shape normalized;               //!< the normalized axes' extents
        bool ownLoops{false};           //!< rows normalized by Kiln's loops: long ones, or weights per channel
        std::vector<float> scaleValues; //!< the scale per normalized element, where it broadcasts along those axes
        std::vector<float> shiftValues; //!< likewise
    };

    //! The first normalized axis: the axes mask names it and every later one (supportsNormalization).
    size_t firstAxis() const
    {
        return static_cast<size_t>(std::countr_zero(mParams.axes));
    }

    Prepared prepare(LayerInputs const& inputs, Shape const& shape) const
    {
        Shape const normalized(shape.begin() + static_cast<std::ptrdiff_t>(firstAxis()), shape.end());
        int64_t const elements = volume(normalized);
        if (elements >= kLongRow || perChannel(inputs[1], normalized) || perChannel(inputs[2], normalized))
        {
            return Prepared{{}, {}, {}, {}, {}, normalized, true, {}, {}}; // Kiln's loops: no oneDNN primitive
        }
        memory::desc const data = linearDesc({volume(shape) / elements, elements});
        memory::desc const weights = linearDesc({elements});
        dnnl::layer_normalization_forward::desc const description(dnnl::prop_kind::forward_inference, data,
            mParams.epsilon, dnnl::normalization_flags::use_scale | dnnl::normalization_flags::use_shift);
        dnnl::layer_normalization_forward::primitive_desc const chosen(description, mState.engine);
        return Prepared{dnnl::layer_normalization_forward(chosen), userMemory(data, mState.engine),
            userMemory(data, mState.engine), userMemory(weights, mState.engine), userMemory(weights, mState.engine),
            normalized, false, {}, {}};
    }

    //! `weights` as Kiln's loops read them: one value for every element (a group normalization of one group's scale and
    //! shift), one per channel, else one per normalized element (perElement: the row is row-major, as only weights of
    //! one value or one per channel keep channels-last samples, plan::normalizesSamplesPerChannel).
    Weights weightsOf(ConstTensorView const& weights, Shape const& normalized, std::vector<float>& storage) const
    {
        if (weights.count() == 1)
        {
            return Weights{weights.as<float>(), 0};
        }
        if (perChannel(weights, normalized))
        {
            return Weights{weights.as<float>(), 0, true};
        }
        return Weights{static_cast<float const*>(perElement(weights, normalized, storage)), 1};
    }

    //! Whether `weights` hold one value per channel of a sample of a 4-D tensor ([1, C, 1, 1], more than one element
    //! a channel).
    static bool perChannel(ConstTensorView const& weights, Shape const& normalized)
    {
        return normalized.size() == 3 && weights.shape.size() == 4 && weights.shape[1] == normalized[0]
            && weights.count() == normalized[0] && normalized[1] * normalized[2] > 1;
    }

    //! The values of `weights` (extent 1 along the axes that are not normalized) for each normalized element of a
    //! row-major row: its own data where it has every one, else broadcast into `storage`.
    void* perElement(ConstTensorView const& weights, Shape const& normalized, std::vector<float>& storage) const
    {
        Shape const trailing(weights.shape.end() - static_cast<std::ptrdiff_t>(normalized.size()), weights.shape.end());
        if (trailing == normalized)
        {
            return const_cast<void*>(weights.data);
        }
        Shape const strides = tensor_detail::broadcastStrides(trailing, normalized, "normalization");
        auto const* values = static_cast<float const*>(weights.data);
        storage.resize(static_cast<size_t>(volume(normalized)));
        Shape index(normalized.size(), 0);
        for (float& value : storage)
        {
            int64_t offset = 0;
            for (size_t axis = 0; axis < index.size(); ++axis)
            {
                offset += index[axis] * strides[axis];
            }
            value = values[offset];
            advanceIndex(index, normalized);
        }
        return storage.data();
    }

    State& mState;
    std::shared_ptr<network::LayerParams const> const mOwner; //!< keeps mParams
    network::NormalizationParams const& mParams;
    PreparedCache<Prepared> mCache;
};

//! Whether tensor `t`'s extents before `axis` are known to be 1.
bool onesBefore(plan::PlanModel const& model, int32_t t, size_t axis)
{
    std::vector<int32_t> const& dims = model.tensors[t].dims;
    for (size_t a = 0; a < axis && a < dims.size(); ++a)
    {
        plan::ExprNode const& extent = model.exprs[dims[a]];
        if (extent.kind != static_cast<uint8_t>(shape::ExprKind::kCONSTANT) || extent.value != 1)
        {
            return false;
        }
    }
    return true;
}

} // namespace

bool supportsNormalization(plan::PlanModel const& model, plan::LayerRecord const& layer)
{
    auto const* params = plan::paramsOf<network::NormalizationParams>(layer);
    if (params == nullptr || layer.inputs.size() != 3 || layer.epilogue.any() || params->nbGroups > 1)
    {
        return false;
    }
    for (int32_t t : layer.inputs)
    {
        if (t < 0)
        {
            return false;
        }
    }
    size_t const rank = model.tensors[layer.inputs[0]].dims.size();
    if (rank == 0 || rank >= 32 || params->axes == 0)
    {
        return false;
    }
    // The axes from the first named one to the last: oneDNN's normalized elements are the view's last axis.
    auto const first = static_cast<size_t>(std::countr_zero(params->axes));
    uint32_t const trailing = ((1U << rank) - 1U) & ~((1U << first) - 1U);
    auto weightsFit = [&](int32_t t) { return model.tensors[t].dims.size() == rank && onesBefore(model, t, first); };
    return params->axes == trailing && weightsFit(layer.inputs[1]) && weightsFit(layer.inputs[2]);
}

std::unique_ptr<Kernel> makeNormalization(State& state, plan::LayerRecord const& layer)
{
    return std::make_unique<NormalizationKernel>(state, layer);
}

} // namespace kiln::cpu::fast
