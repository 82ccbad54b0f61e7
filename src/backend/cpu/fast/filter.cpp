// Convolution and deconvolution (1-D to 3-D, grouped and depthwise, strided, dilated, padded) through oneDNN. A
// convolution also runs the epilogue the builder fused into it, as post-ops: the residual through a sum (copied
// into the output first, in the layout the primitive writes), the activation through eltwise post-ops (SiLU and
// hard-swish among them, which the network writes as an activation and a product). oneDNN
// picks the layouts its fastest kernel reads and writes; a tensor stored otherwise is converted on the way. Its
// AVX-512 kernels (brgconv, brdgmm) are channels-last, which is why a convolution's tensors are stored kHWC between
// fast layers (backend/cpu/passes/channels_last.h), and kLINEAR and kHWC are both taken here.
#include "backend/cpu/fast/filter_window.h"
#include "backend/cpu/fast/kernels.h"

#include "plan/plan_graph.h"

#include <omp.h>

#include <algorithm>
#include <cstring>
#include <string>

namespace kiln::cpu::fast
{
namespace
{

using backend::WindowDirection;
using dnnl::memory;

//! What differs between the two layers: the primitive, its algorithm and the window's direction.
template <typename Primitive>
struct FilterTraits;

template <>
struct FilterTraits<dnnl::convolution_forward>
{
    using Params = network::ConvolutionParams;
    static constexpr dnnl::algorithm kAlgorithm = dnnl::algorithm::convolution_direct;
    static constexpr WindowDirection kDirection = WindowDirection::kFORWARD;
};

template <>
struct FilterTraits<dnnl::deconvolution_forward>
{
    using Params = network::DeconvolutionParams;
    static constexpr dnnl::algorithm kAlgorithm = dnnl::algorithm::deconvolution_direct;
    static constexpr WindowDirection kDirection = WindowDirection::kTRANSPOSED;
};

//! Whether oneDNN runs `chosen` on one of its JIT kernels (jit, brgconv, brdgmm), not its reference or GEMM-based ones.
bool runsJitKernel(dnnl::primitive_desc_base const& chosen)
{
    std::string const implementation = chosen.impl_info_str();
    return implementation.rfind("jit", 0) == 0 || implementation.rfind("brg", 0) == 0
        || implementation.rfind("brdgmm", 0) == 0;
}

template <typename Primitive>
class FilterKernel final : public Kernel
{
    using Traits = FilterTraits<Primitive>;

public:
    FilterKernel(State& state, plan::LayerRecord const& layer)
        : mState(state)
        , mOwner(layer.params)
        , mParams(*plan::paramsOf<typename Traits::Params>(layer))
        , mEpilogue(layer.epilogue)
        , mKernel(mParams.kernel.toFloat())
        , mBias(mParams.bias.toFloat())
    {
    }

    void run(LayerInputs const& inputs, LayerOutputs const& outputs) override
    {
        TensorView const& output = outputs.at(0);
        if (output.count() == 0)
        {
            return;
        }
        // oneDNN's primitives take their thread count from OpenMP's when they are made and when they run; Session::run
        // sets the context's count again before the next layer.
        int32_t const threads = littleWork(inputs[0].shape, output.shape) ? 1 : mState.resolvedThreads();
        omp_set_num_threads(threads);
        Prepared& prepared = mCache.get(inputs, threads, [&] { return prepare(inputs, output); });
        dnnl::stream& stream = mState.stream;
        memory destination = prepared.destination.target(output.data);
        if (mEpilogue.addsResidual)
        {
            // The sum post-op adds what the destination holds.
            void const* residual = inputs.back().data;
            if (residual != destination.get_data_handle())
            {
                copyResidual(prepared, residual, destination, stream);
            }
        }
        std::unordered_map<int, memory> arguments{{DNNL_ARG_SRC, prepared.source.read(inputs[0].data, stream)},
            {DNNL_ARG_WEIGHTS, prepared.weights}, {DNNL_ARG_DST, destination}};
        if (prepared.bias)
        {
            arguments.emplace(DNNL_ARG_BIAS, prepared.bias);
        }
        prepared.primitive.execute(stream, arguments);
        prepared.destination.commit(output.data, stream);
        stream.wait();
    }

private:
    struct Prepared
    {
        Primitive primitive;
        memory weights;
        memory bias; //!< empty where the layer has none
        Staged source;
        Staged destination;
        memory residual; //!< the residual input's buffer, where the epilogue adds one
        dnnl::reorder residualToDestination;
        bool residualCopies{false}; //!< the residual lies as the destination does: a copy of its bytes
    };

