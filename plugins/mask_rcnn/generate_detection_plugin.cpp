#include "generate_detection_plugin.h"

#include "field_checks.h"
#include "roi_detection_run.h"

#include "api/plugin_collection.h"
#include "common/creators.h"

namespace kiln::plugins
{

using namespace nvinfer1;

void GenerateDetectionPlugin::check(GenerateDetectionParams const& params)
{
    checkDetectionParams(kName, params.detection);
    std::vector<int32_t> const& size = params.imageSize;
    if (size.size() != 3 || size[0] < 1 || size[1] < 1 || size[2] < 1)
    {
        throw PluginError(std::string(kName) + ": field 'image_size' is " + mrcnn::listText(size)
            + "; expected [C, H, W], each 1 or more");
    }
}

mrcnn::DetectionRule GenerateDetectionPlugin::rule() const
{
    // The argmax skips the background column (class 0), so every ROI takes a foreground class.
    return detectionRuleOf(mParams.detection, 1);
}

mrcnn::RoiRefinement GenerateDetectionPlugin::refinement() const
{
    return mrcnn::RoiRefinement{
        true, static_cast<float>(mParams.imageSize[1]), static_cast<float>(mParams.imageSize[2])};
}

int32_t GenerateDetectionPlugin::getNbOutputs() const noexcept
{
    return 1;
}

Dims GenerateDetectionPlugin::getOutputDimensions(int32_t /*index*/, Dims const* inputs, int32_t nbInputs) noexcept
{
    return guarded(kName, "getOutputDimensions", Dims{-1, {}},
        [&] { return mrcnn::roiDetectionDims(kName, inputs, nbInputs, rule()); });
}

DataType GenerateDetectionPlugin::getOutputDataType(
    int32_t /*index*/, DataType const* /*inputTypes*/, int32_t /*nbInputs*/) const noexcept
{
    return DataType::kFLOAT;
}

size_t GenerateDetectionPlugin::getWorkspaceSize(int32_t maxBatchSize) const noexcept
{
    return guarded(kName, "getWorkspaceSize", size_t{0},
        [&] { return mrcnn::roiDetectionWorkspace(mConfiguration, maxBatchSize, rule()); });
}

void GenerateDetectionPlugin::runHost(PluginTensors const& io) const
{
    mrcnn::runRoiDetectionsOnHost(io, rule(), refinement());
}

void GenerateDetectionPlugin::runDevice(PluginTensors const& io, cudaStream_t stream) const
{
    mrcnn::runRoiDetectionsOnDevice(kName, io, rule(), refinement(), stream);
}

} // namespace kiln::plugins

KILN_COLLECT_PLUGIN(kiln::plugins::V2PluginCreator<kiln::plugins::GenerateDetectionPlugin>)
