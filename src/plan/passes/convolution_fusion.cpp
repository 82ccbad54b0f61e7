#include "plan/passes/convolution_fusion.h"

#include "plan/plan_graph.h"

#include <optional>

namespace kiln::plan
{
namespace
{

using nvinfer1::LayerType;

class Fuser
{
public:
    Fuser(PlanModel& model, ConvolutionFusionRules const& rules)
        : mModel(model)
        , mRules(rules)
        , mReaders(readersOf(model))
        , mKnown(valuesNoRunChanges(model))
        , mTaken(model.layers.size(), false)
    {
    }

    void run()
    {
        std::vector<bool> absorbed(mModel.layers.size(), false);
        for (size_t l = 0; l < mModel.layers.size(); ++l)
        {
            std::vector<size_t> const chain = chainFrom(l);
            if (chain.size() < 2)
            {
                continue;
            }
            // The fused layer runs where the chain's last layer ran: by then a residual is computed too.
            mModel.layers[chain.back()] = fused(chain);
            for (size_t i = 0; i + 1 < chain.size(); ++i)
            {
                absorbed[chain[i]] = true;
            }
            for (size_t member : chain)
            {
                mTaken[member] = true;
            }
        }
        eraseLayers(mModel, absorbed);
    }

private:
    //! The activation layer's parameters, where the backend fuses it.
    network::ActivationParams const* fusableActivation(LayerRecord const& layer) const
    {
        auto const* activation = paramsOf<network::ActivationParams>(layer);
        return activation != nullptr && mRules.fusesActivation(*activation) ? activation : nullptr;
    }

    //! Layer indices of the chain starting at convolution `l` (convolution, [sum,] [activation]), or fewer than two.
    std::vector<size_t> chainFrom(size_t l) const
    {
        LayerRecord const& convolution = mModel.layers[l];
        if (mTaken[l] || convolution.type != LayerType::kCONVOLUTION || convolution.inputs.size() != 1
            || convolution.epilogue.any() || !mRules.fusesInto(mModel, convolution))
        {
            return {};
        }
        nvinfer1::DataType const type = slotType(mModel, convolution, 1);
        std::vector<size_t> chain{l};
        // A layer joins one chain only: a sum of two convolutions (a projection shortcut) fuses with one of them.
        auto free = [&](std::optional<size_t> layer) { return layer && !mTaken[*layer]; };
        std::optional<size_t> next = soleReader(mModel, mReaders, l);
        auto joins
            = [&](size_t layer) { return computesIn(mModel, mModel.layers[layer], convolution.precision, type); };
        if (free(next) && isSum(mModel.layers[*next]) && joins(*next))
        {
            LayerRecord const& sum = mModel.layers[*next];
            int32_t const convolved = convolution.outputs[0];
            int32_t const residual = sum.inputs[0] == convolved ? sum.inputs[1] : sum.inputs[0];
            if (residual == convolved || !sameExtents(residual, convolved) || !sameExtents(sum.outputs[0], convolved))
            {
                return {};
            }
            chain.push_back(*next);
            next = soleReader(mModel, mReaders, *next);
        }
        std::vector<size_t> const gated = selfGatedAfter(chain.back());
        if (!gated.empty() && joins(gated[0]) && joins(gated[1]))
        {
            chain.insert(chain.end(), gated.begin(), gated.end());
        }
        else if (free(next) && fusableActivation(mModel.layers[*next]) != nullptr && joins(*next))
        {
            chain.push_back(*next);
        }
        else if (mRules.needsActivation)
        {
            return {};
        }
        return chain;
    }

    //! The self-gated activation x * f(x) of layer `l`'s output x, where the backend fuses it: the activation layer
    //! and the product of x by its result, x's only readers, in this order; else empty.
    std::vector<size_t> selfGatedAfter(size_t l) const
    {
        LayerRecord const& layer = mModel.layers[l];
        if (!mRules.fusesSelfGated || layer.outputs.size() != 1)
        {
            return {};
        }
        std::optional<SelfGated> const gated = selfGatedOf(mModel, mReaders, layer.outputs[0]);
        if (!gated || mTaken[gated->activation] || mTaken[gated->product]
            || !mRules.fusesSelfGated(*paramsOf<network::ActivationParams>(mModel.layers[gated->activation])))
        {
            return {};
        }
        return {gated->activation, gated->product};
    }

    LayerRecord fused(std::vector<size_t> const& chain) const
    {
        LayerRecord const& convolution = mModel.layers[chain.front()];
        LayerRecord const& last = mModel.layers[chain.back()];
        LayerRecord record;
        record.type = LayerType::kCONVOLUTION;
        record.params = convolution.params;
        record.precision = convolution.precision;
        record.inputs = convolution.inputs;
        record.outputs = last.outputs;
        for (size_t l : chain)
        {
            record.name += (record.name.empty() ? "" : " + ") + mModel.layers[l].name;
        }
        if (isSum(mModel.layers[chain[1]]))
        {
            LayerRecord const& sum = mModel.layers[chain[1]];
            record.epilogue.addsResidual = true;
            record.inputs.push_back(sum.inputs[0] == convolution.outputs[0] ? sum.inputs[1] : sum.inputs[0]);
        }
        // The activation is the last layer, or the one before the product of a self-gated one.
        bool const selfGated = last.type == LayerType::kELEMENTWISE && !isSum(last);
        LayerRecord const& activating = selfGated ? mModel.layers[chain[chain.size() - 2]] : last;
        if (auto const* activation = paramsOf<network::ActivationParams>(activating))
        {
            record.epilogue.activates = true;
            record.epilogue.activation = activation->activation;
            record.epilogue.alpha = activation->alpha;
            record.epilogue.beta = activation->beta;
            record.epilogue.selfGated = selfGated;
        }
        // Reads its input as the convolution did, the residual and output in the type the chain computed in.
        std::vector<nvinfer1::DataType> types{slotType(mModel, convolution, 0)};
        types.resize(record.inputs.size() + record.outputs.size(), slotType(mModel, convolution, 1));
        setIoTypes(mModel, record, std::move(types));
        return record;
    }

    //! Whether tensors `a` and `b` have the same extents as the rules compare them: at every run (plan_graph.h's
    //! sameShapeEveryRun), or as the same expressions.
    bool sameExtents(int32_t a, int32_t b) const
    {
        return mRules.residualsOfEqualExtents ? sameShapeEveryRun(mModel, mKnown, a, b) : sameShape(mModel, a, b);
    }

    PlanModel& mModel;
    ConvolutionFusionRules const& mRules;
    std::vector<std::vector<size_t>> mReaders;        //!< by tensor: the layers that read it
    std::vector<std::optional<int64_t>> const mKnown; //!< by expression node: valuesNoRunChanges
    std::vector<bool> mTaken;                         //!< by layer: in a chain already
};

} // namespace

void fuseConvolutionEpilogues(PlanModel& model, ConvolutionFusionRules const& rules)
{
    Fuser(model, rules).run();
}

} // namespace kiln::plan
