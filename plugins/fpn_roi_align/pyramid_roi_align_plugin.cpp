#include "pyramid_roi_align_plugin.h"

#include "fpn_roi_align_run.h"

#include "api/plugin_collection.h"
#include "common/creators.h"

namespace kiln::plugins
{

using namespace nvinfer1;

namespace
{

constexpr int32_t kLevels = 4; // P2-P5

void requireAtLeast(char const* field, int32_t value, int32_t least)
{
    if (value < least)
    {
        throw PluginError(std::string(PyramidRoiAlignPlugin::kName) + ": field '" + field + "' is "
            + std::to_string(value) + "; expected " + std::to_string(least) + " or more");
    }
}

} // namespace

void PyramidRoiAlignPlugin::check(PyramidRoiAlignParams const& params)
{
    requireAtLeast("fpn_scale", params.fpnScale, 1);
    requireAtLeast("pooled_size", params.pooledSize, 1);
    requireAtLeast("sampling_ratio", params.samplingRatio, 0);
    // Each bin averages sampling_ratio squared samples (models use 0, adaptive, or 2): a corrupted plan's billions
    // would never finish.
    if (params.samplingRatio > 64)
    {
        throw PluginError(std::string(kName) + ": field 'sampling_ratio' is " + std::to_string(params.samplingRatio)
            + "; expected 64 or less");
    }
    if (params.imageSize.size() != 2)
    {
        throw PluginError(std::string(kName) + ": field 'image_size' holds " + std::to_string(params.imageSize.size())
            + " values; expected 2 ([height, width])");
    }
    requireAtLeast("image_size", params.imageSize[0], 1);
    requireAtLeast("image_size", params.imageSize[1], 1);
    if (params.roiCoordsTransform < -1 || params.roiCoordsTransform > 2)
    {
        throw PluginError(std::string(kName) + ": field 'roi_coords_transform' is "
            + std::to_string(params.roiCoordsTransform) + "; expected -1, 0, 1 or 2");
    }
}

fpn::RoiAlignRule PyramidRoiAlignPlugin::rule() const
{
    fpn::RoiAlignRule rule;
    rule.levels = kLevels;
    rule.pooled = mParams.pooledSize;
    rule.imageH = static_cast<float>(mParams.imageSize[0]);
    rule.imageW = static_cast<float>(mParams.imageSize[1]);
    if (mParams.legacy)
    {
        // The original plugin: normalized [y1, x1, y2, x2] ROIs, align-corners sampling, one sample per bin, and a
        // P2/P3 threshold made from Mask R-CNN's 1024 x 1024 image and a scale of 224 * sqrt(2), in normalized area.
        rule.transform = -1;
        rule.absolute = false;
        rule.swap = true;
        rule.plusOne = false;
        rule.samplingRatio = 1;
        rule.firstThreshold = (224.F * 224.F * 2.F / (1024.F * 1024.F)) / 16.F;
        return rule;
    }
    rule.transform = mParams.roiCoordsTransform;
    rule.absolute = mParams.roiCoordsAbsolute;
    rule.swap = mParams.roiCoordsSwap;
    rule.plusOne = mParams.roiCoordsPlusOne;
    rule.samplingRatio = mParams.samplingRatio;
    // FPN's equation 1 in normalized area: ROIs of sqrt(area) >= fpn_scale read P4, so P3 starts at (fpn_scale / 2)^2.
    auto const scale = static_cast<float>(mParams.fpnScale);
    rule.firstThreshold = scale * scale / (rule.imageH * rule.imageW) / 4.F;
    return rule;
}

int32_t PyramidRoiAlignPlugin::getNbOutputs() const noexcept
{
    return 1;
}

Dims PyramidRoiAlignPlugin::getOutputDimensions(int32_t /*index*/, Dims const* inputs, int32_t nbInputs) noexcept
{
    return guarded(kName, "getOutputDimensions", Dims{-1, {}},
        [&] { return fpn::outputDims(kName, inputs, nbInputs, kLevels, mParams.pooledSize); });
}

DataType PyramidRoiAlignPlugin::getOutputDataType(
    int32_t /*index*/, DataType const* /*inputTypes*/, int32_t /*nbInputs*/) const noexcept
{
    return DataType::kFLOAT;
}

void PyramidRoiAlignPlugin::runHost(PluginTensors const& io) const
{
    fpn::runHost(io, rule());
}

void PyramidRoiAlignPlugin::runDevice(PluginTensors const& io, cudaStream_t stream) const
{
    fpn::runDevice(kName, io, rule(), stream);
}

} // namespace kiln::plugins

KILN_COLLECT_PLUGIN(kiln::plugins::V2PluginCreator<kiln::plugins::PyramidRoiAlignPlugin>)
