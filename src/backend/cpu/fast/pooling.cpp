// Max and average pooling (1-D to 3-D) through oneDNN, at the shapes where oneDNN computes what the reference
// kernel does. Two cases differ: an average that counts padding is divided by the whole window in oneDNN, by the
// window's overlap with the padded input in the reference, which is less where kEXPLICIT_ROUND_UP's last windows
// reach past the post-padding; and a window over padding alone gives 0 in the reference, not in oneDNN (its maximum
// is the lowest float). A layer of static shape with such a window stays on the reference kernel; a dynamic one runs
// the reference kernel at the shapes that have one (on row-major copies, where the tensors are stored channels-last).
// Unlike the reference, oneDNN's maximum ignores NaN.
#include "backend/cpu/fast/kernels.h"

#include "backend/cpu/kernels/nn/pooling.h"
#include "backend/cpu/kernels/tensor/reformat.h"
#include "backend/shared/sliding_window.h"
#include "network/layers/layer_utils.h"
#include "plan/plan_graph.h"

#include <algorithm>
#include <numeric>

namespace kiln::cpu::fast
{
namespace
{

using network::PoolingParams;
using nvinfer1::PoolingType;

//! The window as oneDNN's pooling takes it, per spatial axis.
struct Window
{
    dnnl::memory::dims kernel;
    dnnl::memory::dims strides;
    dnnl::memory::dims before;
    dnnl::memory::dims after;
};

//! The window on an input of `inputShape`, where oneDNN pools it as the reference kernel does.
std::optional<Window> oneDnnWindow(PoolingParams const& params, Shape const& inputShape)
{
    Shape const size = network::dimsToVector(params.windowSize);
    Shape const stride = network::dimsToVector(params.stride);
    Shape const spatial(inputShape.end() - static_cast<std::ptrdiff_t>(size.size()), inputShape.end());
    backend::WindowGeometry const geometry = backend::forwardWindowGeometry(spatial, size, stride,
        network::dimsToVector(params.prePadding), network::dimsToVector(params.postPadding), params.paddingMode);
    bool const countsPadding = params.poolingType == PoolingType::kAVERAGE && !params.averageCountExcludesPadding;
    Window window;
    for (size_t axis = 0; axis < size.size(); ++axis)
    {
        int64_t const pre = geometry.prePadding[axis];
        // The padding the output size needs (oneDNN checks it): rounding up may pad past the post-padding; rounding
        // down may leave the last input elements out, which takes none.
        int64_t const after
            = std::max<int64_t>(0, (geometry.outputSize[axis] - 1) * stride[axis] + size[axis] - spatial[axis] - pre);
        bool const everyWindowReadsInput = pre < size[axis] && after < size[axis];
        if (!everyWindowReadsInput || (countsPadding && after > geometry.postPadding[axis]))
        {
            return std::nullopt;
        }
        window.kernel.push_back(size[axis]);
        window.strides.push_back(stride[axis]);
        window.before.push_back(pre);
        window.after.push_back(after);
    }
    return window;
}

//! `shape` as oneDNN's pooling takes it, [N, C, spatial...]: the axes before the channels fold into N.
Shape batchChannelsSpatial(Shape const& shape, size_t spatialRank)
{
    auto const channels = shape.end() - static_cast<std::ptrdiff_t>(spatialRank) - 1;
    Shape folded{std::accumulate(shape.begin(), channels, int64_t{1}, std::multiplies<>()), *channels};
    folded.insert(folded.end(), channels + 1, shape.end());
    return folded;
}

//! The channels-last layout of [N, C, spatial...]: the one oneDNN's fast pooling kernels take on every ISA (on the
//! row-major one it runs a plain loop, 2 to 10 times slower than reordering in and out around the fast kernel).
dnnl::memory::desc channelsLast(Shape const& shape, dnnl::memory::data_type type)
{
    using Tag = dnnl::memory::format_tag;
    static constexpr Tag kTags[] = {Tag::nwc, Tag::nhwc, Tag::ndhwc};
    return dnnl::memory::desc(dimsOf(shape), type, kTags[shape.size() - 3]);
}

class PoolingKernel final : public Kernel
{
public:
    PoolingKernel(State& state, plan::LayerRecord const& layer)
        : mState(state)
        , mOwner(layer.params)
        , mParams(*plan::paramsOf<PoolingParams>(layer))
    {
    }

