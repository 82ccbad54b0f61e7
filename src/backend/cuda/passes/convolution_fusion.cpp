#include "backend/cuda/passes/convolution_fusion.h"

#include "plan/plan_graph.h"
#include "network/layers/convolution.h"

#include <optional>

namespace kiln::cuda
{
namespace
{

using nvinfer1::LayerType;

class Fuser
{
public:
    explicit Fuser(plan::PlanModel& model)
        : mModel(model)
        , mReaders(plan::readersOf(model))
    {
    }

    void run()
    {
        std::vector<bool> absorbed(mModel.layers.size(), false);
        for (size_t l = 0; l < mModel.layers.size(); ++l)
        {
            if (absorbed[l])
            {
                continue;
            }
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
        }
        std::vector<plan::LayerRecord> kept;
        for (size_t l = 0; l < mModel.layers.size(); ++l)
        {
            if (!absorbed[l])
            {
                kept.push_back(std::move(mModel.layers[l]));
            }
        }
        mModel.layers = std::move(kept);
    }

private:
    std::optional<size_t> soleReader(size_t l) const
    {
        return plan::soleReader(mModel, mReaders, l);
    }


    //! Layer indices of the chain starting at convolution `l` (convolution, [sum,] ReLU), or fewer than two.
    std::vector<size_t> chainFrom(size_t l) const
    {
        plan::LayerRecord const& convolution = mModel.layers[l];
        if (convolution.type != LayerType::kCONVOLUTION || convolution.inputs.size() != 1)
        {
            return {};
        }
        if (convolution.epilogue.any())
        {
            return {};
        }
        nvinfer1::DataType const type = plan::slotType(mModel, convolution, 1);
        std::vector<size_t> chain{l};
        std::optional<size_t> next = soleReader(l);
        auto joins = [&](size_t layer) {
            return plan::computesIn(mModel, mModel.layers[layer], convolution.precision, type);
        };
        if (next && plan::isSum(mModel.layers[*next]) && joins(*next))
        {
            plan::LayerRecord const& sum = mModel.layers[*next];
            int32_t const convolved = convolution.outputs[0];
            int32_t const residual = sum.inputs[0] == convolved ? sum.inputs[1] : sum.inputs[0];
            if (residual == convolved || !plan::sameShape(mModel, residual, convolved)
                || !plan::sameShape(mModel, sum.outputs[0], convolved))
            {
                return {};
            }
            chain.push_back(*next);
            next = soleReader(*next);
        }
        // cuDNN fuses the addition only together with an activation (its identity activation is limited to one
        // algorithm), so a chain without a ReLU stays as it is.
        if (!next || !plan::isRelu(mModel.layers[*next]) || !joins(*next))
        {
            return {};
        }
        chain.push_back(*next);
        return chain;
    }

    plan::LayerRecord fused(std::vector<size_t> const& chain) const
    {
        plan::LayerRecord const& convolution = mModel.layers[chain.front()];
        plan::LayerRecord const& last = mModel.layers[chain.back()];
        plan::LayerRecord record;
        record.type = LayerType::kCONVOLUTION;
        record.params = convolution.params;
        record.epilogue.relu = true;
        record.precision = convolution.precision;
        record.inputs = convolution.inputs;
        record.outputs = last.outputs;
        for (size_t l : chain)
        {
            record.name += (record.name.empty() ? "" : " + ") + mModel.layers[l].name;
        }
        if (chain.size() == 3)
        {
            plan::LayerRecord const& sum = mModel.layers[chain[1]];
            record.epilogue.addsResidual = true;
            record.inputs.push_back(sum.inputs[0] == convolution.outputs[0] ? sum.inputs[1] : sum.inputs[0]);
        }
        // Reads its input as the convolution did, the residual and output in the type the chain computed in.
        std::vector<nvinfer1::DataType> types{plan::slotType(mModel, convolution, 0)};
        types.resize(record.inputs.size() + record.outputs.size(), plan::slotType(mModel, convolution, 1));
        plan::setIoTypes(mModel, record, std::move(types));
        return record;
    }

    plan::PlanModel& mModel;
    std::vector<std::vector<size_t>> mReaders; //!< by tensor: the layers that read it
};

} // namespace

void fuseConvolutionEpilogues(plan::PlanModel& model)
{
    Fuser(model).run();
}

} // namespace kiln::cuda
