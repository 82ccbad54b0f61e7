// The quantized convolution (network::QuantizedConvolutionParams) through oneDNN's INT8 convolution: s8 data and
// weights multiplied and summed in s32, then in FP32 the per-map output scales (input scale times kernel scale, which
// give the sums their real values), the bias, the residual through a sum post-op, the activation through eltwise
// post-ops (activationPostOps: SiLU and hard-swish as swish and hardswish), and the division by the output scale,
// rounded to nearest even and saturated into s8 where the layer writes INT8. The residual is copied into the
// destination first (dequantized there where the destination is FP32), unless the plan gave the output the
// residual's bytes (builder/residual_buffers.h), where it lies already. Its tensors are read and written as stored:
// row-major, or channels-last between such convolutions (passes/channels_last.h), the layout oneDNN's INT8 kernels
// take, so that they convert nothing.
//
// oneDNN 2.x adds the bias to the s32 sums before the output scales, so the bias it is given is the layer's divided
// by each map's scale. FP32 rounds the scaled sums differently from the reference's FP32 convolution of dequantized
// values; results agree up to that rounding (one INT8 step where it crosses a rounding boundary).
#include "backend/cpu/fast/filter_window.h"
#include "backend/cpu/fast/kernels.h"

#include "plan/plan_graph.h"

