#include "efficient_nms_plugin.h"

#include "api/plugin_collection.h"
#include "common/creators.h"
#include "common/formats.h"
#include "common/host_values.h"
#include "efficient_nms_host.h"

#ifdef KILN_WITH_CUDA
#include "common/cuda_check.h"
#include "efficient_nms_kernels.h"
#endif

#include <algorithm>
#include <string>

namespace kiln::plugins
{

using namespace nvinfer1;

namespace
{

std::string text(float value)
{
    return std::to_string(value);
}

//! The run's shape from the input descriptors; throws PluginError naming `plugin` on tensors that do not fit.
EfficientNmsShape shapeOf(char const* plugin, PluginTensorDesc const* in, int32_t nbInputs)
{
    Dims const& boxes = in[0].dims;
    Dims const& scores = in[1].dims;
    std::string const name(plugin);
    bool const scoresFit = scores.nbDims == 3 || (scores.nbDims == 4 && scores.d[3] == 1);
    if (!scoresFit)
    {
        throw PluginError(name + ": scores must be [batch, boxes, classes] or [batch, boxes, classes, 1]");
    }
    EfficientNmsShape shape;
    shape.batch = static_cast<int32_t>(scores.d[0]);
    shape.anchors = static_cast<int32_t>(scores.d[1]);
    shape.classes = static_cast<int32_t>(scores.d[2]);
    bool const boxesFit = (boxes.nbDims == 3 && boxes.d[2] == 4)
        || (boxes.nbDims == 4 && boxes.d[3] == 4 && (boxes.d[2] == 1 || boxes.d[2] == shape.classes));
    if (!boxesFit || boxes.d[0] != shape.batch || boxes.d[1] != shape.anchors)
    {
        throw PluginError(name + ": boxes must be [batch, boxes, 4] or [batch, boxes, 1 or classes, 4] with the "
            + "batch and boxes of the scores");
    }
    shape.boxPerClass = boxes.nbDims == 4 && boxes.d[2] != 1;
    if (nbInputs == 3)
    {
        Dims const& anchors = in[2].dims;
        if (anchors.nbDims != 3 || (anchors.d[0] != 1 && anchors.d[0] != shape.batch) || anchors.d[1] != shape.anchors
            || anchors.d[2] != 4)
        {
            throw PluginError(name + ": anchors must be [1 or batch, boxes, 4]");
        }
        shape.hasAnchors = true;
        shape.anchorPerImage = anchors.d[0] != 1;
    }
    return shape;
}

void writeStandardOutputs(
    PluginTensors const& io, EfficientNmsConfig const& config, std::vector<std::vector<NmsDetection>> const& detections)
{
    auto const slots = static_cast<size_t>(config.maxOutputBoxes);
    std::vector<float> boxes(detections.size() * slots * 4, 0.F);
    std::vector<float> scores(detections.size() * slots, 0.F);
    auto* counts = io.output<int32_t>(0);
    auto* classes = io.output<int32_t>(3);
    std::fill_n(classes, detections.size() * slots, 0);
    for (size_t image = 0; image < detections.size(); ++image)
    {
        counts[image] = static_cast<int32_t>(detections[image].size());
        for (size_t k = 0; k < detections[image].size(); ++k)
        {
            NmsDetection const& d = detections[image][k];
            size_t const slot = image * slots + k;
            std::copy_n(d.box.v, 4, boxes.begin() + static_cast<std::ptrdiff_t>(slot * 4));
            scores[slot] = config.scoreActivation ? sigmoidOf(d.rawScore) : d.rawScore;
            classes[slot] = d.cls;
        }
    }
    writeFloats(io.outputDesc[1], io.outputs[1], boxes);
    writeFloats(io.outputDesc[2], io.outputs[2], scores);
}

//! ONNX's selected_indices: (image, class, box) rows, image by image; the rows after the last selected one repeat
//! it, and are all -1 when nothing was selected (NVIDIA's padding).
void writeSelectedIndices(
    PluginTensors const& io, EfficientNmsConfig const& config, std::vector<std::vector<NmsDetection>> const& detections)
{
    auto* rows = io.output<int32_t>(0);
    size_t const total = detections.size() * static_cast<size_t>(config.maxOutputBoxes);
    size_t written = 0;
    for (size_t image = 0; image < detections.size(); ++image)
    {
        for (NmsDetection const& d : detections[image])
        {
            rows[written * 3 + 0] = static_cast<int32_t>(image);
            rows[written * 3 + 1] = d.cls;
            rows[written * 3 + 2] = d.anchor;
            ++written;
        }
    }
    for (size_t row = written; row < total; ++row)
    {
        for (size_t i = 0; i < 3; ++i)
        {
            rows[row * 3 + i] = written == 0 ? -1 : rows[(written - 1) * 3 + i];
        }
    }
}

} // namespace

void EfficientNmsPlugin::check(EfficientNmsParams const& params)
{
    std::string const name(kName);
    if (!(params.scoreThreshold >= 0.F))
    {
        throw PluginError(name + ": field 'score_threshold' is " + text(params.scoreThreshold) + "; expected >= 0");
    }
    if (!(params.iouThreshold > 0.F))
    {
        throw PluginError(name + ": field 'iou_threshold' is " + text(params.iouThreshold) + "; expected > 0");
    }
    if (params.maxOutputBoxes <= 0)
    {
        throw PluginError(
            name + ": field 'max_output_boxes' is " + std::to_string(params.maxOutputBoxes) + "; expected > 0");
    }
    if (params.boxCoding != 0 && params.boxCoding != 1)
    {
        throw PluginError(name + ": field 'box_coding' is " + std::to_string(params.boxCoding)
            + "; expected 0 (corners) or 1 (centre and size)");
    }
}

EfficientNmsConfig EfficientNmsPlugin::configOf(EfficientNmsParams const& params)
{
    return EfficientNmsConfig{params.scoreThreshold, params.iouThreshold, params.maxOutputBoxes, params.backgroundClass,
        params.scoreActivation, params.classAgnostic, params.boxCoding};
}

void EfficientNmsOnnxPlugin::check(EfficientNmsOnnxParams const& params)
{
    std::string const name(kName);
    if (params.maxOutputBoxesPerClass <= 0)
    {
        throw PluginError(name + ": field 'max_output_boxes_per_class' is "
            + std::to_string(params.maxOutputBoxesPerClass) + "; expected > 0");
    }
    if (params.centerPointBox != 0 && params.centerPointBox != 1)
    {
        throw PluginError(name + ": field 'center_point_box' is " + std::to_string(params.centerPointBox)
            + "; expected 0 (corners) or 1 (centre and size)");
    }
    if (!(params.iouThreshold > 0.F))
    {
        throw PluginError(name + ": field 'iou_threshold' is " + text(params.iouThreshold) + "; expected > 0");
    }
}

EfficientNmsConfig EfficientNmsOnnxPlugin::configOf(EfficientNmsOnnxParams const& params)
{
    // The per-class limit equals the per-image limit here, so it never binds before the image's limit does: a
    // class reaches max_output_boxes_per_class only when the image has that many boxes in all.
    return EfficientNmsConfig{params.scoreThreshold, params.iouThreshold, params.maxOutputBoxesPerClass, -1, false,
        false, params.centerPointBox};
}

template <typename Derived, typename Params>
DimsExprs EfficientNmsPluginBase<Derived, Params>::getOutputDimensions(
    int32_t outputIndex, DimsExprs const* inputs, int32_t nbInputs, IExprBuilder& exprBuilder) noexcept
{
    DimsExprs out{};
    bool const countFits = Derived::kOnnx ? nbInputs == 2 : (nbInputs == 2 || nbInputs == 3);
    bool const ranksFit = countFits && (inputs[0].nbDims == 3 || inputs[0].nbDims == 4)
        && (inputs[1].nbDims == 3 || inputs[1].nbDims == 4);
    if (!ranksFit)
    {
        logError(std::string(Derived::kName) + ": expected boxes [batch, boxes, (1 or classes,) 4] and scores "
            + "[batch, boxes, classes]" + (Derived::kOnnx ? "" : ", and optionally anchors [1 or batch, boxes, 4]"));
        out.nbDims = -1;
        return out;
    }
    IDimensionExpr const* batch = inputs[0].d[0];
    IDimensionExpr const* slots = exprBuilder.constant(config().maxOutputBoxes);
    if (Derived::kOnnx)
    {
        out.nbDims = 2;
        out.d[0] = exprBuilder.operation(DimensionOperation::kPROD, *batch, *slots);
        out.d[1] = exprBuilder.constant(3);
        return out;
    }
    out.d[0] = batch;
    switch (outputIndex)
    {
    case 0:
        out.nbDims = 2;
        out.d[1] = exprBuilder.constant(1);
        break;
    case 1:
        out.nbDims = 3;
        out.d[1] = slots;
        out.d[2] = exprBuilder.constant(4);
        break;
    default:
        out.nbDims = 2;
        out.d[1] = slots;
        break;
    }
    return out;
}

template <typename Derived, typename Params>
bool EfficientNmsPluginBase<Derived, Params>::supportsFormatCombination(
    int32_t pos, PluginTensorDesc const* inOut, int32_t nbInputs, int32_t /*nbOutputs*/) noexcept
{
    int32_t const output = pos - nbInputs;
    bool const integerOutput = Derived::kOnnx ? output == 0 : (output == 0 || output == 3);
    if (integerOutput)
    {
        return isLinearOf(inOut[pos], {DataType::kINT32});
    }
    return linearSameFloat(inOut, pos);
}

template <typename Derived, typename Params>
DataType EfficientNmsPluginBase<Derived, Params>::getOutputDataType(
    int32_t index, DataType const* inputTypes, int32_t /*nbInputs*/) const noexcept
{
    bool const integerOutput = Derived::kOnnx || index == 0 || index == 3;
    return integerOutput ? DataType::kINT32 : inputTypes[0];
}

template <typename Derived, typename Params>
void EfficientNmsPluginBase<Derived, Params>::configurePlugin(DynamicPluginTensorDesc const* /*in*/, int32_t nbInputs,
    DynamicPluginTensorDesc const* /*out*/, int32_t /*nbOutputs*/) noexcept
{
    mHasAnchors = nbInputs == 3;
}

template <typename Derived, typename Params>
Derived* EfficientNmsPluginBase<Derived, Params>::deserialize(PayloadReader& reader)
{
    Params params;
    params.visit(reader);
    bool hasAnchors = false;
    reader.get(hasAnchors);
    reader.finish();
    Derived::check(params);
    auto* plugin = new Derived(std::move(params));
    plugin->mHasAnchors = hasAnchors;
    return plugin;
}

template <typename Derived, typename Params>
void EfficientNmsPluginBase<Derived, Params>::save(PayloadWriter& writer) const
{
    const_cast<Params&>(this->mParams).visit(writer); // the writer only reads
    writer.put(mHasAnchors);
}

template <typename Derived, typename Params>
size_t EfficientNmsPluginBase<Derived, Params>::getWorkspaceSize(PluginTensorDesc const* inputs, int32_t nbInputs,
    PluginTensorDesc const* /*outputs*/, int32_t /*nbOutputs*/) const noexcept
{
#ifdef KILN_WITH_CUDA
    return guarded(Derived::kName, "getWorkspaceSize", size_t{0},
        [&] { return efficientNmsWorkspaceSize(shapeOf(Derived::kName, inputs, nbInputs), config().maxOutputBoxes); });
#else
    (void) inputs;
    (void) nbInputs;
    return 0;
#endif
}

template <typename Derived, typename Params>
void EfficientNmsPluginBase<Derived, Params>::runHost(PluginTensors const& io) const
{
    EfficientNmsShape const shape = shapeOf(Derived::kName, io.inputDesc, inputCount());
    std::vector<float> const boxes = readFloats(io.inputDesc[0], io.inputs[0]);
    std::vector<float> const scores = readFloats(io.inputDesc[1], io.inputs[1]);
    std::vector<float> anchors;
    if (shape.hasAnchors)
    {
        anchors = readFloats(io.inputDesc[2], io.inputs[2]);
    }
    EfficientNmsConfig const cfg = config();
    auto const detections = efficientNmsOnHost(cfg, shape, boxes, scores, shape.hasAnchors ? &anchors : nullptr);
    if (Derived::kOnnx)
    {
        writeSelectedIndices(io, cfg, detections);
    }
    else
    {
        writeStandardOutputs(io, cfg, detections);
    }
}

template <typename Derived, typename Params>
void EfficientNmsPluginBase<Derived, Params>::runDevice(PluginTensors const& io, cudaStream_t stream) const
{
#ifdef KILN_WITH_CUDA
    EfficientNmsShape const shape = shapeOf(Derived::kName, io.inputDesc, inputCount());
    EfficientNmsDeviceIo device{};
    device.boxes = io.inputs[0];
    device.scores = io.inputs[1];
    device.anchors = shape.hasAnchors ? io.inputs[2] : nullptr;
    device.half = io.inputDesc[0].type == DataType::kHALF;
    if (Derived::kOnnx)
    {
        device.selectedIndices = io.output<int32_t>(0);
    }
    else
    {
        device.numDetections = io.output<int32_t>(0);
        device.detectionBoxes = io.outputs[1];
        device.detectionScores = io.outputs[2];
        device.detectionClasses = io.output<int32_t>(3);
    }
    checkCuda(Derived::kName, launchEfficientNms(config(), shape, device, io.workspace, stream));
#else
    (void) io;
    (void) stream;
#endif
}

template class EfficientNmsPluginBase<EfficientNmsPlugin, EfficientNmsParams>;
template class EfficientNmsPluginBase<EfficientNmsOnnxPlugin, EfficientNmsOnnxParams>;

} // namespace kiln::plugins

KILN_COLLECT_PLUGIN(kiln::plugins::V2PluginCreator<kiln::plugins::EfficientNmsPlugin>)
KILN_COLLECT_PLUGIN(kiln::plugins::V2PluginCreator<kiln::plugins::EfficientNmsOnnxPlugin>)
