// BatchedNMSDynamic_TRT 1 (IPluginV2DynamicExt) and BatchedNMS_TRT 1 (IPluginV2Ext): per-class NMS, then the best
// keepTopK detections of each image (README.md). Both run the same kernels.
#pragma once

#include "batched_nms_math.h"
#include "common/dynamic_plugin.h"
#include "common/legacy_plugin.h"

namespace kiln::plugins
{

struct BatchedNmsParams
{
    bool shareLocation{true};
    int32_t backgroundLabelId{-1};
    int32_t numClasses{0};
    int32_t topK{0};
    int32_t keepTopK{0};
    float scoreThreshold{0.F};
    float iouThreshold{0.F};
    bool isNormalized{true};
    bool clipBoxes{true};
    int32_t scoreBits{16}; //!< NVIDIA's FP16 sorting shortcut; accepted, sorting here always uses every bit
    bool caffeSemantics{true};

    template <typename Visit>
    void visit(Visit&& field)
    {
        field("shareLocation", shareLocation, Need::kOPTIONAL);
        field("backgroundLabelId", backgroundLabelId, Need::kOPTIONAL);
        field("numClasses", numClasses, Need::kREQUIRED);
        field("topK", topK, Need::kREQUIRED);
        field("keepTopK", keepTopK, Need::kREQUIRED);
        field("scoreThreshold", scoreThreshold, Need::kREQUIRED);
        field("iouThreshold", iouThreshold, Need::kREQUIRED);
        field("isNormalized", isNormalized, Need::kOPTIONAL);
        field("clipBoxes", clipBoxes, Need::kOPTIONAL);
        field("scoreBits", scoreBits, Need::kOPTIONAL);
        field("caffeSemantics", caffeSemantics, Need::kOPTIONAL);
    }
};

//! Throws PluginError naming `plugin` on out-of-range fields.
void checkBatchedNmsParams(char const* plugin, BatchedNmsParams const& params);

BatchedNmsConfig batchedNmsConfigOf(BatchedNmsParams const& params);

class BatchedNmsDynamicPlugin : public DynamicPlugin<BatchedNmsDynamicPlugin, BatchedNmsParams>
{
public:
    static constexpr char const* kName = "BatchedNMSDynamic_TRT";
    static constexpr char const* kVersion = "1";
    using DynamicPlugin::DynamicPlugin;

    static void check(BatchedNmsParams const& params)
    {
        checkBatchedNmsParams(kName, params);
    }

    int32_t getNbOutputs() const noexcept override
    {
        return 4;
    }
    nvinfer1::DimsExprs getOutputDimensions(int32_t outputIndex, nvinfer1::DimsExprs const* inputs, int32_t nbInputs,
        nvinfer1::IExprBuilder& exprBuilder) noexcept override;
    bool supportsFormatCombination(
        int32_t pos, nvinfer1::PluginTensorDesc const* inOut, int32_t nbInputs, int32_t nbOutputs) noexcept override;
    nvinfer1::DataType getOutputDataType(
        int32_t index, nvinfer1::DataType const* inputTypes, int32_t nbInputs) const noexcept override;
    size_t getWorkspaceSize(nvinfer1::PluginTensorDesc const* inputs, int32_t nbInputs,
        nvinfer1::PluginTensorDesc const* outputs, int32_t nbOutputs) const noexcept override;

    void runHost(PluginTensors const& io) const;
    void runDevice(PluginTensors const& io, cudaStream_t stream) const;
};

class BatchedNmsPlugin : public LegacyPlugin<BatchedNmsPlugin, BatchedNmsParams>
{
public:
    static constexpr char const* kName = "BatchedNMS_TRT";
    static constexpr char const* kVersion = "1";
    using LegacyPlugin::LegacyPlugin;

    static void check(BatchedNmsParams const& params)
    {
        checkBatchedNmsParams(kName, params);
    }

    int32_t getNbOutputs() const noexcept override
    {
        return 4;
    }
    nvinfer1::Dims getOutputDimensions(
        int32_t index, nvinfer1::Dims const* inputs, int32_t nbInputDims) noexcept override;
    bool supportsFormat(nvinfer1::DataType type, nvinfer1::PluginFormat format) const noexcept override;
    nvinfer1::DataType getOutputDataType(
        int32_t index, nvinfer1::DataType const* inputTypes, int32_t nbInputs) const noexcept override;
    size_t getWorkspaceSize(int32_t maxBatchSize) const noexcept override;

    void runHost(PluginTensors const& io) const;
    void runDevice(PluginTensors const& io, cudaStream_t stream) const;
};

} // namespace kiln::plugins
