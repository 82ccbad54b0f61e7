#include "detection_output_plugin.h"

#include "api/plugin_collection.h"
#include "common/creators.h"
#include "common/formats.h"
#include "common/shape_checks.h"
#include "detection_output_host.h"
#include "detection_output_shape.h"

#ifdef KILN_WITH_CUDA
#include "common/cuda_check.h"
#include "detection_output_kernels.h"
#endif

#include <algorithm>
#include <cmath>
#include <string>

namespace kiln::plugins
{

using namespace nvinfer1;

namespace
{

//! Legacy shapes have no batch axis: these extents put a batch of `batch` in front.
std::vector<std::vector<int64_t>> legacyExtents(Dims const* inputs, int32_t nbInputs, int64_t batch)
{
    std::vector<std::vector<int64_t>> extents(static_cast<size_t>(nbInputs));
    for (int32_t i = 0; i < nbInputs; ++i)
    {
        extents[i].push_back(batch);
        extents[i].insert(extents[i].end(), inputs[i].d, inputs[i].d + std::max(inputs[i].nbDims, 0));
    }
    return extents;
}

void runOnDevice(char const* plugin, DetectionOutputParams const& params, SsdShape const& shape,
    PluginTensors const& io, cudaStream_t stream)
{
#ifdef KILN_WITH_CUDA
    DetectionOutputDeviceIo device{};
    device.loc = io.inputs[params.inputOrder[0]];
    device.conf = io.inputs[params.inputOrder[1]];
    device.prior = io.inputs[params.inputOrder[2]];
    device.half = io.inputDesc[0].type == DataType::kHALF;
    device.detections = io.outputs[0];
    device.keepCount = io.output<int32_t>(1);
    checkCuda(plugin, launchDetectionOutput(params, ssdNmsConfigOf(params), shape, device, io.workspace, stream));
#else
    (void) plugin;
    (void) params;
    (void) shape;
    (void) io;
    (void) stream;
#endif
}

//! A run's shape from its three input descriptors (batch axis first).
SsdShape runShape(
    char const* plugin, DetectionOutputParams const& params, PluginTensorDesc const* inputs, PriorSharing sharing)
{
    return ssdShapeOf(plugin, params, runExtents(inputs, 3), sharing);
}

PriorSharing sharingOf(DetectionOutputParams const& params)
{
    return params.isBatchAgnostic ? PriorSharing::kFIRST_IMAGE : PriorSharing::kEVERY_IMAGE;
}

size_t workspaceFor(DetectionOutputParams const& params, SsdShape const& shape)
{
#ifdef KILN_WITH_CUDA
    return detectionOutputWorkspaceSize(ssdNmsConfigOf(params), shape);
#else
    (void) params;
    (void) shape;
    return 0;
#endif
}

} // namespace

void checkDetectionOutputParams(char const* plugin, DetectionOutputParams const& params)
{
    std::string const name(plugin);
    auto fail = [&](char const* field, std::string const& value, char const* expected) {
        throw PluginError(name + ": field '" + field + "' is " + value + "; expected " + expected);
    };
    if (params.numClasses <= 0)
    {
        fail("numClasses", std::to_string(params.numClasses), "> 0");
    }
    if (params.topK <= 0)
    {
        fail("topK", std::to_string(params.topK), "> 0");
    }
    if (params.keepTopK <= 0)
    {
        fail("keepTopK", std::to_string(params.keepTopK), "> 0");
    }
    if (params.backgroundLabelId < -1 || params.backgroundLabelId >= params.numClasses)
    {
        fail("backgroundLabelId", std::to_string(params.backgroundLabelId), "-1 (none) or a class below numClasses");
    }
    if (params.codeType < 0 || params.codeType > static_cast<int32_t>(SsdCode::kTF_CENTER))
    {
        fail("codeType", std::to_string(params.codeType),
            "0 (CORNER), 1 (CENTER_SIZE), 2 (CORNER_SIZE) or 3 (TF_CENTER)");
    }
    if (!(params.nmsThreshold >= 0.F && params.nmsThreshold <= 1.F))
    {
        fail("nmsThreshold", std::to_string(params.nmsThreshold), "an IoU in [0, 1]");
    }
    if (std::isnan(params.confidenceThreshold))
    {
        fail("confidenceThreshold", "NaN", "a number");
    }
    std::vector<int32_t> sorted = params.inputOrder;
    std::sort(sorted.begin(), sorted.end());
    if (sorted != std::vector<int32_t>{0, 1, 2})
    {
        std::string value = "[";
        for (size_t i = 0; i < params.inputOrder.size(); ++i)
        {
            value += (i == 0 ? "" : ", ") + std::to_string(params.inputOrder[i]);
        }
        fail("inputOrder", value + "]", "a permutation of [0, 1, 2]");
    }
}

// NMS_TRT: shapes without the batch axis; FP32 or FP16 (the detections take the inputs' type).

Dims NmsPlugin::getOutputDimensions(int32_t index, Dims const* inputs, int32_t nbInputDims) noexcept
{
    return guarded(kName, "getOutputDimensions", Dims{-1, {}}, [&] {
        ssdShapeOf(kName, mParams, legacyExtents(inputs, nbInputDims, 1), sharingOf(mParams));
        return index == 0 ? Dims{3, {1, mParams.keepTopK, 7}} : Dims{3, {1, 1, 1}};
    });
}

bool NmsPlugin::supportsFormat(DataType type, PluginFormat format) const noexcept
{
    return format == PluginFormat::kLINEAR && (type == DataType::kFLOAT || type == DataType::kHALF);
}

DataType NmsPlugin::getOutputDataType(int32_t index, DataType const* inputTypes, int32_t /*nbInputs*/) const noexcept
{
    // keepCount holds int32 values; NVIDIA declares it FP32 (the same size), and so does this plugin.
    return index == 0 ? inputTypes[0] : DataType::kFLOAT;
}

size_t NmsPlugin::getWorkspaceSize(int32_t maxBatchSize) const noexcept
{
    return guarded(kName, "getWorkspaceSize", size_t{0}, [&] {
        std::vector<Dims> const& dims = mConfiguration.inputDims;
        if (dims.size() != 3)
        {
            return size_t{0};
        }
        return workspaceFor(
            mParams, ssdShapeOf(kName, mParams, legacyExtents(dims.data(), 3, maxBatchSize), sharingOf(mParams)));
    });
}

void NmsPlugin::runHost(PluginTensors const& io) const
{
    runDetectionOutputOnHost(mParams, runShape(kName, mParams, io.inputDesc, sharingOf(mParams)), io);
}

void NmsPlugin::runDevice(PluginTensors const& io, cudaStream_t stream) const
{
    runOnDevice(kName, mParams, runShape(kName, mParams, io.inputDesc, sharingOf(mParams)), io, stream);
}

// NMSDynamic_TRT: prior data per image (or one set of batch 1 for all); isBatchAgnostic is ignored, as NVIDIA's
// dynamic plugin ignores it.

DimsExprs NmsDynamicPlugin::getOutputDimensions(
    int32_t outputIndex, DimsExprs const* inputs, int32_t nbInputs, IExprBuilder& exprBuilder) noexcept
{
    return guarded(kName, "getOutputDimensions", DimsExprs{-1, {}}, [&] {
        ssdShapeOf(kName, mParams, knownExtents(inputs, nbInputs), PriorSharing::kEVERY_OR_SHARED);
        DimsExprs out{};
        out.nbDims = 4;
        out.d[0] = inputs[mParams.inputOrder[0]].d[0];
        out.d[1] = exprBuilder.constant(1);
        out.d[2] = exprBuilder.constant(outputIndex == 0 ? mParams.keepTopK : 1);
        out.d[3] = exprBuilder.constant(outputIndex == 0 ? 7 : 1);
        return out;
    });
}

bool NmsDynamicPlugin::supportsFormatCombination(
    int32_t pos, PluginTensorDesc const* inOut, int32_t nbInputs, int32_t /*nbOutputs*/) noexcept
{
    if (pos == nbInputs + 1)
    {
        return isLinearOf(inOut[pos], {DataType::kFLOAT}); // keepCount: int32 values in an FP32 tensor
    }
    return linearSameFloat(inOut, pos);
}

DataType NmsDynamicPlugin::getOutputDataType(
    int32_t index, DataType const* inputTypes, int32_t /*nbInputs*/) const noexcept
{
    return index == 0 ? inputTypes[0] : DataType::kFLOAT;
}

size_t NmsDynamicPlugin::getWorkspaceSize(PluginTensorDesc const* inputs, int32_t /*nbInputs*/,
    PluginTensorDesc const* /*outputs*/, int32_t /*nbOutputs*/) const noexcept
{
    return guarded(kName, "getWorkspaceSize", size_t{0},
        [&] { return workspaceFor(mParams, runShape(kName, mParams, inputs, PriorSharing::kEVERY_OR_SHARED)); });
}

void NmsDynamicPlugin::runHost(PluginTensors const& io) const
{
    runDetectionOutputOnHost(mParams, runShape(kName, mParams, io.inputDesc, PriorSharing::kEVERY_OR_SHARED), io);
}

void NmsDynamicPlugin::runDevice(PluginTensors const& io, cudaStream_t stream) const
{
    runOnDevice(kName, mParams, runShape(kName, mParams, io.inputDesc, PriorSharing::kEVERY_OR_SHARED), io, stream);
}

} // namespace kiln::plugins

KILN_COLLECT_PLUGIN(kiln::plugins::V2PluginCreator<kiln::plugins::NmsPlugin>)
KILN_COLLECT_PLUGIN(kiln::plugins::V2PluginCreator<kiln::plugins::NmsDynamicPlugin>)
