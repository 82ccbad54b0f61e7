#include "network/tensor.h"

#include "core/logging.h"
#include "network/network.h"

namespace kiln::network
{

Tensor::Tensor(Network& network, std::string name, nvinfer1::DataType type, nvinfer1::Dims dims)
    : mNetwork(network)
    , mName(std::move(name))
    , mType(type)
    , mDims(dims)
{
}

void Tensor::setName(char const* name) noexcept
{
    if (name == nullptr)
    {
        logError("ITensor::setName: the name is null (tensor \"" + mName + "\" keeps its name)");
        return;
    }
    mName = name;
}

char const* Tensor::getName() const noexcept
{
    return mName.c_str();
}

void Tensor::setDimensions(nvinfer1::Dims const& dimensions) noexcept
{
    if (!mIsInput)
    {
        logError("ITensor::setDimensions: \"" + mName + "\" is not a network input; its shape is inferred");
        return;
    }
    if (dimensions.nbDims < 0 || dimensions.nbDims > nvinfer1::Dims::MAX_DIMS)
    {
        logError("ITensor::setDimensions: rank " + std::to_string(dimensions.nbDims) + " of \"" + mName
            + "\" is out of range");
        return;
    }
    mDims = dimensions;
    mNetwork.invalidate();
}

nvinfer1::Dims Tensor::getDimensions() const noexcept
{
    if (!mIsInput)
    {
        mNetwork.refreshShapes();
    }
    return mDims;
}

void Tensor::setType(nvinfer1::DataType type) noexcept
{
    mType = type;
    mTypeRequested = !mIsInput;
    // A layer output's requested type is applied where its producer is inferred; an input's type changes its facts.
    if (mProducer != nullptr)
    {
        mNetwork.invalidateLayer(*mProducer);
    }
    else
    {
        mNetwork.invalidate();
    }
}

nvinfer1::DataType Tensor::getType() const noexcept
{
    if (!mIsInput && !mTypeRequested)
    {
        mNetwork.refreshShapes();
    }
    return mType;
}

bool Tensor::isNetworkInput() const noexcept
{
    return mIsInput;
}

bool Tensor::isNetworkOutput() const noexcept
{
    return mIsOutput;
}

void Tensor::setAllowedFormats(nvinfer1::TensorFormats formats) noexcept
{
    mAllowedFormats = formats;
}

nvinfer1::TensorFormats Tensor::getAllowedFormats() const noexcept
{
    return mAllowedFormats;
}

bool Tensor::isShapeTensor() const noexcept
{
    // TensorRT's rule: an input is one where it is needed as one, not wherever it could be (shape_tensor_inputs.h).
    mNetwork.refreshShapes();
    return mIsShapeTensor && (!mIsInput || mNetwork.isShapeTensorInput(*this));
}

bool Tensor::isExecutionTensor() const noexcept
{
    return !isShapeTensor() || mIsOutput;
}

void Tensor::setDimensionName(int32_t index, char const* name) noexcept
{
    if (index < 0 || index >= nvinfer1::Dims::MAX_DIMS)
    {
        logError("ITensor::setDimensionName: index " + std::to_string(index) + " is out of range");
        return;
    }
    if (mDimensionNames.size() <= static_cast<size_t>(index))
    {
        mDimensionNames.resize(index + 1);
    }
    mDimensionNames[index] = name ? name : "";
}

char const* Tensor::getDimensionName(int32_t index) const noexcept
{
    if (index < 0 || static_cast<size_t>(index) >= mDimensionNames.size() || mDimensionNames[index].empty())
    {
        return nullptr;
    }
    return mDimensionNames[index].c_str();
}

} // namespace kiln::network