    //! Whether the layer's multiply-adds are so few (a squeeze-and-excitation's products on [N, C, 1, 1]) that it
    //! runs on one thread: waking the others would cost more than they save, and on shared cores they wait for cores.
    bool littleWork(Shape const& inputShape, Shape const& outputShape) const
    {
        constexpr int64_t kLittleWork = int64_t{1} << 18;
        // A convolution's output value takes the weights of its map, a deconvolution's input value those of its
        // channel.
        auto const weights = static_cast<int64_t>(mKernel.size());
        int64_t const work = std::max(volume(outputShape) * (weights / std::max<int64_t>(1, mParams.nbOutputMaps)),
            volume(inputShape) * (weights / std::max<int64_t>(1, inputShape[1])));
        return work < kLittleWork;
    }

    //! The residual into the destination, where the sum post-op reads it. oneDNN 2.6's reorder between two tensors of
    //! one layout runs its generic implementation, several times slower than copying the bytes.
    static void copyResidual(Prepared& prepared, void const* residual, memory& destination, dnnl::stream& stream)
    {
        if (prepared.residualCopies)
        {
            std::memcpy(destination.get_data_handle(), residual, destination.get_desc().get_size());
            return;
        }
        prepared.residual.set_data_handle(const_cast<void*>(residual));
        prepared.residualToDestination.execute(stream, prepared.residual, destination);
    }

    dnnl::primitive_attr attributes() const
    {
        dnnl::post_ops postOps;
        if (mEpilogue.addsResidual)
        {
            postOps.append_sum(1.0F);
        }
        if (mEpilogue.activates)
        {
            for (Eltwise const& eltwise :
                activationPostOps(mEpilogue.activation, mEpilogue.alpha, mEpilogue.beta, mEpilogue.selfGated))
            {
                postOps.append_eltwise(1.0F, eltwise.algorithm, eltwise.alpha, eltwise.beta);
            }
        }
        dnnl::primitive_attr attributes;
        attributes.set_post_ops(postOps);
        return attributes;
    }

    //! oneDNN's choice with every layout left to it (format_tag::any): it picks the one its fastest kernel for the
    //! shape reads. Where both tensors are stored channels-last and one of its JIT kernels reads and writes them so,
    //! that one: for grouped convolutions of few channels a group (RegNet's groups of 16) `any` picks a blocked layout
    //! (aBcd16b) for the same kernel, and the reorders on both sides cost as much as the convolution.
    typename Primitive::primitive_desc describe(memory::desc const& source, memory::desc const& weights,
        memory::desc const& destination, Shape const& inputShape, Shape const& outputShape, bool channelsLast) const
    {
        FilterWindow const window = filterWindow(mParams, Traits::kDirection, inputShape, outputShape);
        auto any = [](memory::desc const& desc) {
            return memory::desc(desc.dims(), desc.data_type(), memory::format_tag::any);
        };
        auto describeWith = [&](memory::desc const& from, memory::desc const& to) {
            auto const prop = dnnl::prop_kind::forward_inference;
            if (mBias.empty())
            {
                return typename Primitive::desc(prop, Traits::kAlgorithm, from, any(weights), to, window.strides,
                    window.dilation, window.before, window.after);
            }
            return typename Primitive::desc(prop, Traits::kAlgorithm, from, any(weights),
                linearDesc({mParams.nbOutputMaps}), to, window.strides, window.dilation, window.before, window.after);
        };
        typename Primitive::primitive_desc chosen(
            describeWith(any(source), any(destination)), attributes(), mState.engine);
        if (channelsLast && (chosen.src_desc() != source || chosen.dst_desc() != destination))
        {
            // allow_empty: no kernel may take the tensors as stored.
            typename Primitive::primitive_desc const asStored(
                describeWith(source, destination), attributes(), mState.engine, true);
            if (asStored && runsJitKernel(asStored))
            {
                return asStored;
            }
        }
        return chosen;
    }

