// A tensor of a network under construction (the object behind nvinfer1::ITensor).
#pragma once

#include <NvInfer.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kiln::network
{

class Layer;
class Network;

class Tensor final : public nvinfer1::ITensor
{
public:
    Tensor(Network& network, std::string name, nvinfer1::DataType type, nvinfer1::Dims dims);

    // nvinfer1::ITensor
    void setName(char const* name) noexcept override;
    char const* getName() const noexcept override;
    void setDimensions(nvinfer1::Dims const& dimensions) noexcept override;
    nvinfer1::Dims getDimensions() const noexcept override;
    void setType(nvinfer1::DataType type) noexcept override;
    nvinfer1::DataType getType() const noexcept override;
    bool setDynamicRange(float min, float max) noexcept override;
    bool isNetworkInput() const noexcept override;
    bool isNetworkOutput() const noexcept override;
    void setBroadcastAcrossBatch(bool broadcastAcrossBatch) noexcept override;
    bool getBroadcastAcrossBatch() const noexcept override;
    nvinfer1::TensorLocation getLocation() const noexcept override;
    void setLocation(nvinfer1::TensorLocation location) noexcept override;
    bool dynamicRangeIsSet() const noexcept override;
    void resetDynamicRange() noexcept override;
    float getDynamicRangeMin() const noexcept override;
    float getDynamicRangeMax() const noexcept override;
    void setAllowedFormats(nvinfer1::TensorFormats formats) noexcept override;
    nvinfer1::TensorFormats getAllowedFormats() const noexcept override;
    bool isShapeTensor() const noexcept override;
    bool isExecutionTensor() const noexcept override;
    void setDimensionName(int32_t index, char const* name) noexcept override;
    char const* getDimensionName(int32_t index) const noexcept override;

    std::string const& name() const
    {
        return mName;
    }
    Layer* producer() const
    {
        return mProducer;
    }
    int32_t producerOutputIndex() const
    {
        return mProducerOutput;
    }
    void setProducer(Layer* layer, int32_t outputIndex)
    {
        mProducer = layer;
        mProducerOutput = outputIndex;
    }
    void setNetworkInput(bool isInput)
    {
        mIsInput = isInput;
    }
    void setNetworkOutput(bool isOutput)
    {
        mIsOutput = isOutput;
    }
    //! INetworkDefinition::markDebug and unmarkDebug.
    void setDebug(bool debug)
    {
        mIsDebug = debug;
    }
    bool isDebug() const
    {
        return mIsDebug;
    }
    //! Set by shape inference: the layer output's shape (-1 where known only at run time).
    void setInferredDimensions(nvinfer1::Dims const& dims)
    {
        mDims = dims;
    }
    //! Set by shape inference: the layer output's type.
    void setInferredType(nvinfer1::DataType type)
    {
        mType = type;
    }
    //! Set by shape inference: whether the tensor's values are shape values.
    void setShapeTensor(bool isShape)
    {
        mIsShapeTensor = isShape;
    }
    //! True once the application called setType on it (an output type request).
    bool typeRequested() const
    {
        return mTypeRequested;
    }

private:
    Network& mNetwork;
    std::string mName;
    nvinfer1::DataType mType;
    bool mTypeRequested{false};
    nvinfer1::Dims mDims;
    std::vector<std::string> mDimensionNames;
    Layer* mProducer{nullptr};
    int32_t mProducerOutput{-1};
    bool mIsInput{false};
    bool mIsOutput{false};
    bool mIsDebug{false};
    bool mIsShapeTensor{false};
    std::optional<std::pair<float, float>> mDynamicRange; //!< with kINT8, the builder quantizes implicitly by it
    nvinfer1::TensorFormats mAllowedFormats{1U << static_cast<uint32_t>(nvinfer1::TensorFormat::kLINEAR)};
};

} // namespace kiln::network
