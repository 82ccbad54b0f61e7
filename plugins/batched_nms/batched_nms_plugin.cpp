#include "batched_nms_plugin.h"

#include "api/plugin_collection.h"
#include "batched_nms_host.h"
#include "common/creators.h"
#include "common/formats.h"
#include "common/host_values.h"

#ifdef KILN_WITH_CUDA
#include "batched_nms_kernels.h"
#include "common/cuda_check.h"
#endif

#include <algorithm>
#include <string>

namespace kiln::plugins
{

using namespace nvinfer1;

namespace
{

//! The run's shape from full descriptors (batch first); throws PluginError naming `plugin` on tensors that do not
//! fit the fields.
BatchedNmsShape shapeOf(char const* plugin, BatchedNmsParams const& params, Dims const& boxes, Dims const& scores)
{
    std::string const name(plugin);
    bool const scoresFit = scores.nbDims == 3 || (scores.nbDims == 4 && scores.d[3] == 1);
    if (!scoresFit || scores.d[2] != params.numClasses)
    {
        throw PluginError(name + ": scores must be [batch, boxes, numClasses (" + std::to_string(params.numClasses)
            + ")] or [batch, boxes, numClasses, 1]");
    }
    int64_t const boxClasses = params.shareLocation ? 1 : params.numClasses;
    if (boxes.nbDims != 4 || boxes.d[0] != scores.d[0] || boxes.d[1] != scores.d[1] || boxes.d[2] != boxClasses
        || boxes.d[3] != 4)
    {
        throw PluginError(name + ": boxes must be [batch, boxes, " + std::to_string(boxClasses)
            + ", 4] with the batch and boxes of the scores (shareLocation " + (params.shareLocation ? "1" : "0") + ")");
    }
    return BatchedNmsShape{static_cast<int32_t>(scores.d[0]), static_cast<int32_t>(scores.d[1]), params.numClasses};
}

//! Legacy descriptors have no batch axis in getOutputDimensions: these add it back for shapeOf.
Dims withBatch(Dims const& dims, int64_t batch)
{
    Dims full{};
    full.nbDims = dims.nbDims + 1;
    full.d[0] = batch;
    std::copy_n(dims.d, dims.nbDims, full.d + 1);
    return full;
}

void runOnHost(BatchedNmsParams const& params, BatchedNmsShape const& shape, PluginTensors const& io)
{
    BatchedNmsConfig const config = batchedNmsConfigOf(params);
    std::vector<float> const boxes = readFloats(io.inputDesc[0], io.inputs[0]);
    std::vector<float> const scores = readFloats(io.inputDesc[1], io.inputs[1]);
    auto const detections = batchedNmsOnHost(config, shape, boxes, scores);
    auto const slots = static_cast<size_t>(config.keepTopK);
    // Empty slots: box and score 0, class -1 (NVIDIA's gather writes those).
    std::vector<float> outBoxes(detections.size() * slots * 4, 0.F);
    std::vector<float> outScores(detections.size() * slots, 0.F);
    std::vector<float> outClasses(detections.size() * slots, -1.F);
    auto* counts = io.output<int32_t>(0);
    for (size_t image = 0; image < detections.size(); ++image)
    {
        counts[image] = static_cast<int32_t>(detections[image].size());
        for (size_t k = 0; k < detections[image].size(); ++k)
        {
            BatchedDetection const& d = detections[image][k];
            size_t const slot = image * slots + k;
            auto const imageIndex = static_cast<int64_t>(image);
            float const* box = boxes.data() + batchedBoxOffset(config, shape, imageIndex, d.box, d.cls);
            for (size_t v = 0; v < 4; ++v)
            {
                outBoxes[slot * 4 + v] = config.clipBoxes ? clipUnit(box[v]) : box[v];
            }
            outScores[slot] = d.score;
            outClasses[slot] = static_cast<float>(d.cls);
        }
    }
    writeFloats(io.outputDesc[1], io.outputs[1], outBoxes);
    writeFloats(io.outputDesc[2], io.outputs[2], outScores);
    writeFloats(io.outputDesc[3], io.outputs[3], outClasses);
}

void runOnDevice(char const* plugin, BatchedNmsParams const& params, BatchedNmsShape const& shape,
    PluginTensors const& io, cudaStream_t stream)
{
#ifdef KILN_WITH_CUDA
    BatchedNmsDeviceIo device{};
    device.boxes = io.inputs[0];
    device.scores = io.inputs[1];
    device.half = io.inputDesc[0].type == DataType::kHALF;
    device.numDetections = io.output<int32_t>(0);
    device.nmsedBoxes = io.outputs[1];
    device.nmsedScores = io.outputs[2];
    device.nmsedClasses = io.outputs[3];
    checkCuda(plugin, launchBatchedNms(batchedNmsConfigOf(params), shape, device, io.workspace, stream));
#else
    (void) plugin;
    (void) params;
    (void) shape;
    (void) io;
    (void) stream;
#endif
}

size_t workspaceFor(BatchedNmsParams const& params, BatchedNmsShape const& shape)
{
#ifdef KILN_WITH_CUDA
    return batchedNmsWorkspaceSize(batchedNmsConfigOf(params), shape);
#else
    (void) params;
    (void) shape;
    return 0;
#endif
}

} // namespace

void checkBatchedNmsParams(char const* plugin, BatchedNmsParams const& params)
{
    std::string const name(plugin);
    auto positive = [&](char const* field, int32_t value) {
        if (value <= 0)
        {
            throw PluginError(name + ": field '" + field + "' is " + std::to_string(value) + "; expected > 0");
        }
    };
    positive("numClasses", params.numClasses);
    positive("topK", params.topK);
    positive("keepTopK", params.keepTopK);
    if (params.backgroundLabelId < -1 || params.backgroundLabelId >= params.numClasses)
    {
        throw PluginError(name + ": field 'backgroundLabelId' is " + std::to_string(params.backgroundLabelId)
            + "; expected -1 (none) or a class below numClasses (" + std::to_string(params.numClasses) + ")");
    }
}

BatchedNmsConfig batchedNmsConfigOf(BatchedNmsParams const& params)
{
    return BatchedNmsConfig{params.shareLocation, params.backgroundLabelId, params.topK, params.keepTopK,
        params.scoreThreshold, params.iouThreshold, params.isNormalized, params.clipBoxes, params.caffeSemantics};
}

// BatchedNMSDynamic_TRT

DimsExprs BatchedNmsDynamicPlugin::getOutputDimensions(
    int32_t outputIndex, DimsExprs const* inputs, int32_t nbInputs, IExprBuilder& exprBuilder) noexcept
{
    DimsExprs out{};
    if (nbInputs != 2 || inputs[0].nbDims != 4 || (inputs[1].nbDims != 3 && inputs[1].nbDims != 4))
    {
        logError(std::string(kName) + ": expected boxes [batch, boxes, 1 or numClasses, 4] and scores "
            + "[batch, boxes, numClasses(, 1)]");
        out.nbDims = -1;
        return out;
    }
    out.d[0] = inputs[0].d[0];
    out.nbDims = 2;
    out.d[1] = exprBuilder.constant(outputIndex == 0 ? 1 : mParams.keepTopK);
    if (outputIndex == 1)
    {
        out.nbDims = 3;
        out.d[2] = exprBuilder.constant(4);
    }
    return out;
}

bool BatchedNmsDynamicPlugin::supportsFormatCombination(
    int32_t pos, PluginTensorDesc const* inOut, int32_t nbInputs, int32_t /*nbOutputs*/) noexcept
{
    if (pos == nbInputs)
    {
        return isLinearOf(inOut[pos], {DataType::kINT32});
    }
    return linearSameFloat(inOut, pos);
}

DataType BatchedNmsDynamicPlugin::getOutputDataType(
    int32_t index, DataType const* inputTypes, int32_t /*nbInputs*/) const noexcept
{
    return index == 0 ? DataType::kINT32 : inputTypes[0];
}

size_t BatchedNmsDynamicPlugin::getWorkspaceSize(PluginTensorDesc const* inputs, int32_t /*nbInputs*/,
    PluginTensorDesc const* /*outputs*/, int32_t /*nbOutputs*/) const noexcept
{
    return guarded(kName, "getWorkspaceSize", size_t{0},
        [&] { return workspaceFor(mParams, shapeOf(kName, mParams, inputs[0].dims, inputs[1].dims)); });
}

void BatchedNmsDynamicPlugin::runHost(PluginTensors const& io) const
{
    runOnHost(mParams, shapeOf(kName, mParams, io.inputDesc[0].dims, io.inputDesc[1].dims), io);
}

void BatchedNmsDynamicPlugin::runDevice(PluginTensors const& io, cudaStream_t stream) const
{
    runOnDevice(kName, mParams, shapeOf(kName, mParams, io.inputDesc[0].dims, io.inputDesc[1].dims), io, stream);
}

// BatchedNMS_TRT: shapes without the batch axis; FP32 only, as NVIDIA's (its FP16 path is disabled there).

Dims BatchedNmsPlugin::getOutputDimensions(int32_t index, Dims const* inputs, int32_t nbInputDims) noexcept
{
    return guarded(kName, "getOutputDimensions", Dims{-1, {}}, [&] {
        if (nbInputDims != 2)
        {
            throw PluginError(std::string(kName) + ": expected two inputs, boxes and scores");
        }
        shapeOf(kName, mParams, withBatch(inputs[0], 1), withBatch(inputs[1], 1));
        Dims out{};
        out.nbDims = index == 0 ? 0 : (index == 1 ? 2 : 1);
        out.d[0] = mParams.keepTopK;
        out.d[1] = 4;
        return out;
    });
}

bool BatchedNmsPlugin::supportsFormat(DataType type, PluginFormat format) const noexcept
{
    return format == PluginFormat::kLINEAR && (type == DataType::kFLOAT || type == DataType::kINT32);
}

DataType BatchedNmsPlugin::getOutputDataType(
    int32_t index, DataType const* inputTypes, int32_t /*nbInputs*/) const noexcept
{
    return index == 0 ? DataType::kINT32 : inputTypes[0];
}

size_t BatchedNmsPlugin::getWorkspaceSize(int32_t maxBatchSize) const noexcept
{
    return guarded(kName, "getWorkspaceSize", size_t{0}, [&] {
        if (mConfiguration.inputDims.size() != 2)
        {
            return size_t{0};
        }
        return workspaceFor(mParams,
            shapeOf(kName, mParams, withBatch(mConfiguration.inputDims[0], maxBatchSize),
                withBatch(mConfiguration.inputDims[1], maxBatchSize)));
    });
}

void BatchedNmsPlugin::runHost(PluginTensors const& io) const
{
    runOnHost(mParams, shapeOf(kName, mParams, io.inputDesc[0].dims, io.inputDesc[1].dims), io);
}

void BatchedNmsPlugin::runDevice(PluginTensors const& io, cudaStream_t stream) const
{
    runOnDevice(kName, mParams, shapeOf(kName, mParams, io.inputDesc[0].dims, io.inputDesc[1].dims), io, stream);
}

} // namespace kiln::plugins

KILN_COLLECT_PLUGIN(kiln::plugins::V2PluginCreator<kiln::plugins::BatchedNmsDynamicPlugin>)
KILN_COLLECT_PLUGIN(kiln::plugins::V2PluginCreator<kiln::plugins::BatchedNmsPlugin>)
