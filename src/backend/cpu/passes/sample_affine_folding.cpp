#include "backend/cpu/passes/sample_affine_folding.h"

#include "network/layers/constant.h"
#include "network/layers/elementwise.h"
#include "network/layers/normalization.h"
#include "plan/passes/sample_normalization.h"
#include "plan/plan_graph.h"

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kiln::cpu
{
namespace
{

using nvinfer1::DataType;
using nvinfer1::ElementWiseOperation;

//! Whether `layer` computes in FP32 (or has no precision of its own) and reads and writes only FP32 tensors.
bool float32Throughout(plan::PlanModel const& model, plan::LayerRecord const& layer)
{
    return (!layer.precision || *layer.precision == DataType::kFLOAT)
        && plan::computesIn(model, layer, layer.precision, DataType::kFLOAT);
}

class Folder
{
public:
    explicit Folder(plan::PlanModel& model)
        : mModel(model)
        , mEdit(model)
    {
    }

    size_t run()
    {
        size_t folded = 0;
        for (size_t l = 0; l < mModel.layers.size(); ++l)
        {
            folded += foldAt(l) ? 1 : 0;
        }
        mEdit.apply(mModel);
        return folded;
    }

private:
    //! The values of FP32 tensor `t`, one per channel, where a fixed constant holds one value or one per channel.
    std::optional<std::vector<float>> perChannel(int32_t t, int64_t channels) const
    {
        if (t < 0 || mEdit.producers[t] < 0 || mModel.tensors[t].type != DataType::kFLOAT)
        {
            return std::nullopt;
        }
        network::ConstantParams const* constant = plan::fixedConstant(mModel.layers[mEdit.producers[t]]);
        std::optional<std::vector<int64_t>> const dims = plan::constantDims(mModel, t);
        if (constant == nullptr || !dims || !plan::holdsOneValueOrOnePerChannel(*dims, channels))
        {
            return std::nullopt;
        }
        std::vector<float> values = constant->weights.toFloat();
        if (values.size() == 1)
        {
            values.assign(static_cast<size_t>(channels), values[0]);
        }
        return values.size() == static_cast<size_t>(channels) ? std::optional(std::move(values)) : std::nullopt;
    }

    //! The element-wise layer of `operation` that alone reads layer `l`'s output, FP32 throughout, with a constant of
    //! one value or one per channel as its other operand: its index and that constant's values.
    std::optional<std::pair<size_t, std::vector<float>>> affineReader(
        size_t l, ElementWiseOperation operation, int64_t channels) const
    {
        std::optional<size_t> const reader = plan::soleReader(mModel, mEdit.readers, l);
        if (!reader || mEdit.removed[*reader])
        {
            return std::nullopt;
        }
        plan::LayerRecord const& layer = mModel.layers[*reader];
        auto const* params = plan::paramsOf<network::ElementWiseParams>(layer);
        if (params == nullptr || params->operation != operation || layer.inputs.size() != 2 || layer.epilogue.any()
            || !layer.guards.empty() || !layer.ioTypes.empty() || !float32Throughout(mModel, layer))
        {
            return std::nullopt;
        }
        int32_t const x = mModel.layers[l].outputs[0];
        int32_t const other = layer.inputs[0] == x ? layer.inputs[1] : layer.inputs[0];
        if (layer.inputs[0] != x && layer.inputs[1] != x)
        {
            return std::nullopt;
        }
        // The sum must write the normalization's shape: the constant only broadcasts into it.
        if (!plan::sameShapeEveryRun(mModel, mEdit.known, x, layer.outputs[0]))
        {
            return std::nullopt;
        }
        std::optional<std::vector<float>> values = perChannel(other, channels);
        return values ? std::optional(std::pair(*reader, std::move(*values))) : std::nullopt;
    }

    bool foldAt(size_t l)
    {
        plan::LayerRecord const& layer = mModel.layers[l];
        if (mEdit.removed[l] || !plan::normalizesWholeSamples(mModel, layer) || layer.outputs.size() != 1
            || layer.epilogue.any() || !layer.guards.empty() || !layer.ioTypes.empty()
            || !float32Throughout(mModel, layer))
        {
            return false;
        }
        std::optional<int64_t> const channels = plan::constantExtent(mModel, layer.inputs[0], 1);
        std::optional<std::vector<float>> scale = channels ? perChannel(layer.inputs[1], *channels) : std::nullopt;
        std::optional<std::vector<float>> shift = channels ? perChannel(layer.inputs[2], *channels) : std::nullopt;
        if (!scale || !shift)
        {
            return false;
        }
        std::vector<size_t> folded;
        size_t last = l;
        if (auto product = affineReader(last, ElementWiseOperation::kPROD, *channels))
        {
            for (size_t c = 0; c < scale->size(); ++c)
            {
                (*scale)[c] *= product->second[c];
                (*shift)[c] *= product->second[c];
            }
            last = product->first;
            folded.push_back(last);
        }
        if (auto sum = affineReader(last, ElementWiseOperation::kSUM, *channels))
        {
            for (size_t c = 0; c < shift->size(); ++c)
            {
                (*shift)[c] += sum->second[c];
            }
            last = sum->first;
            folded.push_back(last);
        }
        if (folded.empty())
        {
            return false;
        }
        plan::LayerRecord normalization = layer;
        normalization.inputs = {layer.inputs[0], channelConstant(l, layer.inputs[1], *scale, "scale"),
            channelConstant(l, layer.inputs[2], *shift, "shift")};
        normalization.outputs = mModel.layers[last].outputs;
        for (size_t f : folded)
        {
            normalization.name += " + " + mModel.layers[f].name;
        }
        mEdit.remove(mModel, l);
        for (size_t f : folded)
        {
            mEdit.remove(mModel, f);
        }
        mEdit.before[l].push_back(std::move(normalization));
        return true;
    }

    //! A constant [1, C, 1, 1] holding `values`, made from the constant writing `like` and added before layer `l`;
    //! its tensor.
    int32_t channelConstant(size_t l, int32_t like, std::vector<float> const& values, char const* what)
    {
        plan::LayerRecord constant = mModel.layers[mEdit.producers[like]];
        auto params = std::make_shared<network::ConstantParams>(*plan::fixedConstant(constant));
        auto const channels = static_cast<int64_t>(values.size());
        params->dimensions = nvinfer1::Dims{4, {1, channels, 1, 1}};
        params->weights = network::WeightsBuffer(nvinfer1::Weights{DataType::kFLOAT, values.data(), channels});
        constant.params = std::move(params);
        constant.name = mModel.layers[l].name + " (" + what + " per channel)";
        plan::TensorRecord tensor = mModel.tensors[like];
        tensor.name = constant.name;
        int32_t const one = plan::constantNode(mModel, 1);
        tensor.dims = {one, plan::constantNode(mModel, channels), one, one};
        mModel.tensors.push_back(std::move(tensor));
        auto const output = static_cast<int32_t>(mModel.tensors.size() - 1);
        constant.outputs = {output};
        mEdit.before[l].push_back(std::move(constant));
        return output;
    }

    plan::PlanModel& mModel;
    plan::LayerRewrite mEdit;
};

} // namespace

size_t foldAffineIntoSampleNormalizations(plan::PlanModel& model)
{
    return Folder(model).run();
}

} // namespace kiln::cpu
