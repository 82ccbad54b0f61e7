#include "network/network.h"

#include "core/logging.h"
#include "network/attention_helper.h"
#include "network/layers/conditional.h"
#include "network/layers/loop.h"

#include <algorithm>

namespace kiln::network
{

Network::Network(nvinfer1::IBuilder& builder, nvinfer1::NetworkDefinitionCreationFlags flags)
    : mBuilder(builder)
    , mFlags(flags)
{
}

Network::~Network() noexcept = default;

bool Network::owns(nvinfer1::ITensor const* tensor) const
{
    return mOwned.count(tensor) > 0;
}

Tensor* Network::createTensor(std::string name)
{
    mTensors.push_back(std::make_unique<Tensor>(*this, std::move(name), nvinfer1::DataType::kFLOAT, nvinfer1::Dims{}));
    mOwned.insert(mTensors.back().get());
    return mTensors.back().get();
}

void Network::destroyTensor(Tensor const* tensor)
{
    std::erase(mInputs, tensor);
    std::erase(mOutputs, tensor);
    mOwned.erase(tensor);
    std::erase_if(mTensors, [&](auto const& owned) { return owned.get() == tensor; });
}

bool Network::checkInputs(char const* what, std::vector<nvinfer1::ITensor*> const& inputs) const
{
    for (size_t i = 0; i < inputs.size(); ++i)
    {
        if (inputs[i] == nullptr)
        {
            logError(std::string("INetworkDefinition::") + what + ": input " + std::to_string(i) + " is null");
            return false;
        }
        if (!owns(inputs[i]))
        {
            logError(std::string("INetworkDefinition::") + what + ": input " + std::to_string(i) + " (\""
                + inputs[i]->getName() + "\") does not belong to this network");
            return false;
        }
    }
    return true;
}

nvinfer1::ITensor* Network::addInput(char const* name, nvinfer1::DataType type, nvinfer1::Dims const& dims) noexcept
{
    if (name == nullptr || *name == '\0')
    {
        logError("INetworkDefinition::addInput: the name is null or empty");
        return nullptr;
    }
    if (dims.nbDims < 0 || dims.nbDims > nvinfer1::Dims::MAX_DIMS)
    {
        logError(std::string("INetworkDefinition::addInput: rank ") + std::to_string(dims.nbDims) + " of input \""
            + name + "\" is out of range (0 to 8)");
        return nullptr;
    }
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        if (dims.d[i] < -1)
        {
            logError(std::string("INetworkDefinition::addInput: dimension ") + std::to_string(i) + " of input \"" + name
                + "\" is " + std::to_string(dims.d[i]) + " (use -1 for a dimension given at run time)");
            return nullptr;
        }
    }
    for (Tensor* input : mInputs)
    {
        if (input->name() == name)
        {
            logError(std::string("INetworkDefinition::addInput: there is already an input named \"") + name + "\"");
            return nullptr;
        }
    }
    mTensors.push_back(std::make_unique<Tensor>(*this, name, type, dims));
    Tensor* tensor = mTensors.back().get();
    mOwned.insert(tensor);
    tensor->setNetworkInput(true);
    mInputs.push_back(tensor);
    invalidate();
    return tensor;
}

void Network::markOutput(nvinfer1::ITensor& tensor) noexcept
{
    if (!owns(&tensor))
    {
        logError(std::string("INetworkDefinition::markOutput: tensor \"") + tensor.getName()
            + "\" does not belong to this network");
        return;
    }
    auto* t = static_cast<Tensor*>(&tensor);
    if (std::find(mOutputs.begin(), mOutputs.end(), t) == mOutputs.end())
    {
        t->setNetworkOutput(true);
        mOutputs.push_back(t);
    }
}

void Network::unmarkOutput(nvinfer1::ITensor& tensor) noexcept
{
    auto* t = static_cast<Tensor*>(&tensor);
    auto it = std::find(mOutputs.begin(), mOutputs.end(), t);
    if (it == mOutputs.end())
    {
        logError(std::string("INetworkDefinition::unmarkOutput: tensor \"") + tensor.getName()
            + "\" is not a network output");
        return;
    }
    t->setNetworkOutput(false);
    mOutputs.erase(it);
}

