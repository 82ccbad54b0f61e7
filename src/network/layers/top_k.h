// ITopKLayer: the k largest or smallest elements along one axis (output 0) and their indices (output 1, INT32 or
// INT64). Any k up to the axis extent: Kiln has no 3840 cap. As in TensorRT 10, k may instead come from input 1, a
// 0-D INT32/INT64 shape tensor that overrides the static k (getK() is then -1, and setK() removes that input).
#pragma once

#include "network/layer.h"
#include "network/network.h"

namespace kiln::network
{

struct TopKParams final : LayerParamsOf<TopKParams, nvinfer1::LayerType::kTOPK, nvinfer1::ITopKLayer>
{
    nvinfer1::TopKOperation operation{nvinfer1::TopKOperation::kMAX};
    int32_t k{1};
    uint32_t reduceAxes{0};
    nvinfer1::DataType indicesType{nvinfer1::DataType::kINT32};

    template <typename Self, typename Field>
    static void fields(Self& self, Field&& field)
    {
        field(self.operation, "top-k operation");
        field(self.k, "top-k k");
        field(self.reduceAxes, "top-k axes");
        field(self.indicesType, "top-k indices type");
    }

    int32_t nbOutputs() const override
    {
        return 2;
    }
    bool infer(InferenceContext& ctx) const override;
};

class TopKLayer final : public LayerBase<nvinfer1::ITopKLayer, TopKParams>
{
public:
    using LayerBase::LayerBase;
    void setOperation(nvinfer1::TopKOperation op) noexcept override
    {
        change().operation = op;
    }
    nvinfer1::TopKOperation getOperation() const noexcept override
    {
        return typedParams().operation;
    }
    void setK(int32_t k) noexcept override
    {
        change().k = k;
        clearLayerInput(1);
    }
    int32_t getK() const noexcept override
    {
        return getInput(1) != nullptr ? -1 : typedParams().k;
    }
    void setReduceAxes(uint32_t reduceAxes) noexcept override
    {
        change().reduceAxes = reduceAxes;
    }
    uint32_t getReduceAxes() const noexcept override
    {
        return typedParams().reduceAxes;
    }
    bool setIndicesType(nvinfer1::DataType type) noexcept override;
    nvinfer1::DataType getIndicesType() const noexcept override
    {
        return typedParams().indicesType;
    }

private:
    TopKParams& change()
    {
        network().invalidate();
        return mutableParams();
    }
};

} // namespace kiln::network
