// IConstantLayer: a tensor of the given dimensions holding the weights (the output type is the weights' type).
// Small INT32 / INT64 constants of rank 0 or 1 are shape tensors: their values stay known during inference.
#pragma once

#include "network/layer.h"
#include "network/network.h"
#include "network/weights_buffer.h"

namespace kiln::network
{

struct ConstantParams final : LayerParams
{
    nvinfer1::Dims dimensions{};
    WeightsBuffer weights;

    nvinfer1::LayerType type() const override
    {
        return nvinfer1::LayerType::kCONSTANT;
    }
    bool infer(InferenceContext& ctx) const override;
    void write(plan::ByteWriter& writer) const override
    {
        writer.writeDims(dimensions);
        weights.write(writer);
    }
    bool read(plan::ByteReader& reader) override
    {
        return reader.readDims(dimensions, "constant dimensions") && weights.read(reader, "constant weights");
    }
    std::unique_ptr<LayerParams> clone() const override
    {
        return std::make_unique<ConstantParams>(*this);
    }
};

class ConstantLayer final : public LayerBase<nvinfer1::IConstantLayer, ConstantParams>
{
public:
    using LayerBase::LayerBase;
    void setWeights(nvinfer1::Weights weights) noexcept override
    {
        network().invalidate();
        mutableParams().weights = WeightsBuffer(weights);
    }
    nvinfer1::Weights getWeights() const noexcept override
    {
        return typedParams().weights.view();
    }
    void setDimensions(nvinfer1::Dims const& dimensions) noexcept override
    {
        network().invalidate();
        mutableParams().dimensions = dimensions;
    }
    nvinfer1::Dims getDimensions() const noexcept override
    {
        return typedParams().dimensions;
    }
};

} // namespace kiln::network