bool Network::markDebug(nvinfer1::ITensor& tensor) noexcept
{
    if (!owns(&tensor))
    {
        logError(std::string("INetworkDefinition::markDebug: tensor \"") + tensor.getName()
            + "\" does not belong to this network");
        return false;
    }
    static_cast<Tensor&>(tensor).setDebug(true);
    return true;
}

bool Network::unmarkDebug(nvinfer1::ITensor& tensor) noexcept
{
    if (!isDebugTensor(tensor))
    {
        logError(std::string("INetworkDefinition::unmarkDebug: tensor \"") + tensor.getName()
            + "\" is not a debug tensor of this network (markDebug)");
        return false;
    }
    static_cast<Tensor&>(tensor).setDebug(false);
    return true;
}

bool Network::isDebugTensor(nvinfer1::ITensor const& tensor) const noexcept
{
    return owns(&tensor) && static_cast<Tensor const&>(tensor).isDebug();
}

bool Network::markUnfusedTensorsAsDebugTensors() noexcept
{
    mUnfusedTensorsAreDebugTensors = true;
    return true;
}

bool Network::unmarkUnfusedTensorsAsDebugTensors() noexcept
{
    mUnfusedTensorsAreDebugTensors = false;
    return true;
}

int32_t Network::getNbLayers() const noexcept
{
    return static_cast<int32_t>(mLayers.size());
}

nvinfer1::ILayer* Network::getLayer(int32_t index) const noexcept
{
    return index >= 0 && index < getNbLayers() ? &mLayers[index]->api() : nullptr;
}

int32_t Network::getNbInputs() const noexcept
{
    return static_cast<int32_t>(mInputs.size());
}

nvinfer1::ITensor* Network::getInput(int32_t index) const noexcept
{
    return index >= 0 && index < getNbInputs() ? mInputs[index] : nullptr;
}

int32_t Network::getNbOutputs() const noexcept
{
    return static_cast<int32_t>(mOutputs.size());
}

nvinfer1::ITensor* Network::getOutput(int32_t index) const noexcept
{
    return index >= 0 && index < getNbOutputs() ? mOutputs[index] : nullptr;
}

void Network::eraseLayers(std::vector<Layer*> const& layers)
{
    for (Layer* layer : layers)
    {
        for (Tensor* output : layer->outputs())
        {
            destroyTensor(output);
        }
        std::erase_if(mLayers, [&](auto const& owned) { return owned.get() == layer; });
    }
    invalidate();
}

void Network::removeTensor(nvinfer1::ITensor& tensor) noexcept
{
    auto* t = static_cast<Tensor*>(&tensor);
    if (!owns(t))
    {
        logError("INetworkDefinition::removeTensor: the tensor does not belong to this network");
        return;
    }
    bool const used = std::any_of(mLayers.begin(), mLayers.end(), [&](auto const& layer) {
        return std::find(layer->inputs().begin(), layer->inputs().end(), t) != layer->inputs().end();
    });
    if (used || t->producer() != nullptr)
    {
        logError("INetworkDefinition::removeTensor: \"" + t->name() + "\" is still produced or used by a layer");
        return;
    }
    destroyTensor(t);
    invalidate();
}

void Network::setName(char const* name) noexcept
{
    mName = name ? name : "";
}

char const* Network::getName() const noexcept
{
    return mName.c_str();
}

nvinfer1::NetworkDefinitionCreationFlags Network::getFlags() const noexcept
{
    return mFlags;
}

bool Network::getFlag(nvinfer1::NetworkDefinitionCreationFlag flag) const noexcept
{
    return (mFlags & (1U << static_cast<uint32_t>(flag))) != 0;
}

nvinfer1::IBuilder& Network::getBuilder() const noexcept
{
    return mBuilder;
}

} // namespace kiln::network
