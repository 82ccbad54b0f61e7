#include "plan/passes/quantized_fusion.h"

#include "network/fused/quantized_convolution.h"
#include "network/layers/elementwise.h"
#include "plan/passes/int8_weights.h"
#include "plan/passes/quantized_patterns.h"
#include "plan/plan_graph.h"

#include <memory>

namespace kiln::plan
{
namespace
{

using nvinfer1::DataType;

//! The layers after the convolution that the fused layer may take, in order; the residual where there is a sum.
struct Chain
{
    size_t convolution;
    Dequantization input;
    std::vector<size_t> after;                    //!< [sum] [activation [product]] [quantization], those present
    int32_t residual{-1};                         //!< the sum's other operand
    std::optional<Dequantization> residualSource; //!< where that operand dequantizes an INT8 tensor
    //! Where the activation is self-gated: the position in `after` of the product of its input by its output, which
    //! no prefix of the chain leaves out while it takes the activation.
    std::optional<size_t> gatingProduct;
};

class QuantizedFuser
{
public:
    QuantizedFuser(PlanModel& model, QuantizedFusionRules const& rules)
        : mGraph(model)
        , mRules(rules)
    {
    }

    size_t run()
    {
        size_t fused = 0;
        for (size_t l = 0; l < mGraph.size(); ++l)
        {
            std::optional<Chain> const chain = chainFrom(l);
            fused += chain && fuseLongestAccepted(*chain) ? 1 : 0;
        }
        mGraph.commit();
        return fused;
    }

private:
    LayerRecord const& layer(size_t l) const
    {
        return mGraph.layer(l);
    }

    std::optional<float> perTensorScale(LayerRecord const& record) const
    {
        return plan::perTensorScale(mGraph, record);
    }

    std::optional<Dequantization> dequantizationOf(int32_t t) const
    {
        return int8DequantizationOf(mGraph, t);
    }

    bool joins(std::optional<size_t> next, size_t convolution) const
    {
        return joinsInFloat(mGraph, next, convolution);
    }

    bool isQuantization(std::optional<size_t> l, size_t convolution) const
    {
        return isInt8Quantization(mGraph, l, convolution);
    }

    std::optional<Chain> chainFrom(size_t l) const
    {
        LayerRecord const& convolution = layer(l);
        auto const* params = plan::paramsOf<network::ConvolutionParams>(convolution);
        std::optional<DataType> const type = chainType(mGraph, convolution);
        if (mGraph.removed(l) || params == nullptr || convolution.inputs.size() != 1 || convolution.epilogue.any()
            || holdsRefittableWeights(convolution) || !type || params->kernel.type() != *type)
        {
            return std::nullopt;
        }
        std::optional<Dequantization> const input = dequantizationOf(convolution.inputs[0]);
        if (!input || layer(input->layer).guards != convolution.guards)
        {
            return std::nullopt;
        }
        Chain chain{l, *input, {}, -1, std::nullopt, std::nullopt};
        std::optional<size_t> next = mGraph.soleReader(l);
        int32_t const convolved = convolution.outputs[0];
        if (joins(next, l) && isSum(layer(*next)))
        {
            int32_t const residual = PatternGraph::otherOperand(layer(*next), convolved);
            // The fused layer reads a floating-point residual as FP32 (one of a reduced chain, where it is stored so).
            std::optional<Dequantization> source = dequantizationOf(residual);
            bool const readable = source
                || (residual >= 0 && mGraph.model().tensors[residual].type == DataType::kFLOAT);
            if (residual >= 0 && residual != convolved && sameShape(mGraph.model(), residual, convolved)
                && sameShape(mGraph.model(), layer(*next).outputs[0], convolved) && readable)
            {
                chain.after.push_back(*next);
                chain.residual = residual;
                chain.residualSource = source;
                next = mGraph.soleReader(*next);
            }
        }
        std::optional<SelfGated> const gated = selfGatedAfter(chain.after.empty() ? l : chain.after.back(), l);
        auto const* activation = joins(next, l) ? plan::paramsOf<network::ActivationParams>(layer(*next)) : nullptr;
        if (gated)
        {
            chain.after.push_back(gated->activation);
            chain.gatingProduct = chain.after.size();
            chain.after.push_back(gated->product);
            next = mGraph.soleReader(gated->product);
        }
        else if (activation != nullptr && mRules.fusesActivation(*activation))
        {
            chain.after.push_back(*next);
            next = mGraph.soleReader(*next);
        }
        if (isQuantization(next, l))
        {
            chain.after.push_back(*next);
        }
        return chain;
    }

