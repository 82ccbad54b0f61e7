// INMSLayer (TensorRT 10, ONNX NonMaxSuppression): non-maximum suppression per batch item and class.
// Inputs: 0 boxes, FLOAT, HALF or BF16, [batch, boxes, 4] shared by the classes or [batch, boxes, classes, 4] per
// class; 1 scores, the boxes' type, [batch, boxes, classes]; 2 maxOutputBoxesPerClass, 0-D INT32; 3 and 4, optional,
// the IoU and score thresholds, 0-D FLOAT. Outputs: 0 the selected (batch, class, box) triples, [count, 3] of INT32
// (or INT64, setIndicesType); 1 count, 0-D INT32. count is data-dependent: a size tensor, declared on output 1, whose
// upper bound (the memory planned) is batch * classes * min(boxes, maxOutputBoxesPerClass) where that input's value is
// a build-time constant, batch * classes * boxes otherwise. The kernels' header (backend/cpu/kernels/tensor/nms.h)
// states the selection and the order; extents known only at run time are checked there.
#pragma once

#include "network/layer.h"
#include "network/network.h"

#include <cstdint>
#include <limits>

namespace kiln::network
{

struct NMSParams final : LayerParamsOf<NMSParams, nvinfer1::LayerType::kNMS, nvinfer1::INMSLayer>
{
    static constexpr int32_t kBoxes = 0;
    static constexpr int32_t kScores = 1;
    static constexpr int32_t kMaxOutputBoxesPerClass = 2;
    static constexpr int32_t kIoUThreshold = 3;
    static constexpr int32_t kScoreThreshold = 4;

    nvinfer1::BoundingBoxFormat boxFormat{nvinfer1::BoundingBoxFormat::kCORNER_PAIRS};
    //! No limit by default: TensorRT's default (5000) is its kernels' capacity, which Kiln's do not have.
    int32_t topKBoxLimit{std::numeric_limits<int32_t>::max()};
    nvinfer1::DataType indicesType{nvinfer1::DataType::kINT32};

    template <typename Self, typename Field>
    static void fields(Self& self, Field&& field)
    {
        field(self.boxFormat, "NMS bounding box format");
        field(self.topKBoxLimit, "NMS top-k box limit");
        field(self.indicesType, "NMS indices type");
    }

    //! The selected indices, then their count.
    int32_t nbOutputs() const override
    {
        return 2;
    }
    bool infer(InferenceContext& ctx) const override;
    //! The thresholds stay FLOAT whatever precision the builder gives the boxes and scores.
    bool isParameterInput(size_t index) const override
    {
        return index == kIoUThreshold || index == kScoreThreshold;
    }
};

class NMSLayer final : public LayerBase<nvinfer1::INMSLayer, NMSParams>
{
public:
    using LayerBase::LayerBase;
    void setBoundingBoxFormat(nvinfer1::BoundingBoxFormat fmt) noexcept override;
    nvinfer1::BoundingBoxFormat getBoundingBoxFormat() const noexcept override
    {
        return typedParams().boxFormat;
    }
    void setTopKBoxLimit(int32_t limit) noexcept override;
    int32_t getTopKBoxLimit() const noexcept override
    {
        return typedParams().topKBoxLimit;
    }
    bool setIndicesType(nvinfer1::DataType type) noexcept override;
    nvinfer1::DataType getIndicesType() const noexcept override
    {
        return typedParams().indicesType;
    }
};

} // namespace kiln::network
