#include "detection_layer_plugin.h"

#include "field_checks.h"
#include "roi_detection_run.h"

#include "api/plugin_collection.h"
#include "common/creators.h"

namespace kiln::plugins
{

using namespace nvinfer1;

void checkDetectionParams(char const* plugin, DetectionLayerParams const& params)
{
    mrcnn::requireAtLeast(plugin, "num_classes", params.numClasses, 1); // class 0, the background, included
    mrcnn::requireAtLeast(plugin, "keep_topk", params.keepTopK, 1);
    mrcnn::requireThreshold(plugin, "score_threshold", params.scoreThreshold, false);
    mrcnn::requireThreshold(plugin, "iou_threshold", params.iouThreshold, true);
}

mrcnn::DetectionRule detectionRuleOf(DetectionLayerParams const& params, int32_t firstClass)
{
    return mrcnn::DetectionRule{
        params.numClasses, firstClass, 0, params.scoreThreshold, params.iouThreshold, params.keepTopK};
}

mrcnn::DetectionRule DetectionLayerPlugin::rule() const
{
    // The argmax includes the background column; ROIs whose best class is the background are dropped.
    return detectionRuleOf(mParams, 0);
}

int32_t DetectionLayerPlugin::getNbOutputs() const noexcept
{
    return 1;
}

Dims DetectionLayerPlugin::getOutputDimensions(int32_t /*index*/, Dims const* inputs, int32_t nbInputs) noexcept
{
    return guarded(kName, "getOutputDimensions", Dims{-1, {}},
        [&] { return mrcnn::roiDetectionDims(kName, inputs, nbInputs, rule()); });
}

DataType DetectionLayerPlugin::getOutputDataType(
    int32_t /*index*/, DataType const* /*inputTypes*/, int32_t /*nbInputs*/) const noexcept
{
    return DataType::kFLOAT;
}

size_t DetectionLayerPlugin::getWorkspaceSize(int32_t maxBatchSize) const noexcept
{
    return guarded(kName, "getWorkspaceSize", size_t{0},
        [&] { return mrcnn::roiDetectionWorkspace(mConfiguration, maxBatchSize, rule()); });
}

void DetectionLayerPlugin::runHost(PluginTensors const& io) const
{
    mrcnn::runRoiDetectionsOnHost(io, rule(), mrcnn::RoiRefinement{});
}

void DetectionLayerPlugin::runDevice(PluginTensors const& io, cudaStream_t stream) const
{
    mrcnn::runRoiDetectionsOnDevice(kName, io, rule(), mrcnn::RoiRefinement{}, stream);
}

} // namespace kiln::plugins

KILN_COLLECT_PLUGIN(kiln::plugins::V2PluginCreator<kiln::plugins::DetectionLayerPlugin>)