namespace kiln::cpu::fast
{
namespace
{

using backend::WindowDirection;
using dnnl::memory;
using network::QuantizedConvolutionParams;
using nvinfer1::DataType;

memory::data_type onednnType(DataType type)
{
    return type == DataType::kINT8 ? memory::data_type::s8 : memory::data_type::f32;
}

class QuantizedConvolutionKernel final : public Kernel
{
public:
    QuantizedConvolutionKernel(State& state, plan::LayerRecord const& layer)
        : mState(state)
        , mOwner(layer.params)
        , mParams(*plan::paramsOf<QuantizedConvolutionParams>(layer))
    {
        Int8Rescaling rescaling
            = int8Rescaling(mParams.inputScale, mParams.kernelScales.toFloat(), mParams.bias.toFloat());
        mScales = std::move(rescaling.scales);
        mBias = std::move(rescaling.bias);
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
        // The sum post-op adds what the destination holds: the residual, unless the output was given its bytes.
        void const* residual = mParams.addsResidual ? inputs.at(1).data : nullptr;
        if (residual != nullptr && residual != destination.get_data_handle())
        {
            prepared.residual.set_data_handle(const_cast<void*>(residual));
            prepared.residualToDestination.execute(stream, prepared.residual, destination);
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
        memory residual; //!< the residual input's buffer, where the layer adds one
        dnnl::reorder residualToDestination;
    };

    bool writesInt8() const
    {
        return mParams.outputType() == DataType::kINT8;
    }

    dnnl::primitive_attr attributes() const
    {
        dnnl::primitive_attr attributes;
        attributes.set_output_scales(1 << 1, mScales); // one per output map: axis 1 of the destination
        dnnl::post_ops postOps;
        if (mParams.addsResidual)
        {
            // An FP32 destination holds the residual's real values already; an INT8 one holds the INT8 residual.
            postOps.append_sum(writesInt8() ? mParams.residualScale : 1.0F);
        }
        float const toOutput = writesInt8() ? 1.0F / mParams.outputScale : 1.0F;
        std::vector<Eltwise> const activation = mParams.activates
            ? activationPostOps(mParams.activation, mParams.alpha, mParams.beta, mParams.selfGated)
            : std::vector<Eltwise>{};
        for (size_t i = 0; i < activation.size(); ++i)
        {
            // An eltwise post-op's scale multiplies its result: the last one divides by the output scale.
            float const scale = i + 1 == activation.size() ? toOutput : 1.0F;
            postOps.append_eltwise(scale, activation[i].algorithm, activation[i].alpha, activation[i].beta);
        }
        if (activation.empty() && writesInt8())
        {
            postOps.append_eltwise(1.0F, dnnl::algorithm::eltwise_linear, toOutput, 0.0F);
        }
        attributes.set_post_ops(postOps);
        return attributes;
    }

    dnnl::convolution_forward::primitive_desc describe(memory::desc const& source, memory::desc const& weights,
        memory::desc const& destination, Shape const& inputShape, Shape const& outputShape) const
    {
        FilterWindow const window = filterWindow(mParams, WindowDirection::kFORWARD, inputShape, outputShape);
        auto any = [](memory::desc const& desc) {
            return memory::desc(desc.dims(), desc.data_type(), memory::format_tag::any);
        };
        auto const prop = dnnl::prop_kind::forward_inference;
        auto const algorithm = dnnl::algorithm::convolution_direct;
        auto const description = mBias.empty()
            ? dnnl::convolution_forward::desc(prop, algorithm, any(source), any(weights), any(destination),
                window.strides, window.dilation, window.before, window.after)
            : dnnl::convolution_forward::desc(prop, algorithm, any(source), any(weights),
                linearDesc({mParams.nbOutputMaps}), any(destination), window.strides, window.dilation, window.before,
                window.after);
        return dnnl::convolution_forward::primitive_desc(description, attributes(), mState.engine);
    }

    Prepared prepare(LayerInputs const& inputs, TensorView const& output) const
    {
        Shape const& inputShape = inputs[0].shape;
        memory::desc const source = storedDesc(inputShape, inputs[0].format, memory::data_type::s8);
        memory::desc const destination = storedDesc(output.shape, output.format, onednnType(mParams.outputType()));
        memory::desc const weights = linearDesc(
            filterWeights(mParams, WindowDirection::kFORWARD, inputShape[1]).dims(), memory::data_type::s8);
        auto const chosen = describe(source, weights, destination, inputShape, output.shape);
        Prepared prepared{dnnl::convolution_forward(chosen),
            laidOutWeights(mParams.kernel.data(), weights, chosen.weights_desc(), mState), {},
            Staged(source, chosen.src_desc(), mState.engine), Staged(destination, chosen.dst_desc(), mState.engine), {},
            {}};
        if (!mBias.empty())
        {
            memory::desc const bias = linearDesc({mParams.nbOutputMaps});
            prepared.bias = laidOutWeights(mBias, bias, bias, mState);
        }
        if (mParams.addsResidual)
        {
            DataType const residualType = mParams.residualType();
            prepared.residual
                = userMemory(storedDesc(output.shape, inputs[1].format, onednnType(residualType)), mState.engine);
            dnnl::primitive_attr dequantizes;
            if (residualType == DataType::kINT8 && !writesInt8())
            {
                dequantizes.set_output_scales(0, {mParams.residualScale});
            }
            memory const target(chosen.dst_desc(), mState.engine, DNNL_MEMORY_NONE);
            prepared.residualToDestination
                = dnnl::reorder(dnnl::reorder::primitive_desc(prepared.residual, target, dequantizes));
        }
        return prepared;
    }

    State& mState;
    std::shared_ptr<network::LayerParams const> const mOwner; //!< keeps mParams
    QuantizedConvolutionParams const& mParams;
    std::vector<float> mScales; //!< per output map: input scale times kernel scale
    std::vector<float> mBias;   //!< per output map: the bias over that scale; empty where the layer has none
    PreparedCache<Prepared> mCache;
};

//! The record's slots hold the types its description gives, as its tensors do, each read and written as stored:
//! row-major, or channels-last where it has four axes (channels_last.h).
bool typesHold(plan::PlanModel const& model, plan::LayerRecord const& layer, QuantizedConvolutionParams const& params)
{
    std::vector<DataType> expected{DataType::kINT8};
    if (params.addsResidual)
    {
        expected.push_back(params.residualType());
    }
    expected.push_back(params.outputType());
    if (layer.inputs.size() + layer.outputs.size() != expected.size())
    {
        return false;
    }
    for (size_t slot = 0; slot < expected.size(); ++slot)
    {
        int32_t const t = slot < layer.inputs.size() ? layer.inputs[slot] : layer.outputs[slot - layer.inputs.size()];
        if (t < 0 || plan::slotType(model, layer, slot) != expected[slot] || model.tensors[t].type != expected[slot]
            || !readsAsStored(model, layer, slot))
        {
            return false;
        }
    }
    return true;
}

} // namespace

bool supportsQuantizedConvolution(plan::PlanModel const& model, plan::LayerRecord const& layer)
{
    auto const* params = plan::paramsOf<QuantizedConvolutionParams>(layer);
    if (params == nullptr || layer.precision != DataType::kFLOAT || layer.epilogue.any()
        || !typesHold(model, layer, *params))
    {
        return false;
    }
    size_t const rank = model.tensors[layer.inputs[0]].dims.size();
    // oneDNN's sum post-op reads the destination in its own type: an FP32 residual cannot be added into INT8.
    bool const residualFits = !params->addsResidual || params->residualType() == DataType::kINT8
        || params->outputType() == DataType::kFLOAT;
    bool const activationRuns = !params->activates
        || !activationPostOps(params->activation, params->alpha, params->beta, params->selfGated).empty();
    return rank >= 3 && rank <= 5 && params->nbGroups >= 1 && params->nbOutputMaps % params->nbGroups == 0
        && params->kernel.type() == DataType::kINT8 && params->kernelScales.count() == params->nbOutputMaps
        && (params->bias.empty() || params->bias.type() == DataType::kFLOAT) && residualFits && activationRuns;
}

std::unique_ptr<Kernel> makeQuantizedConvolution(State& state, plan::LayerRecord const& layer)
{
    return std::make_unique<QuantizedConvolutionKernel>(state, layer);
}

} // namespace kiln::cpu::fast
