// TopkLastDim 1: the k largest (or smallest) elements along an axis, and their indices, for any k (README.md).
#pragma once

#include "common/v3_plugin.h"
#include "topk_keys.h"

namespace kiln::plugins
{

struct TopkParams
{
    int32_t typeId{-1}; //!< nvinfer1::DataType of the input and values: kFLOAT, kHALF, kINT32 or kBF16
    int32_t k{0};
    int32_t isLargest{1};
    int32_t axis{-1};

    template <typename Visit>
    void visit(Visit&& field)
    {
        field("type_id", typeId, Need::kREQUIRED);
        field("k", k, Need::kREQUIRED);
        field("is_largest", isLargest, Need::kREQUIRED);
        field("axis", axis, Need::kOPTIONAL);
    }
};

class TopkPlugin : public V3Plugin<TopkPlugin, TopkParams>
{
public:
    static constexpr char const* kName = "TopkLastDim";
    static constexpr char const* kVersion = "1";
    using V3Plugin::V3Plugin;

    static void check(TopkParams const& params);

    int32_t getNbOutputs() const noexcept override
    {
        return 2;
    }
    int32_t getOutputDataTypes(nvinfer1::DataType* outputTypes, int32_t nbOutputs, nvinfer1::DataType const* inputTypes,
        int32_t nbInputs) const noexcept override;
    int32_t getOutputShapes(nvinfer1::DimsExprs const* inputs, int32_t nbInputs, nvinfer1::DimsExprs const* shapeInputs,
        int32_t nbShapeInputs, nvinfer1::DimsExprs* outputs, int32_t nbOutputs,
        nvinfer1::IExprBuilder& exprBuilder) noexcept override;
    bool supportsFormatCombination(int32_t pos, nvinfer1::DynamicPluginTensorDesc const* inOut, int32_t nbInputs,
        int32_t nbOutputs) noexcept override;
    size_t getWorkspaceSize(nvinfer1::DynamicPluginTensorDesc const* inputs, int32_t nbInputs,
        nvinfer1::DynamicPluginTensorDesc const* outputs, int32_t nbOutputs) const noexcept override;

    void runHost(PluginTensors const& io) const;
    void runDevice(PluginTensors const& io, cudaStream_t stream) const;

private:
    //! The input seen as [outer, length, inner] along the axis; throws PluginError when k exceeds the length.
    TopkShape shapeOf(nvinfer1::Dims const& dims) const;
};

} // namespace kiln::plugins
