// What an ONNX value name stands for while a graph is imported: a network tensor, or constant data
// (an initializer or a Constant node's output) that importers can read, e.g. a kernel or a shape.
#pragma once

#include "core/data_type.h"

#include <NvInfer.h>

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::onnxparser
{

//! Constant data owned by the parser (ImportContext's store), with its ONNX shape.
struct ConstantData
{
    nvinfer1::DataType type{nvinfer1::DataType::kFLOAT};
    std::vector<int64_t> shape;
    void const* data{nullptr};
    //! The name it has in the model, for messages and for naming its constant layer.
    std::string name;
    //! Whether these are the model's own values under that name (an initializer, a Constant node's tensor), not
    //! values an importer derived: only those are named for refit (INetworkDefinition::setWeightsName), since the
    //! ONNX refitter gives new values by the model's names.
    bool modelValues{false};

    int64_t count() const;
    nvinfer1::Weights weights() const
    {
        return nvinfer1::Weights{type, data, count()};
    }
    nvinfer1::Dims dims() const;
    //! The values converted to int64 / double (any stored type).
    std::vector<int64_t> toInt64() const;
    std::vector<double> toDouble() const;
    std::vector<float> toFloat() const;
};

class Value
{
public:
    Value() = default;
    explicit Value(nvinfer1::ITensor* tensor)
        : mTensor(tensor)
    {
    }
    explicit Value(ConstantData constant)
        : mConstant(std::move(constant))
        , mIsConstant(true)
    {
    }
    //! An optional input or output that the node leaves out (empty name).
    bool empty() const
    {
        return mTensor == nullptr && !mIsConstant;
    }
    bool isConstant() const
    {
        return mIsConstant;
    }
    bool isTensor() const
    {
        return mTensor != nullptr;
    }
    nvinfer1::ITensor* tensor() const
    {
        return mTensor;
    }
    ConstantData const& constant() const
    {
        return mConstant;
    }

private:
    nvinfer1::ITensor* mTensor{nullptr};
    ConstantData mConstant;
    bool mIsConstant{false};
};

} // namespace kiln::onnxparser
