// ICumulativeLayer (TensorRT 10, ONNX CumSum): a running kSUM of input 0 along the axis given by input 1, a 0-D
// INT32/INT64 tensor whose value must be known at build time (as TensorRT requires). exclusive leaves each element
// out of its own sum; reverse runs from the end of the axis. The output has the input's shape and type (FLOAT, HALF,
// BF16, INT32 or INT64).
#pragma once

#include "network/layer.h"
#include "network/network.h"

namespace kiln::network
{

struct CumulativeParams final
    : LayerParamsOf<CumulativeParams, nvinfer1::LayerType::kCUMULATIVE, nvinfer1::ICumulativeLayer>
{
    nvinfer1::CumulativeOperation operation{nvinfer1::CumulativeOperation::kSUM};
    bool exclusive{false};
    bool reverse{false};

    template <typename Self, typename Field>
    static void fields(Self& self, Field&& field)
    {
        field(self.operation, "cumulative operation");
        field(self.exclusive, "cumulative exclusive");
        field(self.reverse, "cumulative reverse");
    }

    bool infer(InferenceContext& ctx) const override;
    bool foldsWhenConstant() const override
    {
        return true;
    }
};

class CumulativeLayer final : public LayerBase<nvinfer1::ICumulativeLayer, CumulativeParams>
{
public:
    using LayerBase::LayerBase;
    //! False (and no change) for an operation TensorRT does not define.
    bool setOperation(nvinfer1::CumulativeOperation op) noexcept override;
    nvinfer1::CumulativeOperation getOperation() const noexcept override
    {
        return typedParams().operation;
    }
    void setExclusive(bool exclusive) noexcept override
    {
        network().invalidate();
        mutableParams().exclusive = exclusive;
    }
    bool getExclusive() const noexcept override
    {
        return typedParams().exclusive;
    }
    void setReverse(bool reverse) noexcept override
    {
        network().invalidate();
        mutableParams().reverse = reverse;
    }
    bool getReverse() const noexcept override
    {
        return typedParams().reverse;
    }
};

} // namespace kiln::network
