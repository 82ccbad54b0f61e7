#include "plan/passes/matrix_multiply_fusion.h"

#include "core/data_type.h"
#include "network/layers/constant.h"
#include "network/layers/matrix_multiply.h"
#include "plan/plan_graph.h"

#include <algorithm>
#include <optional>

namespace kiln::plan
{
namespace
{

using nvinfer1::DataType;
using nvinfer1::LayerType;
using nvinfer1::MatrixOperation;

//! Whether a tensor of these extents has at most one extent other than 1: a shuffle of such a tensor (transposes
//! and reshapes alike) keeps its elements in order, so the bias a shuffled constant makes is the constant's values.
bool atMostOneAxis(std::vector<int64_t> const& extents)
{
    return std::count_if(extents.begin(), extents.end(), [](int64_t e) { return e != 1; }) <= 1;
}

struct Bias
{
    network::WeightsBuffer values;
    std::vector<size_t> producers; //!< the layers that made the bias tensor, from the sum's side back to the constant
};

struct Chain
{
    std::vector<size_t> layers; //!< matrix multiply, then a sum, an activation or both
    std::optional<Bias> bias;
    network::ActivationParams const* activation{nullptr};
};

class Fuser
{
public:
    Fuser(PlanModel& model, MatrixMultiplyFusionRules const& rules)
        : mModel(model)
        , mRules(rules)
        , mReaders(readersOf(model))
        , mProducers(producersOf(model))
        , mRemoved(model.layers.size(), false)
    {
    }

    void run()
    {
        for (size_t l = 0; l < mModel.layers.size(); ++l)
        {
            if (mRemoved[l])
            {
                continue;
            }
            std::optional<Chain> const chain = chainFrom(l);
            if (!chain)
            {
                continue;
            }
            LayerRecord record = fused(*chain);
            for (size_t member : chain->layers)
            {
                stopReading(member);
            }
            for (size_t i = 0; i + 1 < chain->layers.size(); ++i)
            {
                mRemoved[chain->layers[i]] = true;
            }
            // The fused layer runs where the chain's last layer ran.
            size_t const at = chain->layers.back();
            mModel.layers[at] = std::move(record);
            for (int32_t t : mModel.layers[at].inputs)
            {
                mReaders[t].push_back(at);
            }
            if (chain->bias)
            {
                dropUnread(chain->bias->producers);
            }
        }
        eraseLayers(mModel, mRemoved);
    }

private:
    std::optional<size_t> soleReader(size_t l) const
    {
        return plan::soleReader(mModel, mReaders, l);
    }

    //! Whether layer `l` can join a chain that computes in `precision` on `type`.
    bool joins(size_t l, std::optional<DataType> precision, DataType type) const
    {
        LayerRecord const& record = mModel.layers[l];
        return record.outputs.size() == 1 && computesIn(mModel, record, precision, type)
            && linearThroughout(mModel, record);
    }

    //! The activation layer's parameters, where the backend fuses it.
    network::ActivationParams const* fusableActivation(LayerRecord const& layer) const
    {
        auto const* activation = paramsOf<network::ActivationParams>(layer);
        return activation != nullptr && mRules.fusesActivation(*activation) ? activation : nullptr;
    }

    //! The values of `tensor` when it is a row of `columns` values ([1, ..., 1, N] or [N]) that a constant holds,
    //! directly or through shuffles that keep its elements in order.
    std::optional<Bias> biasFrom(int32_t tensor, int64_t columns, DataType type) const
    {
        std::optional<std::vector<int64_t>> const dims = constantDims(mModel, tensor);
        bool const row = dims && !dims->empty() && dims->back() == columns
            && std::all_of(dims->begin(), dims->end() - 1, [](int64_t e) { return e == 1; });
        if (!row)
        {
            return std::nullopt;
        }
        Bias bias;
        while (bias.producers.size() < mModel.layers.size())
        {
            int64_t const p = mProducers[tensor];
            std::optional<std::vector<int64_t>> const extents = constantDims(mModel, tensor);
            if (p < 0 || mRemoved[p] || !extents || !atMostOneAxis(*extents))
            {
                return std::nullopt;
            }
            LayerRecord const& producer = mModel.layers[p];
            bias.producers.push_back(static_cast<size_t>(p));
            if (producer.type == LayerType::kCONSTANT)
            {
                auto const params = fixedConstant(producer);
                if (!params || params->weights.count() != columns || !isFloatType(params->weights.type()))
                {
                    return std::nullopt;
                }
                // Stored as the sum read it, so that it adds what the unfused chain would.
                bias.values = params->weights.storedAs(type);
                return bias;
            }
            if (producer.type != LayerType::kSHUFFLE || producer.inputs.empty() || producer.inputs[0] < 0)
            {
                return std::nullopt;
            }
            tensor = producer.inputs[0];
        }
        return std::nullopt;
    }

