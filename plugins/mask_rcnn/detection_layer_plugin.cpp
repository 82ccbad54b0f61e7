#include "detection_layer_plugin.h"

#include "field_checks.h"

#include "api/plugin_collection.h"
#include "common/creators.h"
#include "common/host_values.h"

#ifdef KILN_WITH_CUDA
#include "common/cuda_check.h"
#include "mask_rcnn_kernels.h"
#endif

namespace kiln::plugins
{

using namespace nvinfer1;

void DetectionLayerPlugin::check(DetectionLayerParams const& params)
{
    mrcnn::requireAtLeast(kName, "num_classes", params.numClasses, 1); // class 0, the background, included
    mrcnn::requireAtLeast(kName, "keep_topk", params.keepTopK, 1);
    mrcnn::requireThreshold(kName, "score_threshold", params.scoreThreshold, false);
    mrcnn::requireThreshold(kName, "iou_threshold", params.iouThreshold, true);
}

mrcnn::DetectionRule DetectionLayerPlugin::rule() const
{
    // The argmax includes the background column; ROIs whose best class is the background are dropped.
    return mrcnn::DetectionRule{
        mParams.numClasses, 0, 0, mParams.scoreThreshold, mParams.iouThreshold, mParams.keepTopK};
}

int32_t DetectionLayerPlugin::getNbOutputs() const noexcept
{
    return 1;
}

Dims DetectionLayerPlugin::getOutputDimensions(int32_t /*index*/, Dims const* inputs, int32_t nbInputs) noexcept
{
    return guarded(kName, "getOutputDimensions", Dims{-1, {}}, [&] {
        if (nbInputs != 3)
        {
            throw PluginError(std::string(kName) + ": expected 3 inputs (deltas, scores, rois); got "
                + std::to_string(nbInputs));
        }
        int32_t const classes = mParams.numClasses;
        std::string const c = std::to_string(classes);
        mrcnn::requireShape(kName, "delta_bbox", inputs[0], 4, int64_t{classes} * 4, "[rois, " + c + " * 4, 1, 1]");
        mrcnn::requireShape(kName, "score", inputs[1], 4, classes, "[rois, " + c + ", 1, 1]");
        mrcnn::requireShape(kName, "roi", inputs[2], 2, 4, "[rois, 4]");
        if (inputs[0].d[0] != inputs[1].d[0] || inputs[1].d[0] != inputs[2].d[0])
        {
            throw PluginError(std::string(kName) + ": the inputs disagree on the ROI count: "
                + shapeText(inputs[0]) + ", " + shapeText(inputs[1]) + ", " + shapeText(inputs[2]));
        }
        Dims out{};
        out.nbDims = 2;
        out.d[0] = mParams.keepTopK;
        out.d[1] = 6;
        return out;
    });
}

DataType DetectionLayerPlugin::getOutputDataType(
    int32_t /*index*/, DataType const* /*inputTypes*/, int32_t /*nbInputs*/) const noexcept
{
    return DataType::kFLOAT;
}

size_t DetectionLayerPlugin::getWorkspaceSize(int32_t maxBatchSize) const noexcept
{
#ifdef KILN_WITH_CUDA
    return guarded(kName, "getWorkspaceSize", size_t{0}, [&] {
        if (mConfiguration.inputDims.size() != 3)
        {
            return size_t{0};
        }
        auto const rois = static_cast<int32_t>(mConfiguration.inputDims[2].d[0]);
        return mrcnn::detectionLayerWorkspaceSize(maxBatchSize, rois, rule());
    });
#else
    (void) maxBatchSize;
    return 0;
#endif
}

void DetectionLayerPlugin::runHost(PluginTensors const& io) const
{
    auto const batch = static_cast<int32_t>(io.inputDesc[2].dims.d[0]);
    auto const rois = static_cast<int32_t>(io.inputDesc[2].dims.d[1]);
    int32_t const classes = mParams.numClasses;
    std::vector<float> const deltas = readFloats(io.inputDesc[0], io.inputs[0]);
    std::vector<float> const scores = readFloats(io.inputDesc[1], io.inputs[1]);
    std::vector<float> const boxes = readFloats(io.inputDesc[2], io.inputs[2]);
    mrcnn::DetectionRule const selection = rule();
    std::vector<float> out(static_cast<size_t>(int64_t{batch} * mParams.keepTopK * 6));
    for (int32_t b = 0; b < batch; ++b)
    {
        auto const boxOf = [&](int32_t roi, int32_t cls) {
            float const* r = boxes.data() + (int64_t{b} * rois + roi) * 4;
            float const* delta = deltas.data() + ((int64_t{b} * rois + roi) * classes + cls) * 4;
            return mrcnn::applyNormalizedDelta(mrcnn::YxBox{r[0], r[1], r[2], r[3]}, delta);
        };
        std::vector<mrcnn::Detection> const kept
            = mrcnn::keepDetections(scores.data() + int64_t{b} * rois * classes, rois, selection, boxOf);
        mrcnn::writeDetectionRows(kept, mParams.keepTopK, out.data() + int64_t{b} * mParams.keepTopK * 6);
    }
    writeFloats(io.outputDesc[0], io.outputs[0], out);
}

void DetectionLayerPlugin::runDevice(PluginTensors const& io, cudaStream_t stream) const
{
#ifdef KILN_WITH_CUDA
    mrcnn::DetectionLayerRun run;
    run.batch = static_cast<int32_t>(io.inputDesc[2].dims.d[0]);
    run.rois = static_cast<int32_t>(io.inputDesc[2].dims.d[1]);
    run.rule = rule();
    run.deltas = io.input<float>(0);
    run.scores = io.input<float>(1);
    run.roiBoxes = io.input<float>(2);
    run.detections = io.output<float>(0);
    checkCuda(kName, mrcnn::launchDetectionLayer(run, io.workspace, stream));
#else
    (void) io;
    (void) stream;
#endif
}

} // namespace kiln::plugins

KILN_COLLECT_PLUGIN(kiln::plugins::V2PluginCreator<kiln::plugins::DetectionLayerPlugin>)
