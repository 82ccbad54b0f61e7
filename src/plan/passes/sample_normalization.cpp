#include "plan/passes/sample_normalization.h"

#include "core/tensor_view.h"
#include "network/layers/constant.h"
#include "network/layers/normalization.h"
#include "network/layers/shuffle.h"
#include "plan/plan_graph.h"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <vector>

namespace kiln::plan
{
namespace
{

using nvinfer1::LayerType;

//! The axes mask of axes 1, 2 and 3: each sample of a 4-D tensor.
constexpr uint32_t kSampleAxes = 0b1110;

//! Whether shuffle `layer` only reshapes, reading and writing its tensors' own types unconditionally.
bool onlyReshapes(LayerRecord const& layer)
{
    auto const* shuffle = plan::paramsOf<network::ShuffleParams>(layer);
    return shuffle != nullptr && shuffle->reshapesOnly() && !layer.inputs.empty() && layer.inputs[0] >= 0
        && layer.outputs.size() == 1 && !layer.epilogue.any() && layer.guards.empty() && layer.ioTypes.empty();
}

//! The fixed constant layer that writes tensor `t` where it holds one value.
std::optional<size_t> oneValueConstant(PlanModel const& model, std::vector<int64_t> const& producers, int32_t t)
{
    if (t < 0 || producers[t] < 0)
    {
        return std::nullopt;
    }
    auto const layer = static_cast<size_t>(producers[t]);
    network::ConstantParams const* constant = plan::fixedConstant(model.layers[layer]);
    return constant != nullptr && constant->weights.count() == 1 ? std::optional<size_t>(layer) : std::nullopt;
}

//! One value of `known` (valuesNoRunChanges) per extent of tensor `t`, where each is known.
std::optional<std::vector<int64_t>> knownDims(
    PlanModel const& model, std::vector<std::optional<int64_t>> const& known, int32_t t)
{
    std::vector<int64_t> dims;
    for (int32_t node : model.tensors[t].dims)
    {
        if (!known[static_cast<size_t>(node)])
        {
            return std::nullopt;
        }
        dims.push_back(*known[static_cast<size_t>(node)]);
    }
    return dims;
}

//! A reshape -> normalization -> reshape of one sample per row, as normalizeSamplesInPlace replaces it.
struct SampleNormalization
{
    size_t flatten;       //!< the first reshape
    size_t normalization; //!< the instance normalization of one row per sample
    size_t restore;       //!< the reshape back
    size_t scale;         //!< the constant layers of the scale and the bias
    size_t bias;
};

class Rewriter
{
public:
    explicit Rewriter(PlanModel& model)
        : mModel(model)
        , mEdit(model)
    {
    }

    size_t run()
    {
        size_t replaced = 0;
        for (size_t l = 0; l < mModel.layers.size(); ++l)
        {
            if (std::optional<SampleNormalization> const found = sampleNormalizationAt(l))
            {
                replace(*found);
                ++replaced;
            }
        }
        mEdit.apply(mModel);
        return replaced;
    }

private:
    //! The pattern around normalization layer `l`, where it is one.
    std::optional<SampleNormalization> sampleNormalizationAt(size_t l) const
    {
        LayerRecord const& layer = mModel.layers[l];
        auto const* params = plan::paramsOf<network::NormalizationParams>(layer);
        if (params == nullptr || mEdit.removed[l] || params->nbGroups > 1 || layer.inputs.size() != 3
            || layer.outputs.size() != 1 || layer.epilogue.any() || !layer.guards.empty() || !layer.ioTypes.empty())
        {
            return std::nullopt;
        }
        int32_t const rows = layer.inputs[0];
        int32_t const normalized = layer.outputs[0];
        size_t const rank = mModel.tensors[rows].dims.size();
        if ((rank != 2 && rank != 3) || params->axes != 1U << (rank - 1) || mEdit.producers[rows] < 0)
        {
            return std::nullopt;
        }
        auto const flatten = static_cast<size_t>(mEdit.producers[rows]);
        std::optional<size_t> const restore = plan::soleReader(mModel, mEdit.readers, l);
        std::optional<size_t> const scale = oneValueConstant(mModel, mEdit.producers, layer.inputs[1]);
        std::optional<size_t> const bias = oneValueConstant(mModel, mEdit.producers, layer.inputs[2]);
        if (!restore || !scale || !bias || !onlyReshapes(mModel.layers[flatten])
            || !onlyReshapes(mModel.layers[*restore]) || mEdit.readers[rows].size() != 1
            || plan::isObserved(mModel.tensors[rows]) || mModel.layers[*restore].inputs[0] != normalized)
        {
            return std::nullopt;
        }
        int32_t const x = mModel.layers[flatten].inputs[0];
        int32_t const y = mModel.layers[*restore].outputs[0];
        std::vector<int32_t> const& xDims = mModel.tensors[x].dims;
        std::vector<int32_t> const& yDims = mModel.tensors[y].dims;
        std::vector<int32_t> const& rowDims = mModel.tensors[rows].dims;
        std::optional<std::vector<int64_t>> const xKnown = knownDims(mModel, mEdit.known, x);
        std::optional<std::vector<int64_t>> const rowKnown = knownDims(mModel, mEdit.known, rows);
        if (xDims.size() != 4 || yDims.size() != 4 || !xKnown || !rowKnown)
        {
            return std::nullopt;
        }
        for (size_t axis = 0; axis < 4; ++axis)
        {
            if (!plan::equalEveryRun(mModel, mEdit.known, xDims[axis], yDims[axis]))
            {
                return std::nullopt;
            }
        }
        // [N, 1, K] or [N, K]: one row per sample, K its elements.
        int64_t const sample = (*xKnown)[1] * (*xKnown)[2] * (*xKnown)[3];
        bool const oneRowPerSample = plan::equalEveryRun(mModel, mEdit.known, rowDims[0], xDims[0])
            && (rank == 2 || (*rowKnown)[1] == 1) && (*rowKnown)[rank - 1] == sample;
        nvinfer1::DataType const type = mModel.tensors[x].type;
        bool const oneType = mModel.tensors[rows].type == type && mModel.tensors[normalized].type == type
            && mModel.tensors[y].type == type;
        if (!oneRowPerSample || !oneType)
        {
            return std::nullopt;
        }
        return SampleNormalization{flatten, l, *restore, *scale, *bias};
    }

