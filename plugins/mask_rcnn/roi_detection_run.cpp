#include "roi_detection_run.h"

#include "field_checks.h"

#include "common/host_values.h"

#ifdef KILN_WITH_CUDA
#include "common/cuda_check.h"
#include "mask_rcnn_kernels.h"
#endif

namespace kiln::plugins::mrcnn
{

using namespace nvinfer1;

Dims roiDetectionDims(char const* plugin, Dims const* inputs, int32_t nbInputs, DetectionRule const& rule)
{
    if (nbInputs != 3)
    {
        throw PluginError(
            std::string(plugin) + ": expected 3 inputs (deltas, scores, rois); got " + std::to_string(nbInputs));
    }
    std::string const c = std::to_string(rule.classes);
    requireShape(plugin, "delta_bbox", inputs[0], 4, int64_t{rule.classes} * 4, "[rois, " + c + " * 4, 1, 1]");
    requireShape(plugin, "score", inputs[1], 4, rule.classes, "[rois, " + c + ", 1, 1]");
    requireShape(plugin, "roi", inputs[2], 2, 4, "[rois, 4]");
    if (inputs[0].d[0] != inputs[1].d[0] || inputs[1].d[0] != inputs[2].d[0])
    {
        throw PluginError(std::string(plugin) + ": the inputs disagree on the ROI count: " + shapeText(inputs[0]) + ", "
            + shapeText(inputs[1]) + ", " + shapeText(inputs[2]));
    }
    Dims out{};
    out.nbDims = 2;
    out.d[0] = rule.keepTopK;
    out.d[1] = 6;
    return out;
}

size_t roiDetectionWorkspace(LegacyConfiguration const& configuration, int32_t maxBatchSize, DetectionRule const& rule)
{
#ifdef KILN_WITH_CUDA
    if (configuration.inputDims.size() != 3)
    {
        return 0;
    }
    return roiDetectionWorkspaceSize(maxBatchSize, static_cast<int32_t>(configuration.inputDims[2].d[0]), rule);
#else
    (void) configuration;
    (void) maxBatchSize;
    (void) rule;
    return 0;
#endif
}

void runRoiDetectionsOnHost(PluginTensors const& io, DetectionRule const& rule, RoiRefinement const& refinement)
{
    auto const batch = static_cast<int32_t>(io.inputDesc[2].dims.d[0]);
    auto const rois = static_cast<int32_t>(io.inputDesc[2].dims.d[1]);
    int32_t const classes = rule.classes;
    std::vector<float> const deltas = readFloats(io.inputDesc[0], io.inputs[0]);
    std::vector<float> const scores = readFloats(io.inputDesc[1], io.inputs[1]);
    std::vector<float> const boxes = readFloats(io.inputDesc[2], io.inputs[2]);
    std::vector<float> out(static_cast<size_t>(int64_t{batch} * rule.keepTopK * 6));
    for (int32_t b = 0; b < batch; ++b)
    {
        auto const boxOf = [&](int32_t roi, int32_t cls) {
            float const* r = boxes.data() + (int64_t{b} * rois + roi) * 4;
            float const* delta = deltas.data() + ((int64_t{b} * rois + roi) * classes + cls) * 4;
            return refinement.apply(YxBox{r[0], r[1], r[2], r[3]}, delta);
        };
        std::vector<Detection> const kept
            = keepDetections(scores.data() + int64_t{b} * rois * classes, rois, rule, boxOf);
        writeDetectionRows(kept, rule.keepTopK, out.data() + int64_t{b} * rule.keepTopK * 6);
    }
    writeFloats(io.outputDesc[0], io.outputs[0], out);
}

void runRoiDetectionsOnDevice(char const* plugin, PluginTensors const& io, DetectionRule const& rule,
    RoiRefinement const& refinement, cudaStream_t stream)
{
#ifdef KILN_WITH_CUDA
    RoiDetectionRun run;
    run.batch = static_cast<int32_t>(io.inputDesc[2].dims.d[0]);
    run.rois = static_cast<int32_t>(io.inputDesc[2].dims.d[1]);
    run.rule = rule;
    run.refinement = refinement;
    run.deltas = io.input<float>(0);
    run.scores = io.input<float>(1);
    run.roiBoxes = io.input<float>(2);
    run.detections = io.output<float>(0);
    checkCuda(plugin, launchRoiDetections(run, io.workspace, stream));
#else
    (void) plugin;
    (void) io;
    (void) rule;
    (void) refinement;
    (void) stream;
#endif
}

} // namespace kiln::plugins::mrcnn
