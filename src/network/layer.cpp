#include "network/layer.h"

#include "core/logging.h"
#include "network/network.h"

namespace kiln::network
{

bool acceptNbRanks(char const* call, int32_t nbRanks)
{
    if (nbRanks == 1)
    {
        return true;
    }
    logError(std::string(call) + ": " + std::to_string(nbRanks)
        + " ranks: Kiln runs every layer on one device, so the number of ranks stays 1");
    return false;
}

Layer::Layer(Network& network, std::string name, std::vector<Tensor*> inputs, int32_t minInputs, int32_t maxInputs)
    : mNetwork(network)
    , mName(std::move(name))
    , mInputs(std::move(inputs))
    , mMinInputs(minInputs)
    , mMaxInputs(maxInputs)
{
}

void Layer::createOutputs(int32_t count)
{
    for (int32_t i = 0; i < count; ++i)
    {
        std::string name = mName + "_output";
        if (count > 1)
        {
            name += "_" + std::to_string(i);
        }
        Tensor* tensor = mNetwork.createTensor(std::move(name));
        tensor->setProducer(this, i);
        mOutputs.push_back(tensor);
    }
    mOutputTypes.resize(count);
}

void Layer::setLayerName(char const* name)
{
    if (name == nullptr)
    {
        logError("ILayer::setName: the name is null (layer \"" + mName + "\" keeps its name)");
        return;
    }
    mName = name;
}

bool Layer::setLayerInput(int32_t index, Tensor& tensor)
{
    int32_t const count = static_cast<int32_t>(mInputs.size());
    if (index < 0 || index >= mMaxInputs)
    {
        logError("ILayer::setInput on layer \"" + mName + "\": input index " + std::to_string(index)
            + " is out of range (the layer takes " + std::to_string(mMinInputs) + " to " + std::to_string(mMaxInputs)
            + " inputs)");
        return false;
    }
    if (!mNetwork.owns(&tensor))
    {
        logError("ILayer::setInput on layer \"" + mName + "\": tensor \"" + tensor.name()
            + "\" does not belong to this network");
        return false;
    }
    if (index >= count)
    {
        // Optional inputs in between stay empty (null), as TensorRT allows.
        mInputs.resize(index + 1, nullptr);
    }
    mInputs[index] = &tensor;
    mNetwork.inputChanged(*this, tensor);
    return true;
}

void Layer::setLayerOutputType(int32_t index, std::optional<nvinfer1::DataType> type)
{
    if (index < 0 || index >= static_cast<int32_t>(mOutputTypes.size()))
    {
        logError("ILayer::setOutputType on layer \"" + mName + "\": output index " + std::to_string(index)
            + " is out of range");
        return;
    }
    mOutputTypes[index] = type;
    // Inference gives the output the requested type, which later layers see.
    mNetwork.invalidateLayer(*this);
}

void Layer::ChangeNotice::invalidate() const
{
    mNetwork.invalidateLayer(mLayer);
}

} // namespace kiln::network