    //! The normalization of X over axes 1 to 3 in place of the three layers; its scale and bias as [1, 1, 1, 1].
    void replace(SampleNormalization const& found)
    {
        LayerRecord const& flatten = mModel.layers[found.flatten];
        LayerRecord normalization = mModel.layers[found.normalization];
        auto params = std::make_shared<network::NormalizationParams>(
            *plan::paramsOf<network::NormalizationParams>(normalization));
        params->axes = kSampleAxes;
        params->nbGroups = 1;
        normalization.params = std::move(params);
        normalization.inputs = {flatten.inputs[0], fourDimensional(found.scale), fourDimensional(found.bias)};
        normalization.outputs = mModel.layers[found.restore].outputs;
        // Each goes with the constants only it read (the reshapes' dimensions, the old scale and bias).
        for (size_t l : {found.flatten, found.restore, found.normalization})
        {
            mEdit.remove(mModel, l);
        }
        mEdit.before[found.normalization].push_back(std::move(normalization));
    }

    //! A copy of one-value constant layer `constant` shaped [1, 1, 1, 1], added before it (once, whichever
    //! normalizations read it); its tensor.
    int32_t fourDimensional(size_t constant)
    {
        if (auto const made = mFourDimensional.find(constant); made != mFourDimensional.end())
        {
            return made->second;
        }
        LayerRecord copy = mModel.layers[constant];
        auto params = std::make_shared<network::ConstantParams>(*plan::fixedConstant(copy));
        params->dimensions = nvinfer1::Dims{4, {1, 1, 1, 1}};
        copy.params = std::move(params);
        copy.name += " as [1, 1, 1, 1]";
        plan::TensorRecord tensor = mModel.tensors[copy.outputs[0]];
        tensor.name = copy.name;
        int32_t const one = plan::constantNode(mModel, 1);
        tensor.dims = {one, one, one, one};
        mModel.tensors.push_back(std::move(tensor));
        auto const output = static_cast<int32_t>(mModel.tensors.size() - 1);
        copy.outputs = {output};
        mEdit.before[constant].push_back(std::move(copy));
        mFourDimensional[constant] = output;
        return output;
    }

    PlanModel& mModel;
    plan::LayerRewrite mEdit;
    std::map<size_t, int32_t> mFourDimensional; //!< by one-value constant layer: its copy's tensor
};

} // namespace

size_t normalizeSamplesInPlace(PlanModel& model)
{
    return Rewriter(model).run();
}

namespace
{

//! Whether `layer` normalizes each sample of a 4-D tensor whole, its scale and bias 4-D constants whose extents
//! `fits` takes.
template <typename Fits>
bool normalizesSamplesWith(PlanModel const& model, LayerRecord const& layer, Fits const& fits)
{
    auto const* params = plan::paramsOf<network::NormalizationParams>(layer);
    if (params == nullptr || params->axes != kSampleAxes || params->nbGroups > 1 || layer.inputs.size() != 3
        || layer.inputs[0] < 0 || model.tensors[layer.inputs[0]].dims.size() != 4)
    {
        return false;
    }
    for (size_t slot : {1, 2})
    {
        int32_t const weight = layer.inputs[slot];
        std::optional<std::vector<int64_t>> const dims = weight >= 0 ? plan::constantDims(model, weight) : std::nullopt;
        if (!dims || dims->size() != 4 || !fits(*dims))
        {
            return false;
        }
    }
    return true;
}

} // namespace

bool normalizesWholeSamples(PlanModel const& model, LayerRecord const& layer)
{
    return normalizesSamplesWith(model, layer, [](std::vector<int64_t> const& dims) { return volume(dims) == 1; });
}

bool normalizesSamplesPerChannel(PlanModel const& model, LayerRecord const& layer)
{
    std::optional<int64_t> const channels
        = layer.inputs.empty() || layer.inputs[0] < 0 ? std::nullopt : plan::constantExtent(model, layer.inputs[0], 1);
    return normalizesSamplesWith(model, layer,
        [&](std::vector<int64_t> const& dims) { return holdsOneValueOrOnePerChannel(dims, channels.value_or(-1)); });
}

bool holdsOneValueOrOnePerChannel(std::vector<int64_t> const& dims, int64_t channels)
{
    if (dims.size() > 4)
    {
        return false;
    }
    std::vector<int64_t> four(4 - dims.size(), 1);
    four.insert(four.end(), dims.begin(), dims.end());
    return four[0] == 1 && four[2] == 1 && four[3] == 1 && (four[1] == 1 || four[1] == channels);
}

} // namespace kiln::plan