    void run(LayerInputs const& inputs, LayerOutputs const& outputs) override
    {
        TensorView const& output = outputs.at(0);
        if (output.count() == 0)
        {
            return;
        }
        // A global pooling writes few elements from many.
        int32_t const threads = primitiveThreads(mState, std::max(inputs[0].count(), output.count()));
        std::optional<Prepared>& prepared
            = mCache.get(inputs, threads, [&] { return prepare(inputs[0], output.shape, output.format); });
        if (!prepared)
        {
            runOnReference(inputs[0], output);
            return;
        }
        dnnl::stream& stream = mState.stream;
        prepared->primitive.execute(stream,
            {{DNNL_ARG_SRC, prepared->source.read(inputs[0].data, stream)},
                {DNNL_ARG_DST, prepared->destination.target(output.data)}});
        prepared->destination.commit(output.data, stream);
        stream.wait();
    }

private:
    struct Prepared
    {
        dnnl::pooling_forward primitive;
        Staged source;
        Staged destination;
    };

    //! The reference kernel, on row-major copies of tensors stored channels-last.
    void runOnReference(ConstTensorView const& input, TensorView const& output)
    {
        if (input.format == TensorFormat::kLINEAR && output.format == TensorFormat::kLINEAR)
        {
            runPooling(mParams, input, output);
            return;
        }
        mLinearOutput.resize(static_cast<size_t>(output.count()) * elementSize(output.type));
        TensorView const linearOutput{output.type, output.shape, mLinearOutput.data()};
        runPooling(mParams, inFormat(input, TensorFormat::kLINEAR, mLinearInput), linearOutput);
        reformat(linearOutput, output);
    }

    //! The primitive for an input of `input`'s shape; none where the reference kernel runs it.
    std::optional<Prepared> prepare(
        ConstTensorView const& inputView, Shape const& output, TensorFormat outputFormat) const
    {
        Shape const& input = inputView.shape;
        // FP32, or INT8 for a max pooling the quantized fusion moved onto an INT8 tensor (in and out).
        dnnl::memory::data_type const type = inputView.type == nvinfer1::DataType::kINT8 ? dnnl::memory::data_type::s8
                                                                                         : dnnl::memory::data_type::f32;
        std::optional<Window> const window = oneDnnWindow(mParams, input);
        if (!window)
        {
            return std::nullopt;
        }
        size_t const spatialRank = window->kernel.size();
        Shape const source = batchChannelsSpatial(input, spatialRank);
        Shape const destination = batchChannelsSpatial(output, spatialRank);
        dnnl::algorithm const algorithm = mParams.poolingType == PoolingType::kMAX ? dnnl::algorithm::pooling_max
            : mParams.averageCountExcludesPadding ? dnnl::algorithm::pooling_avg_exclude_padding
                                                  : dnnl::algorithm::pooling_avg_include_padding;
        dnnl::pooling_forward::desc const description(dnnl::prop_kind::forward_inference, algorithm,
            channelsLast(source, type), channelsLast(destination, type), window->strides, window->kernel,
            window->before, window->after);
        dnnl::pooling_forward::primitive_desc const chosen(description, mState.engine);
        return Prepared{dnnl::pooling_forward(chosen),
            Staged(storedDesc(source, inputView.format, type), chosen.src_desc(), mState.engine),
            Staged(storedDesc(destination, outputFormat, type), chosen.dst_desc(), mState.engine)};
    }

    State& mState;
    std::shared_ptr<network::LayerParams const> const mOwner; //!< keeps mParams
    PoolingParams const& mParams;
    PreparedCache<std::optional<Prepared>> mCache;
    std::vector<std::byte> mLinearInput; //!< runOnReference's row-major copies
    std::vector<std::byte> mLinearOutput;
};

} // namespace

bool supportsPooling(plan::PlanModel const& model, plan::LayerRecord const& layer)
{
    auto const* params = plan::paramsOf<PoolingParams>(layer);
    if (params == nullptr || !readsOneTensor(layer)
        || (params->poolingType != PoolingType::kMAX && params->poolingType != PoolingType::kAVERAGE)
        || params->windowSize.nbDims < 1 || params->windowSize.nbDims > 3)
    {
        return false;
    }
    // A static shape is checked now; the kernel checks each shape a dynamic input takes.
    std::optional<std::vector<int64_t>> const shape = plan::constantDims(model, layer.inputs[0]);
    return !shape || oneDnnWindow(*params, *shape).has_value();
}

std::unique_ptr<Kernel> makePooling(State& state, plan::LayerRecord const& layer)
{
    return std::make_unique<PoolingKernel>(state, layer);
}

} // namespace kiln::cpu::fast
