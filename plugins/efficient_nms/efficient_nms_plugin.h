// EfficientNMS_TRT 1 and EfficientNMS_ONNX_TRT 1: score filter, sort, greedy NMS per image (README.md). The two
// share everything but their fields and their outputs: EfficientNmsPluginBase holds the shared part.
#pragma once

#include "common/dynamic_plugin.h"
#include "efficient_nms_math.h"

namespace kiln::plugins
{

struct EfficientNmsParams
{
    float scoreThreshold{0.5F};
    float iouThreshold{0.5F};
    int32_t maxOutputBoxes{100};
    int32_t backgroundClass{-1};
    bool scoreActivation{false};
    bool classAgnostic{false};
    int32_t boxCoding{0};

    template <typename Visit>
    void visit(Visit&& field)
    {
        // Required as in NVIDIA's current creator, except class_agnostic (added later, optional there too).
        field("score_threshold", scoreThreshold, Need::kREQUIRED);
        field("iou_threshold", iouThreshold, Need::kREQUIRED);
        field("max_output_boxes", maxOutputBoxes, Need::kREQUIRED);
        field("background_class", backgroundClass, Need::kREQUIRED);
        field("score_activation", scoreActivation, Need::kREQUIRED);
        field("class_agnostic", classAgnostic, Need::kOPTIONAL);
        field("box_coding", boxCoding, Need::kREQUIRED);
    }
};

//! The fields of the ONNX NonMaxSuppression form, as the ONNX parser fills them from the node's inputs.
struct EfficientNmsOnnxParams
{
    float scoreThreshold{0.5F};
    float iouThreshold{0.5F};
    int32_t maxOutputBoxesPerClass{-1};
    int32_t centerPointBox{0};

    template <typename Visit>
    void visit(Visit&& field)
    {
        field("score_threshold", scoreThreshold, Need::kOPTIONAL);
        field("iou_threshold", iouThreshold, Need::kOPTIONAL);
        field("max_output_boxes_per_class", maxOutputBoxesPerClass, Need::kREQUIRED);
        field("center_point_box", centerPointBox, Need::kOPTIONAL);
    }
};

template <typename Derived, typename Params>
class EfficientNmsPluginBase : public DynamicPlugin<Derived, Params>
{
public:
    using DynamicPlugin<Derived, Params>::DynamicPlugin;

    int32_t getNbOutputs() const noexcept override
    {
        return Derived::kOnnx ? 1 : 4;
    }
    nvinfer1::DimsExprs getOutputDimensions(int32_t outputIndex, nvinfer1::DimsExprs const* inputs, int32_t nbInputs,
        nvinfer1::IExprBuilder& exprBuilder) noexcept override;
    bool supportsFormatCombination(
        int32_t pos, nvinfer1::PluginTensorDesc const* inOut, int32_t nbInputs, int32_t nbOutputs) noexcept override;
    nvinfer1::DataType getOutputDataType(
        int32_t index, nvinfer1::DataType const* inputTypes, int32_t nbInputs) const noexcept override;
    size_t getWorkspaceSize(nvinfer1::PluginTensorDesc const* inputs, int32_t nbInputs,
        nvinfer1::PluginTensorDesc const* outputs, int32_t nbOutputs) const noexcept override;

    //! Records whether anchors are given (a third input), which the run's tensors do not say.
    void configurePlugin(nvinfer1::DynamicPluginTensorDesc const* in, int32_t nbInputs,
        nvinfer1::DynamicPluginTensorDesc const* out, int32_t nbOutputs) noexcept override;

    //! The payload is the parameters, then whether anchors are given.
    static Derived* deserialize(PayloadReader& reader);
    void save(PayloadWriter& writer) const;

    void runHost(PluginTensors const& io) const;
    void runDevice(PluginTensors const& io, cudaStream_t stream) const;

private:
    EfficientNmsConfig config() const
    {
        return Derived::configOf(this->mParams);
    }
    int32_t inputCount() const
    {
        return mHasAnchors ? 3 : 2;
    }
    bool mHasAnchors{false};
};

class EfficientNmsPlugin : public EfficientNmsPluginBase<EfficientNmsPlugin, EfficientNmsParams>
{
public:
    static constexpr char const* kName = "EfficientNMS_TRT";
    static constexpr char const* kVersion = "1";
    static constexpr bool kOnnx = false;
    using EfficientNmsPluginBase::EfficientNmsPluginBase;

    static void check(EfficientNmsParams const& params);
    static EfficientNmsConfig configOf(EfficientNmsParams const& params);
};

class EfficientNmsOnnxPlugin : public EfficientNmsPluginBase<EfficientNmsOnnxPlugin, EfficientNmsOnnxParams>
{
public:
    static constexpr char const* kName = "EfficientNMS_ONNX_TRT";
    static constexpr char const* kVersion = "1";
    static constexpr bool kOnnx = true;
    using EfficientNmsPluginBase::EfficientNmsPluginBase;

    static void check(EfficientNmsOnnxParams const& params);
    static EfficientNmsConfig configOf(EfficientNmsOnnxParams const& params);
};

} // namespace kiln::plugins