    //! The chain starting at matrix multiply `l`, when it has more than the matrix multiply.
    std::optional<Chain> chainFrom(size_t l) const
    {
        LayerRecord const& product = mModel.layers[l];
        if (product.type != LayerType::kMATRIX_MULTIPLY || product.inputs.size() != 2 || product.inputs[0] < 0
            || product.inputs[1] < 0 || product.outputs.size() != 1 || !linearThroughout(mModel, product))
        {
            return std::nullopt;
        }
        auto const params = paramsOf<network::MatrixMultiplyParams>(product);
        auto const matrix
            = [](MatrixOperation op) { return op == MatrixOperation::kNONE || op == MatrixOperation::kTRANSPOSE; };
        int32_t const out = product.outputs[0];
        size_t const rank = mModel.tensors[out].dims.size();
        // The bias is one row for every matrix of the output, along its last axis.
        if (!params || product.epilogue.any() || !matrix(params->op0) || !matrix(params->op1) || rank < 2
            || !mRules.fusesInto(mModel, product))
        {
            return std::nullopt;
        }
        std::optional<int64_t> const columns = constantExtent(mModel, out, rank - 1);
        DataType const type = slotType(mModel, product, 2);
        Chain chain{{l}, std::nullopt, nullptr};
        std::optional<size_t> next = soleReader(l);
        if (next && isSum(mModel.layers[*next]) && joins(*next, product.precision, type))
        {
            LayerRecord const& sum = mModel.layers[*next];
            if (sum.inputs.size() != 2 || !columns || !sameShape(mModel, sum.outputs[0], out))
            {
                return std::nullopt;
            }
            int32_t const addend = sum.inputs[0] == out ? sum.inputs[1] : sum.inputs[0];
            if (addend == out || addend < 0)
            {
                return std::nullopt;
            }
            chain.bias = biasFrom(addend, *columns, type);
            if (!chain.bias)
            {
                return std::nullopt;
            }
            chain.layers.push_back(*next);
            next = soleReader(*next);
        }
        if (next && fusableActivation(mModel.layers[*next]) != nullptr && joins(*next, product.precision, type))
        {
            chain.layers.push_back(*next);
            chain.activation = fusableActivation(mModel.layers[*next]);
        }
        if (chain.layers.size() < 2)
        {
            return std::nullopt;
        }
        return chain;
    }

    LayerRecord fused(Chain const& chain) const
    {
        LayerRecord const& product = mModel.layers[chain.layers.front()];
        LayerRecord const& last = mModel.layers[chain.layers.back()];
        LayerRecord record;
        record.type = LayerType::kMATRIX_MULTIPLY;
        record.params = product.params;
        if (chain.bias)
        {
            record.epilogue.bias = chain.bias->values;
        }
        if (chain.activation != nullptr)
        {
            record.epilogue.activates = true;
            record.epilogue.activation = chain.activation->activation;
            record.epilogue.alpha = chain.activation->alpha;
            record.epilogue.beta = chain.activation->beta;
        }
        record.precision = product.precision;
        record.inputs = product.inputs;
        record.outputs = last.outputs;
        for (size_t l : chain.layers)
        {
            record.name += (record.name.empty() ? "" : " + ") + mModel.layers[l].name;
        }
        // Reads its inputs as the matrix multiply did, and writes in the type the chain computed in.
        std::vector<DataType> types;
        for (size_t slot = 0; slot < 3; ++slot)
        {
            types.push_back(slotType(mModel, product, slot));
        }
        setIoTypes(mModel, record, std::move(types));
        return record;
    }

    //! Takes layer `l` off the reader lists of the tensors it reads.
    void stopReading(size_t l)
    {
        for (int32_t t : mModel.layers[l].inputs)
        {
            if (t >= 0)
            {
                std::erase(mReaders[t], l);
            }
        }
    }

    //! Removes the bias's producers, from the sum's side back, while nothing reads what they make any more.
    void dropUnread(std::vector<size_t> const& producers)
    {
        for (size_t p : producers)
        {
            int32_t const made = mModel.layers[p].outputs[0];
            if (!mReaders[made].empty() || isObserved(mModel.tensors[made]))
            {
                return;
            }
            stopReading(p);
            mRemoved[p] = true;
        }
    }

    PlanModel& mModel;
    MatrixMultiplyFusionRules const& mRules;
    std::vector<std::vector<size_t>> mReaders; //!< by tensor: the layers that read it, kept current while fusing
    std::vector<int64_t> mProducers;           //!< by tensor: the layer that writes it, or -1
    std::vector<bool> mRemoved;                //!< by layer: absorbed into a fused layer, or no longer needed
};

} // namespace

void fuseMatrixMultiplyEpilogues(PlanModel& model, MatrixMultiplyFusionRules const& rules)
{
    Fuser(model, rules).run();
}

} // namespace kiln::plan