    //! The self-gated activation of layer `l`'s output, where it may join the chain of convolution `convolution` and
    //! the backend fuses it.
    std::optional<SelfGated> selfGatedAfter(size_t l, size_t convolution) const
    {
        std::optional<SelfGated> const gated = mGraph.selfGated(layer(l).outputs[0]);
        return gated && mRules.fusesSelfGated && joins(gated->activation, convolution)
                && joins(gated->product, convolution)
                && mRules.fusesSelfGated(*plan::paramsOf<network::ActivationParams>(layer(gated->activation)))
            ? gated
            : std::nullopt;
    }

    //! Tries the chain's prefixes, longest first (and for each, the residual as INT8 before FP32): fuses the first
    //! the backend runs.
    bool fuseLongestAccepted(Chain const& chain)
    {
        auto const& convolution = *plan::paramsOf<network::ConvolutionParams>(layer(chain.convolution));
        std::optional<Int8Weights> const weights
            = recoverInt8Weights(convolution.kernel.toFloat(), convolution.nbOutputMaps, convolution.kernel.type());
        if (!weights)
        {
            return false;
        }
        for (size_t taken = chain.after.size() + 1; taken-- > 0;)
        {
            if (chain.gatingProduct && taken == *chain.gatingProduct)
            {
                continue; // the activation without its product
            }
            bool const sums = taken > 0 && chain.residual >= 0;
            for (bool int8Residual : {true, false})
            {
                if (int8Residual && !(sums && chain.residualSource))
                {
                    continue;
                }
                auto const [record, absorbed] = fusedRecord(chain, taken, int8Residual, *weights);
                if (runsWithFloatOutput(mGraph, record, mRules.runsQuantized))
                {
                    mGraph.replace(absorbed, absorbed.back(), record);
                    return true;
                }
            }
        }
        return false;
    }

    bool onlyFor(Dequantization const& dq, size_t reader) const
    {
        return readOnlyBy(mGraph, dq, reader);
    }

    std::pair<LayerRecord, std::vector<size_t>> fusedRecord(
        Chain const& chain, size_t taken, bool int8Residual, Int8Weights const& weights) const
    {
        LayerRecord const& convolution = layer(chain.convolution);
        auto params = std::make_shared<network::QuantizedConvolutionParams>();
        static_cast<network::WindowedFilterParams&>(*params) = *plan::paramsOf<network::ConvolutionParams>(convolution);
        params->kernel = int8WeightsBuffer(weights.values);
        params->bias = params->bias.empty() ? params->bias : params->bias.storedAs(DataType::kFLOAT);
        params->kernelScales = floatWeightsBuffer(weights.scales);
        params->inputScale = chain.input.scale;
        std::vector<size_t> absorbed;
        if (onlyFor(chain.input, chain.convolution))
        {
            absorbed.push_back(chain.input.layer);
        }
        std::vector<int32_t> inputs{chain.input.source};
        absorbed.push_back(chain.convolution);
        for (size_t i = 0; i < taken && i < chain.after.size(); ++i)
        {
            size_t const l = chain.after[i];
            absorbed.push_back(l);
            if (isSum(layer(l)))
            {
                params->addsResidual = true;
                params->residualScale = int8Residual ? chain.residualSource->scale : 0.0F;
                inputs.push_back(int8Residual ? chain.residualSource->source : chain.residual);
                if (int8Residual && onlyFor(*chain.residualSource, l))
                {
                    absorbed.insert(absorbed.begin(), chain.residualSource->layer);
                }
            }
            else if (auto const* activation = plan::paramsOf<network::ActivationParams>(layer(l)))
            {
                takeActivation(*params, *activation);
            }
            else if (chain.gatingProduct == i)
            {
                params->selfGated = true;
            }
            else
            {
                params->outputScale = *perTensorScale(layer(l));
            }
        }
        LayerRecord record = fusedChainRecord(mGraph, network::kQuantizedConvolutionLayerType, convolution,
            std::move(inputs), absorbed, std::move(params));
        return {std::move(record), std::move(absorbed)};
    }

    PatternGraph mGraph;
    QuantizedFusionRules const& mRules;
};

} // namespace

size_t fuseQuantizedConvolutions(PlanModel& model, QuantizedFusionRules const& rules)
{
    size_t const fused = QuantizedFuser(model, rules).run();
    if (fused > 0)
    {
        dropUnreadDequantizations(model);
    }
    return fused;
}

} // namespace kiln::plan
