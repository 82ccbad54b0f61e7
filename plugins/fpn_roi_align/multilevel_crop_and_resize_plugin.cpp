#include "multilevel_crop_and_resize_plugin.h"

#include "fpn_roi_align_run.h"

#include "api/plugin_collection.h"
#include "common/creators.h"

namespace kiln::plugins
{

using namespace nvinfer1;

namespace
{

constexpr int32_t kLevels = 5; // P2-P6

} // namespace

void MultilevelCropAndResizePlugin::check(MultilevelCropAndResizeParams const& params)
{
    if (params.pooledSize < 1)
    {
        throw PluginError(std::string(kName) + ": field 'pooled_size' is " + std::to_string(params.pooledSize)
            + "; expected 1 or more");
    }
    if (params.imageSize.size() != 3)
    {
        throw PluginError(std::string(kName) + ": field 'image_size' holds " + std::to_string(params.imageSize.size())
            + " values; expected 3 ([channels, height, width])");
    }
    for (int32_t const extent : params.imageSize)
    {
        if (extent < 1)
        {
            throw PluginError(std::string(kName) + ": field 'image_size' holds " + std::to_string(extent)
                + "; expected extents of 1 or more");
        }
    }
}

fpn::RoiAlignRule MultilevelCropAndResizePlugin::rule() const
{
    fpn::RoiAlignRule rule;
    rule.multilevel = true;
    rule.levels = kLevels;
    rule.pooled = mParams.pooledSize;
    rule.imageH = static_cast<float>(mParams.imageSize[1]);
    rule.imageW = static_cast<float>(mParams.imageSize[2]);
    rule.firstThreshold = 224.F * 224.F / 4.F; // in image pixels: sqrt(area) above 112 reads P3
    return rule;
}

int32_t MultilevelCropAndResizePlugin::getNbOutputs() const noexcept
{
    return 1;
}

Dims MultilevelCropAndResizePlugin::getOutputDimensions(
    int32_t /*index*/, Dims const* inputs, int32_t nbInputs) noexcept
{
    return guarded(kName, "getOutputDimensions", Dims{-1, {}},
        [&] { return fpn::outputDims(kName, inputs, nbInputs, kLevels, mParams.pooledSize); });
}

DataType MultilevelCropAndResizePlugin::getOutputDataType(
    int32_t /*index*/, DataType const* inputTypes, int32_t nbInputs) const noexcept
{
    // The feature maps' type, as NVIDIA's.
    return nbInputs > 1 && inputTypes[1] == DataType::kHALF ? DataType::kHALF : DataType::kFLOAT;
}

bool MultilevelCropAndResizePlugin::supportsFormat(DataType type, PluginFormat format) const noexcept
{
    return (type == DataType::kFLOAT || type == DataType::kHALF) && format == PluginFormat::kLINEAR;
}

void MultilevelCropAndResizePlugin::runHost(PluginTensors const& io) const
{
    fpn::runHost(io, rule());
}

void MultilevelCropAndResizePlugin::runDevice(PluginTensors const& io, cudaStream_t stream) const
{
    fpn::runDevice(kName, io, rule(), stream);
}

} // namespace kiln::plugins

KILN_COLLECT_PLUGIN(kiln::plugins::V2PluginCreator<kiln::plugins::MultilevelCropAndResizePlugin>)
