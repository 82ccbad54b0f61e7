#include "prior_box_plugin.h"
#include "prior_box_index.h"

#include "api/plugin_collection.h"
#include "common/creators.h"

#ifdef KILN_WITH_CUDA
#include "common/cuda_check.h"
#include "prior_box_kernels.h"
#endif

#include <cmath>
#include <string>

namespace kiln::plugins
{

using namespace nvinfer1;

namespace
{

void requirePositive(std::vector<float> const& values, char const* field)
{
    for (float const value : values)
    {
        if (!(value > 0.F))
        {
            throw PluginError(std::string(PriorBoxPlugin::kName) + ": field '" + field + "' holds "
                + std::to_string(value) + "; expected positive values");
        }
    }
}

} // namespace

void PriorBoxPlugin::check(PriorBoxParams const& params)
{
    std::string const name(kName);
    if (params.minSize.empty())
    {
        throw PluginError(name + ": field 'minSize' is empty; expected at least one size");
    }
    requirePositive(params.minSize, "minSize");
    requirePositive(params.maxSize, "maxSize");
    requirePositive(params.aspectRatios, "aspectRatios");
    if (!params.maxSize.empty() && params.maxSize.size() != params.minSize.size())
    {
        throw PluginError(name + ": field 'maxSize' holds " + std::to_string(params.maxSize.size())
            + " values; expected none or as many as minSize (" + std::to_string(params.minSize.size()) + ")");
    }
    if (params.variance.size() != 4)
    {
        throw PluginError(
            name + ": field 'variance' holds " + std::to_string(params.variance.size()) + " values; expected 4");
    }
    if (params.imgH < 0 || params.imgW < 0)
    {
        throw PluginError(name + ": field '" + (params.imgH < 0 ? "imgH" : "imgW") + "' is "
            + std::to_string(params.imgH < 0 ? params.imgH : params.imgW) + "; expected 0 (from the image) or more");
    }
    if (params.stepH < 0.F || params.stepW < 0.F)
    {
        throw PluginError(name + ": field '" + (params.stepH < 0.F ? "stepH" : "stepW") + "' is "
            + std::to_string(params.stepH < 0.F ? params.stepH : params.stepW)
            + "; expected 0 (image size / feature map size) or more");
    }
}

std::vector<float> PriorBoxPlugin::cellBoxSizes() const
{
    // The aspect ratios in use: 1, then each given ratio not already present, followed by its inverse with flip.
    std::vector<float> ratios{1.F};
    for (float const ratio : mParams.aspectRatios)
    {
        bool present = false;
        for (float const known : ratios)
        {
            present = present || std::fabs(ratio - known) < 1e-6F;
        }
        if (!present)
        {
            ratios.push_back(ratio);
            if (mParams.flip)
            {
                ratios.push_back(1.F / ratio);
            }
        }
    }
    std::vector<float> sizes;
    for (size_t s = 0; s < mParams.minSize.size(); ++s)
    {
        float const edge = mParams.minSize[s];
        sizes.insert(sizes.end(), {edge, edge});
        if (!mParams.maxSize.empty())
        {
            float const mean = std::sqrt(edge * mParams.maxSize[s]);
            sizes.insert(sizes.end(), {mean, mean});
        }
        for (size_t r = 1; r < ratios.size(); ++r)
        {
            sizes.insert(sizes.end(), {edge * std::sqrt(ratios[r]), edge / std::sqrt(ratios[r])});
        }
    }
    return sizes;
}

int32_t PriorBoxPlugin::getNbOutputs() const noexcept
{
    return 1;
}

Dims PriorBoxPlugin::getOutputDimensions(int32_t /*index*/, Dims const* inputs, int32_t nbInputs) noexcept
{
    return guarded(kName, "getOutputDimensions", Dims{-1, {}}, [&] {
        if (nbInputs != 2 || inputs[0].nbDims != 3 || inputs[1].nbDims != 3)
        {
            throw PluginError(std::string(kName) + ": expects two inputs, the feature map [N, C, H, W] and the image "
                + "[N, C, imgH, imgW]");
        }
        auto const perCell = static_cast<int64_t>(cellBoxSizes().size() / 2);
        int64_t const boxes = int64_t{inputs[0].d[1]} * inputs[0].d[2] * perCell;
        return Dims{3, {2, static_cast<int32_t>(boxes * 4), 1}};
    });
}

DataType PriorBoxPlugin::getOutputDataType(
    int32_t /*index*/, DataType const* /*inputTypes*/, int32_t /*nbInputs*/) const noexcept
{
    return DataType::kFLOAT;
}

PriorGrid PriorBoxPlugin::grid(PluginTensors const& io) const
{
    Dims const& feature = io.inputDesc[0].dims;
    Dims const& image = io.inputDesc[1].dims;
    PriorGrid grid{feature.d[2], feature.d[3], 0.F, 0.F, mParams.stepH, mParams.stepW};
    // As NVIDIA's: the image size comes from the image input unless both fields give it, and the steps likewise.
    bool const imageGiven = mParams.imgH != 0 && mParams.imgW != 0;
    grid.imageH = static_cast<float>(imageGiven ? mParams.imgH : image.d[2]);
    grid.imageW = static_cast<float>(imageGiven ? mParams.imgW : image.d[3]);
    if (mParams.stepH == 0.F || mParams.stepW == 0.F)
    {
        grid.stepH = grid.imageH / static_cast<float>(grid.height);
        grid.stepW = grid.imageW / static_cast<float>(grid.width);
    }
    return grid;
}

void PriorBoxPlugin::runHost(PluginTensors const& io) const
{
    PriorGrid const g = grid(io);
    std::vector<float> const sizes = cellBoxSizes();
    auto const perCell = static_cast<int64_t>(sizes.size() / 2);
    int64_t const boxes = g.height * g.width * perCell;
    float* out = io.output<float>(0);
    for (int64_t n = 0; n < io.outputDesc[0].dims.d[0]; ++n)
    {
        float* sample = out + n * boxes * 8;
        for (int64_t box = 0; box < boxes; ++box)
        {
            priorBox(box, perCell, g.width, sizes.data(), g.stepH, g.stepW, mParams.offset, g.imageH, g.imageW,
                mParams.clip, sample + box * 4);
            for (int k = 0; k < 4; ++k)
            {
                sample[boxes * 4 + box * 4 + k] = mParams.variance[k];
            }
        }
    }
}

void PriorBoxPlugin::runDevice(PluginTensors const& io, cudaStream_t stream) const
{
#ifdef KILN_WITH_CUDA
    PriorGrid const g = grid(io);
    std::vector<float> const sizes = cellBoxSizes();
    auto const perCell = static_cast<int64_t>(sizes.size() / 2);
    float const* deviceSizes = mDeviceSizes.get(kName, sizes);
    checkCuda(kName,
        launchPriorBox(io.output<float>(0), io.outputDesc[0].dims.d[0], g.height * g.width * perCell, perCell, g.width,
            deviceSizes, g.stepH, g.stepW, mParams.offset, g.imageH, g.imageW, mParams.clip, mParams.variance.data(),
            stream));
#else
    (void) io;
    (void) stream;
#endif
}

} // namespace kiln::plugins

KILN_COLLECT_PLUGIN(kiln::plugins::V2PluginCreator<kiln::plugins::PriorBoxPlugin>)
