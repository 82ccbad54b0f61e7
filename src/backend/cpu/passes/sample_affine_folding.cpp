#include "backend/cpu/passes/sample_affine_folding.h"

#include "backend/cpu/passes/channel_affine.h"

#include "network/layers/constant.h"
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
        std::optional<std::vector<float>> scale
            = channels ? perChannelConstant(mModel, mEdit, layer.inputs[1], *channels) : std::nullopt;
        std::optional<std::vector<float>> shift
            = channels ? perChannelConstant(mModel, mEdit, layer.inputs[2], *channels) : std::nullopt;
        std::optional<ChannelAffine> const affine = scale && shift ? channelAffineAfter(mModel, mEdit, l, *channels)
                                                                   : std::nullopt;
        if (!affine)
        {
            return false;
        }
        // y = ((x - mean) * inverse * scale + shift) * factor + the sum's shift
        for (size_t c = 0; c < scale->size(); ++c)
        {
            if (affine->factor)
            {
                (*scale)[c] *= (*affine->factor)[c];
                (*shift)[c] *= (*affine->factor)[c];
            }
            if (affine->shift)
            {
                (*shift)[c] += (*affine->shift)[c];
            }
        }
        std::vector<size_t> const& folded = affine->layers;
        size_t const last = folded.back();
        plan::LayerRecord normalization = layer;
        normalization.inputs = {layer.inputs[0], channelConstant(l, layer.inputs[1], *scale, "scale"),
            channelConstant(l, layer.inputs[2], *shift, "shift")};
        normalization.outputs = mModel.layers[last].outputs;
        for (size_t f : folded)
        {
            normalization.name += " + " + mModel.layers[f].name;
        }
        mEdit.remove(mModel, l);
        removeChannelAffine(mModel, mEdit, *affine);
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
