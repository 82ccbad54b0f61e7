// Convolution (1-D to 3-D, grouped and depthwise, strided, dilated, padded) through oneDNN, with the epilogue the
// builder fused into it as post-ops: the residual through a sum (it is copied into the output first, in the
// layout the primitive writes), the activation through an eltwise post-op.
#include "backend/cpu/fast/kernels.h"

#include "backend/cpu/kernels/layer_inputs.h"
#include "backend/cpu/kernels/nn/kernel_geometry.h"
#include "network/layers/layer_utils.h"
#include "plan/plan_graph.h"

namespace kiln::cpu::fast
{
namespace
{

using dnnl::memory;
using Tag = memory::format_tag;

class ConvolutionKernel final : public Kernel
{
public:
    ConvolutionKernel(State& state, plan::LayerRecord const& layer)
        : mState(state)
        , mOwner(layer.params)
        , mParams(*plan::paramsOf<network::ConvolutionParams>(layer))
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
        Prepared& prepared = mCache.get(inputs, mState.resolvedThreads(), [&] { return prepare(inputs, output); });
        dnnl::stream& stream = mState.stream;
        memory destination = prepared.destination.target(output.data);
        if (mEpilogue.addsResidual)
        {
            // The sum post-op adds what the destination holds.
            prepared.residual.set_data_handle(const_cast<void*>(inputs.back().data));
            if (prepared.residual.get_data_handle() != destination.get_data_handle())
            {
                prepared.residualToDestination.execute(stream, prepared.residual, destination);
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
        dnnl::convolution_forward primitive;
        memory weights;
        memory bias; //!< empty where the layer has none
        Staged source;
        Staged destination;
        memory residual; //!< the residual input's buffer, where the epilogue adds one
        dnnl::reorder residualToDestination;
    };

    dnnl::primitive_attr attributes() const
    {
        dnnl::post_ops postOps;
        if (mEpilogue.addsResidual)
        {
            postOps.append_sum(1.0F);
        }
        if (mEpilogue.activates)
        {
            Eltwise const eltwise = *eltwiseOf(mEpilogue.activation, mEpilogue.alpha, mEpilogue.beta);
            postOps.append_eltwise(1.0F, eltwise.algorithm, eltwise.alpha, eltwise.beta);
        }
        dnnl::primitive_attr attributes;
        attributes.set_post_ops(postOps);
        return attributes;
    }

    //! The kernel weights' dimensions as oneDNN groups them: [K, C, k...], or [G, K / G, C / G, k...]. Throws
    //! std::invalid_argument, as the reference does, where the weights do not hold that many values.
    memory::desc userWeights(int64_t inputChannels) const
    {
        Shape kernelShape = network::dimsToVector(mParams.kernelSize);
        int64_t const groups = mParams.nbGroups;
        Shape layerShape{mParams.nbOutputMaps, inputChannels / groups};
        layerShape.insert(layerShape.end(), kernelShape.begin(), kernelShape.end());
        filterWeightsView(mParams, layerShape, "convolution");
        Shape front = groups == 1 ? Shape{mParams.nbOutputMaps, inputChannels}
                                  : Shape{groups, mParams.nbOutputMaps / groups, inputChannels / groups};
        kernelShape.insert(kernelShape.begin(), front.begin(), front.end());
        return linearDesc(kernelShape);
    }

    Prepared prepare(LayerInputs const& inputs, TensorView const& output) const
    {
        Shape const& inputShape = inputs[0].shape;
        KernelGeometry const geometry
            = resolveKernelGeometry("convolution", WindowDirection::kFORWARD, inputShape, mParams);
        Shape const kernelSize = network::dimsToVector(mParams.kernelSize);
        memory::dims strides, dilation, before, after;
        for (size_t axis = 0; axis < kernelSize.size(); ++axis)
        {
            int64_t const window = 1 + geometry.dilation[axis] * (kernelSize[axis] - 1);
            int64_t const pre = geometry.window.prePadding[axis];
            strides.push_back(geometry.stride[axis]);
            dilation.push_back(geometry.dilation[axis] - 1); // oneDNN counts the gaps between taps
            before.push_back(pre);
            // What the output size needs: rounding up (kEXPLICIT_ROUND_UP) pads more than the layer's post-padding.
            after.push_back((output.shape[2 + axis] - 1) * geometry.stride[axis] + window - inputShape[2 + axis] - pre);
        }
        memory::desc const source = linearDesc(inputShape);
        memory::desc const destination = linearDesc(output.shape);
        memory::desc const weights = userWeights(inputShape[1]);
        memory::desc const any(source.dims(), memory::data_type::f32, Tag::any);
        memory::desc const anyDestination(destination.dims(), memory::data_type::f32, Tag::any);
        memory::desc const anyWeights(weights.dims(), memory::data_type::f32, Tag::any);
        memory::desc const bias = mBias.empty() ? memory::desc() : linearDesc({mParams.nbOutputMaps});
        dnnl::convolution_forward::desc const description(dnnl::prop_kind::forward_inference,
            dnnl::algorithm::convolution_direct, any, anyWeights, bias, anyDestination, strides, dilation, before,
            after);
        dnnl::convolution_forward::primitive_desc const chosen(description, attributes(), mState.engine);
        Prepared prepared{dnnl::convolution_forward(chosen), laidOutWeights(mKernel, weights, chosen.weights_desc(), mState),
            {}, Staged(source, chosen.src_desc(), mState.engine), Staged(destination, chosen.dst_desc(), mState.engine),
            {}, {}};
        if (!mBias.empty())
        {
            prepared.bias = laidOutWeights(mBias, bias, bias, mState);
        }
        if (mEpilogue.addsResidual)
        {
            prepared.residual = userMemory(destination, mState.engine);
            prepared.residualToDestination = dnnl::reorder(prepared.residual, dnnl::memory(chosen.dst_desc(), mState.engine, DNNL_MEMORY_NONE));
        }
        return prepared;
    }

    State& mState;
    std::shared_ptr<network::LayerParams const> const mOwner; //!< keeps mParams
    network::ConvolutionParams const& mParams;
    plan::Epilogue const mEpilogue;
    std::vector<float> const mKernel;
    std::vector<float> const mBias;
    PreparedCache<Prepared> mCache;
};

} // namespace

bool supportsConvolution(plan::PlanModel const& model, plan::LayerRecord const& layer)
{
    auto const* params = plan::paramsOf<network::ConvolutionParams>(layer);
    if (params == nullptr || layer.inputs.empty() || layer.inputs[0] < 0 || !layer.epilogue.bias.empty()
        || params->nbGroups < 1 || params->nbOutputMaps % params->nbGroups != 0)
    {
        return false;
    }
    size_t const rank = model.tensors[layer.inputs[0]].dims.size();
    size_t const expectedInputs = layer.epilogue.addsResidual ? 2 : 1;
    bool const activationRuns = !layer.epilogue.activates
        || eltwiseOf(layer.epilogue.activation, layer.epilogue.alpha, layer.epilogue.beta).has_value();
    return rank >= 3 && rank <= 5 && layer.inputs.size() == expectedInputs && activationRuns
        && params->kernel.type() == nvinfer1::DataType::kFLOAT
        && (params->bias.empty() || params->bias.type() == nvinfer1::DataType::kFLOAT);
}

std::unique_ptr<Kernel> makeConvolution(State& state, plan::LayerRecord const& layer)
{
    return std::make_unique<ConvolutionKernel>(state, layer);
}

} // namespace kiln::cpu::fast
