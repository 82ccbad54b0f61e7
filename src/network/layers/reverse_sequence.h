// IReverseSequenceLayer (TensorRT 10, ONNX ReverseSequence): for each index b along the batch axis, the first
// sequenceLens[b] elements along the sequence axis are reversed and the rest copied unchanged. The input has rank 2 or
// more and any byte-addressable type (the layer only moves elements), which the output has, with the input's shape.
// sequenceLens is a 1-D INT32 or INT64 tensor with one length per batch index. The batch axis (1 by default) and the
// sequence axis (0 by default) lie in [0, rank) and differ.
//
// The axes, and that sequenceLens holds one length per index of the batch axis, are checked when the network is
// built: addReverseSequence infers shapes with the default axes before the application can set its own, so an input
// whose batch axis will be 0 must not be refused for not matching axis 1. The kernels check the count again for
// extents known only at run time.
#pragma once

#include "network/layer.h"
#include "network/network.h"

namespace kiln::network
{

struct ReverseSequenceParams final
    : LayerParamsOf<ReverseSequenceParams, nvinfer1::LayerType::kREVERSE_SEQUENCE, nvinfer1::IReverseSequenceLayer>
{
    int32_t batchAxis{1};
    int32_t sequenceAxis{0};

    template <typename Self, typename Field>
    static void fields(Self& self, Field&& field)
    {
        field(self.batchAxis, "reverse sequence batch axis");
        field(self.sequenceAxis, "reverse sequence sequence axis");
    }

    bool infer(InferenceContext& ctx) const override;
};

//! The setters keep any value, as TensorRT's return nothing: an axis valid only once the other one has changed too
//! (swapping the defaults sets batch 0 while the sequence axis is still 0) must not be refused on the way; the build
//! refuses axes that are still wrong.
class ReverseSequenceLayer final : public LayerBase<nvinfer1::IReverseSequenceLayer, ReverseSequenceParams>
{
public:
    using LayerBase::LayerBase;
    void setBatchAxis(int32_t batchAxis) noexcept override
    {
        network().invalidate();
        mutableParams().batchAxis = batchAxis;
    }
    int32_t getBatchAxis() const noexcept override
    {
        return typedParams().batchAxis;
    }
    void setSequenceAxis(int32_t sequenceAxis) noexcept override
    {
        network().invalidate();
        mutableParams().sequenceAxis = sequenceAxis;
    }
    int32_t getSequenceAxis() const noexcept override
    {
        return typedParams().sequenceAxis;
    }
};

} // namespace kiln::network
