#include "grid_anchor_plugin.h"
#include "prior_box_index.h"

#include "api/plugin_collection.h"
#include "common/creators.h"

#ifdef KILN_WITH_CUDA
#include "common/cuda_check.h"
#include "prior_box_kernels.h"
#endif

#include <cmath>
#include <limits>
#include <string>

namespace kiln::plugins
{

using namespace nvinfer1;

template <bool kRect>
void GridAnchorGenerator<kRect>::check(GridAnchorParams const& params)
{
    std::string const name(kName);
    if (params.numLayers < 1)
    {
        throw PluginError(
            name + ": field 'numLayers' is " + std::to_string(params.numLayers) + "; expected a positive integer");
    }
    size_t const perLayer = kRect ? 2 : 1;
    if (params.featureMapShapes.size() != perLayer * static_cast<size_t>(params.numLayers))
    {
        throw PluginError(name + ": field 'featureMapShapes' holds " + std::to_string(params.featureMapShapes.size())
            + " values; expected " + (kRect ? "a height and a width" : "one edge") + " for each of the "
            + std::to_string(params.numLayers) + " layers");
    }
    for (int32_t const extent : params.featureMapShapes)
    {
        if (extent < 1)
        {
            throw PluginError(
                name + ": field 'featureMapShapes' holds " + std::to_string(extent) + "; expected positive extents");
        }
    }
    if (params.aspectRatios.size() < 3)
    {
        throw PluginError(name + ": field 'aspectRatios' holds " + std::to_string(params.aspectRatios.size())
            + " values; expected at least 3 (the first layer takes the first three)");
    }
    for (float const ratio : params.aspectRatios)
    {
        if (!(ratio > 0.F))
        {
            throw PluginError(
                name + ": field 'aspectRatios' holds " + std::to_string(ratio) + "; expected positive values");
        }
    }
    if (params.variance.size() != 4)
    {
        throw PluginError(
            name + ": field 'variance' holds " + std::to_string(params.variance.size()) + " values; expected 4");
    }
}

template <bool kRect>
std::pair<int32_t, int32_t> GridAnchorGenerator<kRect>::mapShape(int32_t layer) const
{
    std::vector<int32_t> const& shapes = this->mParams.featureMapShapes;
    return kRect ? std::pair{shapes[2 * layer], shapes[2 * layer + 1]} : std::pair{shapes[layer], shapes[layer]};
}

template <bool kRect>
std::vector<float> GridAnchorGenerator<kRect>::cellBoxSizes(int32_t layer) const
{
    GridAnchorParams const& p = this->mParams;
    // SSD's scales, spaced evenly from minSize (first layer) to maxSize (last); 1 after the last.
    auto const scale = [&](int32_t id) -> float {
        if (id >= p.numLayers)
        {
            return 1.F;
        }
        return p.numLayers == 1 ? p.minSize : p.minSize + (p.maxSize - p.minSize) * id / (p.numLayers - 1);
    };
    std::vector<float> ratios;
    std::vector<float> scales;
    if (layer == 0)
    {
        // The first layer: the first three ratios at scales 0.1, s0, s0.
        ratios.assign(p.aspectRatios.begin(), p.aspectRatios.begin() + 3);
        scales = {0.1F, scale(0), scale(0)};
    }
    else
    {
        // Every ratio at the layer's scale, then ratio 1 at the geometric mean of this scale and the next.
        ratios = p.aspectRatios;
        scales.assign(ratios.size(), scale(layer));
        ratios.push_back(1.F);
        scales.push_back(std::sqrt(scale(layer) * scale(layer + 1)));
    }
    std::vector<float> sizes;
    for (size_t i = 0; i < ratios.size(); ++i)
    {
        sizes.insert(sizes.end(), {scales[i] * std::sqrt(ratios[i]), scales[i] / std::sqrt(ratios[i])});
    }
    return sizes;
}

template <bool kRect>
std::vector<float> GridAnchorGenerator<kRect>::allBoxSizes() const
{
    std::vector<float> all;
    for (int32_t layer = 0; layer < this->mParams.numLayers; ++layer)
    {
        std::vector<float> const sizes = cellBoxSizes(layer);
        all.insert(all.end(), sizes.begin(), sizes.end());
    }
    return all;
}

template <bool kRect>
int32_t GridAnchorGenerator<kRect>::getNbOutputs() const noexcept
{
    return this->mParams.numLayers;
}

template <bool kRect>
Dims GridAnchorGenerator<kRect>::getOutputDimensions(int32_t index, Dims const* /*inputs*/, int32_t nbInputs) noexcept
{
    return guarded(kName, "getOutputDimensions", Dims{-1, {}}, [&] {
        if (nbInputs != 0)
        {
            throw PluginError(std::string(kName) + ": takes no inputs; it was given " + std::to_string(nbInputs));
        }
        auto const [h, w] = mapShape(index);
        auto const perCell = static_cast<int64_t>(cellBoxSizes(index).size() / 2);
        // Checked in 64 bits: an int32 extent that wrapped around could even equal the one a plan sized.
        int64_t const cells = int64_t{h} * w;
        if (perCell > 0 && cells > std::numeric_limits<int32_t>::max() / (perCell * 4))
        {
            throw PluginError(std::string(kName) + ": layer " + std::to_string(index) + "'s feature map ("
                + std::to_string(h) + " x " + std::to_string(w) + ") has more boxes than an output can hold");
        }
        return Dims{3, {2, static_cast<int32_t>(cells * perCell * 4), 1}};
    });
}

template <bool kRect>
DataType GridAnchorGenerator<kRect>::getOutputDataType(
    int32_t /*index*/, DataType const* /*inputTypes*/, int32_t /*nbInputs*/) const noexcept
{
    return DataType::kFLOAT;
}

// The anchors are the prior boxes of a grid whose cells are 1/H by 1/W of an image of size 1, centred in the cells.
template <bool kRect>
void GridAnchorGenerator<kRect>::runHost(PluginTensors const& io) const
{
    std::vector<float> const& variance = this->mParams.variance;
    for (int32_t layer = 0; layer < this->mParams.numLayers; ++layer)
    {
        auto const [h, w] = mapShape(layer);
        std::vector<float> const sizes = cellBoxSizes(layer);
        auto const perCell = static_cast<int64_t>(sizes.size() / 2);
        int64_t const boxes = int64_t{h} * w * perCell;
        float* out = io.output<float>(layer);
        for (int64_t n = 0; n < io.outputDesc[layer].dims.d[0]; ++n)
        {
            float* sample = out + n * boxes * 8;
            for (int64_t box = 0; box < boxes; ++box)
            {
                priorBox(box, perCell, w, sizes.data(), 1.F / static_cast<float>(h), 1.F / static_cast<float>(w), 0.5F,
                    1.F, 1.F, false, sample + box * 4);
                std::copy(variance.begin(), variance.end(), sample + boxes * 4 + box * 4);
            }
        }
    }
}

template <bool kRect>
void GridAnchorGenerator<kRect>::runDevice(PluginTensors const& io, cudaStream_t stream) const
{
#ifdef KILN_WITH_CUDA
    float const* sizes = mDeviceSizes.get(kName, allBoxSizes());
    for (int32_t layer = 0; layer < this->mParams.numLayers; ++layer)
    {
        auto const [h, w] = mapShape(layer);
        auto const perCell = static_cast<int64_t>(cellBoxSizes(layer).size() / 2);
        checkCuda(kName,
            launchPriorBox(io.output<float>(layer), io.outputDesc[layer].dims.d[0], int64_t{h} * w * perCell, perCell,
                w, sizes, 1.F / static_cast<float>(h), 1.F / static_cast<float>(w), 0.5F, 1.F, 1.F, false,
                this->mParams.variance.data(), stream));
        sizes += perCell * 2;
    }
#else
    (void) io;
    (void) stream;
#endif
}

template class GridAnchorGenerator<false>;
template class GridAnchorGenerator<true>;

} // namespace kiln::plugins

KILN_COLLECT_PLUGIN(kiln::plugins::V2PluginCreator<kiln::plugins::GridAnchorGenerator<false>>)
KILN_COLLECT_PLUGIN(kiln::plugins::V2PluginCreator<kiln::plugins::GridAnchorGenerator<true>>)
