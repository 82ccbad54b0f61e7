// The quantized matrix multiply (network::QuantizedMatrixMultiplyParams) through oneDNN's INT8 convolution, as
// linear.cpp runs FP32 products by constant weights: x [batch..., M, K] is an image of batch * M positions and K
// channels stored channels last, the output likewise with N channels, and the INT8 weights [N, K] are laid out once
// for the convolution's kernel. s8 data and weights are multiplied and summed exactly in s32, then in FP32 the
// per-column output scales (input scale times weight scale) give the sums their real values, the bias is added, the
// activation and the division by the output scale are eltwise post-ops, rounded to nearest even and saturated into
// s8 where the layer writes INT8. Each output's sum is exact, so the results do not depend on the thread count.
//
// oneDNN 2.x adds the bias to the s32 sums before the output scales, so the bias it is given is the layer's divided
// by each column's scale. FP32 rounds the scaled sums differently from the reference's FP32 product of dequantized
// values; results agree up to that rounding (one INT8 step where it crosses a rounding boundary).
#include "backend/cpu/fast/kernels.h"

#include "network/fused/quantized_matrix_multiply.h"
#include "plan/plan_graph.h"

namespace kiln::cpu::fast
{
namespace
{

using dnnl::memory;
using network::QuantizedMatrixMultiplyParams;
using nvinfer1::DataType;
using Tag = memory::format_tag;

class QuantizedMatrixMultiplyKernel final : public Kernel
{
public:
    QuantizedMatrixMultiplyKernel(State& state, plan::LayerRecord const& layer)
        : mState(state)
        , mOwner(layer.params)
        , mParams(*plan::paramsOf<QuantizedMatrixMultiplyParams>(layer))
    {
        Int8Rescaling rescaling
            = int8Rescaling(mParams.inputScale, mParams.weightScales.toFloat(), mParams.bias.toFloat());
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
        int64_t const rows = output.count() / mParams.columns;
        mCache.get(inputs, mState.resolvedThreads(), [&] { return prepare(rows); })
            .run(inputs[0].data, output.data, mState.stream);
    }

private:
    bool writesInt8() const
    {
        return mParams.outputType() == DataType::kINT8;
    }

    dnnl::primitive_attr attributes() const
    {
        dnnl::primitive_attr attributes;
        attributes.set_output_scales(1 << 1, mScales); // one per output column: the convolution's channels
        dnnl::post_ops postOps;
        float const toOutput = writesInt8() ? 1.0F / mParams.outputScale : 1.0F;
        if (mParams.activates)
        {
            Eltwise const eltwise = *eltwiseOf(mParams.activation, mParams.alpha, mParams.beta);
            postOps.append_eltwise(toOutput, eltwise.algorithm, eltwise.alpha, eltwise.beta);
        }
        else if (writesInt8())
        {
            postOps.append_eltwise(1.0F, dnnl::algorithm::eltwise_linear, toOutput, 0.0F);
        }
        attributes.set_post_ops(postOps);
        return attributes;
    }

    //! The weights in layout `chosen`: laid out once, and shared by the shapes whose primitives take that layout.
    memory laidOut(memory::desc const& user, memory::desc const& chosen)
    {
        for (memory const& weights : mLaidOut)
        {
            if (weights.get_desc() == chosen)
            {
                return weights;
            }
        }
        mLaidOut.push_back(laidOutWeights(mParams.weights.data(), user, chosen, mState));
        return mLaidOut.back();
    }

    RowConvolution prepare(int64_t rows)
    {
        int64_t const k = mParams.inner();
        int64_t const n = mParams.columns;
        auto const outputType = writesInt8() ? memory::data_type::s8 : memory::data_type::f32;
        memory::desc const source({1, k, rows}, memory::data_type::s8, Tag::nwc);
        memory::desc const destination({1, n, rows}, outputType, Tag::nwc);
        memory::desc const weights({n, k, 1}, memory::data_type::s8, Tag::oiw);
        memory::desc const anyWeights({n, k, 1}, memory::data_type::s8, Tag::any);
        memory::desc const bias = mBias.empty() ? memory::desc() : linearDesc({n});
        dnnl::convolution_forward::desc const description(dnnl::prop_kind::forward_inference,
            dnnl::algorithm::convolution_direct, source, anyWeights, bias, destination, {1}, {0}, {0});
        dnnl::convolution_forward::primitive_desc const chosen(description, attributes(), mState.engine);
        RowConvolution prepared{dnnl::convolution_forward(chosen), laidOut(weights, chosen.weights_desc()), {},
            userMemory(source, mState.engine), userMemory(destination, mState.engine)};
        if (!mBias.empty())
        {
            prepared.bias = laidOutWeights(mBias, bias, bias, mState);
        }
        return prepared;
    }

    State& mState;
    std::shared_ptr<network::LayerParams const> const mOwner; //!< keeps mParams
    QuantizedMatrixMultiplyParams const& mParams;
    std::vector<float> mScales;   //!< per output column: input scale times weight scale
    std::vector<float> mBias;     //!< per output column: the bias over that scale; empty where the layer has none
    std::vector<memory> mLaidOut; //!< the weights in each layout a primitive chose
    PreparedCache<RowConvolution> mCache;
};

} // namespace

bool supportsQuantizedMatrixMultiply(plan::PlanModel const& model, plan::LayerRecord const& layer)
{
    auto const* params = plan::paramsOf<QuantizedMatrixMultiplyParams>(layer);
    if (params == nullptr || layer.precision != DataType::kFLOAT || layer.epilogue.any() || layer.inputs.size() != 1
        || layer.outputs.size() != 1 || layer.inputs[0] < 0 || !plan::linearThroughout(model, layer))
    {
        return false;
    }
    DataType const types[] = {DataType::kINT8, params->outputType()};
    for (size_t slot = 0; slot < 2; ++slot)
    {
        int32_t const t = slot == 0 ? layer.inputs[0] : layer.outputs[0];
        if (plan::slotType(model, layer, slot) != types[slot] || model.tensors[t].type != types[slot])
        {
            return false;
        }
    }
    bool const activationRuns = !params->activates
        || eltwiseOf(params->activation, params->alpha, params->beta).has_value();
    return model.tensors[layer.inputs[0]].dims.size() >= 2 && params->columns > 0
        && params->weights.type() == DataType::kINT8 && params->weightScales.count() == params->columns
        && (params->bias.empty() || params->bias.type() == DataType::kFLOAT) && activationRuns;
}

std::unique_ptr<Kernel> makeQuantizedMatrixMultiply(State& state, plan::LayerRecord const& layer)
{
    return std::make_unique<QuantizedMatrixMultiplyKernel>(state, layer);
}

} // namespace kiln::cpu::fast
