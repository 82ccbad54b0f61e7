// IConcatenationLayer: joins its inputs along one axis; every other extent must agree.
#pragma once

#include "network/layer.h"
#include "network/network.h"

namespace kiln::network
{

struct ConcatenationParams final : LayerParams
{
    //! TensorRT's default, fixed when the layer is added: rank - 3, or 0 for ranks below 3.
    int32_t axis{0};

    nvinfer1::LayerType type() const override
    {
        return nvinfer1::LayerType::kCONCATENATION;
    }
    bool infer(InferenceContext& ctx) const override;
    void write(plan::ByteWriter& writer) const override
    {
        writer.write(axis);
    }
    bool read(plan::ByteReader& reader) override
    {
        return reader.read(axis, "concatenation axis");
    }
    std::unique_ptr<LayerParams> clone() const override
    {
        return std::make_unique<ConcatenationParams>(*this);
    }
};

class ConcatenationLayer final : public LayerBase<nvinfer1::IConcatenationLayer, ConcatenationParams>
{
public:
    using LayerBase::LayerBase;
    void setAxis(int32_t axis) noexcept override
    {
        network().invalidate();
        mutableParams().axis = axis;
    }
    int32_t getAxis() const noexcept override
    {
        return typedParams().axis;
    }
};

} // namespace kiln::network
