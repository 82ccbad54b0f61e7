// INonZeroLayer (TensorRT 10, ONNX NonZero): the positions of the input's non-zero elements (true for BOOL) as the
// columns of output 0, an [input rank, count] matrix of INT64 (or INT32, setIndicesType), in row-major order of the
// elements. The input is FLOAT, HALF, BF16, INT8, UINT8, INT32, INT64 or BOOL, of any rank (a 0-D input gives a
// [0, count] matrix). count is data-dependent: a size tensor whose upper bound, for which memory is planned, is the
// input's element count. The layer's second output is internal: the 0-D INT64 count that its kernel writes and the
// execution context reads once the layer has run; the API shows one output, as TensorRT's does.
#pragma once

#include "network/layer.h"
#include "network/network.h"

namespace kiln::network
{

struct NonZeroParams final : LayerParamsOf<NonZeroParams, nvinfer1::LayerType::kNON_ZERO, nvinfer1::INonZeroLayer>
{
    nvinfer1::DataType indicesType{nvinfer1::DataType::kINT64};

    template <typename Self, typename Field>
    static void fields(Self& self, Field&& field)
    {
        field(self.indicesType, "non-zero indices type");
    }

    //! The indices, then the internal count.
    int32_t nbOutputs() const override
    {
        return 2;
    }
    bool infer(InferenceContext& ctx) const override;
    //! The indices are positions whatever the builder's precision.
    bool keepsItsTypes() const override
    {
        return true;
    }
};

class NonZeroLayer final : public LayerBase<nvinfer1::INonZeroLayer, NonZeroParams>
{
public:
    using LayerBase::LayerBase;
    bool setIndicesType(nvinfer1::DataType type) noexcept override;
    nvinfer1::DataType getIndicesType() const noexcept override
    {
        return typedParams().indicesType;
    }
    //! The count output stays internal.
    int32_t getNbOutputs() const noexcept override
    {
        return 1;
    }
    nvinfer1::ITensor* getOutput(int32_t index) const noexcept override
    {
        return index == 0 ? outputs()[0] : nullptr;
    }
};

} // namespace kiln::network