    Prepared prepare(LayerInputs const& inputs, TensorView const& output) const
    {
        Shape const& inputShape = inputs[0].shape;
        memory::desc const source = storedDesc(inputShape, inputs[0].format);
        memory::desc const destination = storedDesc(output.shape, output.format);
        memory::desc const weights = filterWeights(mParams, Traits::kDirection, inputShape[1]);
        bool const channelsLast = inputs[0].format == TensorFormat::kHWC && output.format == TensorFormat::kHWC;
        auto const chosen = describe(source, weights, destination, inputShape, output.shape, channelsLast);
        Prepared prepared{Primitive(chosen), laidOutWeights(mKernel, weights, chosen.weights_desc(), mState), {},
            Staged(source, chosen.src_desc(), mState.engine), Staged(destination, chosen.dst_desc(), mState.engine), {},
            {}};
        if (!mBias.empty())
        {
            memory::desc const bias = linearDesc({mParams.nbOutputMaps});
            prepared.bias = laidOutWeights(mBias, bias, bias, mState);
        }
        if (mEpilogue.addsResidual)
        {
            prepared.residual = userMemory(storedDesc(inputs.back().shape, inputs.back().format), mState.engine);
            prepared.residualToDestination
                = dnnl::reorder(prepared.residual, memory(chosen.dst_desc(), mState.engine, DNNL_MEMORY_NONE));
            prepared.residualCopies = sameBytes(prepared.residual.get_desc(), chosen.dst_desc());
        }
        return prepared;
    }

    State& mState;
    std::shared_ptr<network::LayerParams const> const mOwner; //!< keeps mParams
    typename Traits::Params const& mParams;
    plan::Epilogue const mEpilogue;
    std::vector<float> const mKernel;
    std::vector<float> const mBias;
    PreparedCache<Prepared> mCache;
};

//! The checks both layers share: FP32 weights, groups that divide the maps, an input of 1 to 3 spatial axes.
bool supportsFilter(
    plan::PlanModel const& model, plan::LayerRecord const& layer, network::WindowedFilterParams const& params)
{
    size_t const rank = layer.inputs.empty() || layer.inputs[0] < 0 ? 0 : model.tensors[layer.inputs[0]].dims.size();
    return rank >= 3 && rank <= 5 && params.nbGroups >= 1 && params.nbOutputMaps % params.nbGroups == 0
        && params.kernel.type() == nvinfer1::DataType::kFLOAT
        && (params.bias.empty() || params.bias.type() == nvinfer1::DataType::kFLOAT);
}

} // namespace

bool supportsConvolution(plan::PlanModel const& model, plan::LayerRecord const& layer)
{
    auto const* params = plan::paramsOf<network::ConvolutionParams>(layer);
    if (params == nullptr || !supportsFilter(model, layer, *params) || !layer.epilogue.bias.empty())
    {
        return false;
    }
    size_t const expectedInputs = layer.epilogue.addsResidual ? 2 : 1;
    plan::Epilogue const& epilogue = layer.epilogue;
    bool const activationRuns = !epilogue.activates
        || !activationPostOps(epilogue.activation, epilogue.alpha, epilogue.beta, epilogue.selfGated).empty();
    return layer.inputs.size() == expectedInputs && activationRuns;
}

std::unique_ptr<Kernel> makeConvolution(State& state, plan::LayerRecord const& layer)
{
    return std::make_unique<FilterKernel<dnnl::convolution_forward>>(state, layer);
}

bool supportsDeconvolution(plan::PlanModel const& model, plan::LayerRecord const& layer)
{
    auto const* params = plan::paramsOf<network::DeconvolutionParams>(layer);
    if (params == nullptr || !supportsFilter(model, layer, *params) || layer.epilogue.any() || layer.inputs.size() != 1)
    {
        return false;
    }
    // A negative post-padding extends the output with values that only the bias reaches (ONNX's output_padding);
    // oneDNN's padding cannot be negative.
    for (int32_t axis = 0; axis < params->postPadding.nbDims; ++axis)
    {
        if (params->postPadding.d[axis] < 0)
        {
            return false;
        }
    }
    return true;
}

std::unique_ptr<Kernel> makeDeconvolution(State& state, plan::LayerRecord const& layer)
{
    return std::make_unique<FilterKernel<dnnl::deconvolution_forward>>(state, layer);
}

} // namespace kiln::cpu::fast
