// The state of one graph import: the network being filled, the values of ONNX names, the parser's
// constant store and flags, and the node being imported (so helper layers carry its name).
#pragma once

#include "onnx/error_capture.h"
#include "onnx/plugin_owner.h"
#include "onnx/tensor_reader.h"
#include "onnx/value.h"

#include <NvOnnxParser.h>

#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace kiln::onnxparser
{

class ImportContext
{
public:
    ImportContext(nvinfer1::INetworkDefinition& network, nvinfer1::ILogger& logger, nvonnxparser::OnnxParserFlags flags,
        int64_t opset, ConstantStore& store, PluginOwner& plugins, std::string modelDir);

    nvinfer1::INetworkDefinition& network()
    {
        return mNetwork;
    }
    //! The model's opset of the default ONNX domain.
    int64_t opset() const
    {
        return mOpset;
    }
    bool flag(nvonnxparser::OnnxParserFlag flag) const
    {
        return (mFlags & (1U << static_cast<uint32_t>(flag))) != 0;
    }
    ConstantStore& store()
    {
        return mStore;
    }
    PluginOwner& plugins()
    {
        return mPlugins;
    }
    std::string const& modelDir() const
    {
        return mModelDir;
    }
    void log(nvinfer1::ILogger::Severity severity, std::string const& message);
    //! Names the weights of `constant` after the model's name for them, where they are the model's own values, so that
    //! a refittable engine can be refitted from the model (nvonnxparser::IParserRefitter).
    void nameWeights(ConstantData const& constant);

    //! Binds an ONNX value name (graph input, initializer or node output).
    void define(std::string const& name, Value value);
    //! nullptr when name is not bound yet.
    Value const* find(std::string const& name) const;
    //! The names bound so far, to be restored when a subgraph's own names go out of scope.
    std::unordered_map<std::string, Value> names() const
    {
        return mValues;
    }
    void restoreNames(std::unordered_map<std::string, Value> names)
    {
        mValues = std::move(names);
    }

    //! The value as a network tensor: constants become (cached) constant layers.
    nvinfer1::ITensor& tensor(Value const& value);

    //! The node being imported; layers added meanwhile are named after it.
    void beginNode(std::string nodeName);
    //! Names layer after the current node and returns it; fails with the network's logged error when
    //! the network rejected the layer (layer is null).
    template <typename LayerType>
    LayerType& check(LayerType* layer, char const* what)
    {
        checkLayer(layer, what);
        return *layer;
    }
    //! Last error Kiln logged on this thread during the current node, if any.
    std::string const& lastNetworkError() const
    {
        return mCapture.lastError();
    }

private:
    void checkLayer(nvinfer1::ILayer* layer, char const* what);

    nvinfer1::INetworkDefinition& mNetwork;
    nvinfer1::ILogger& mLogger;
    nvonnxparser::OnnxParserFlags mFlags;
    int64_t mOpset;
    ConstantStore& mStore;
    PluginOwner& mPlugins;
    std::string mModelDir;
    std::unordered_map<std::string, Value> mValues;
    //! The key of a small constant that may share its layer with any other of equal contents; none otherwise.
    static std::optional<std::string> contentsKey(ConstantData const& constant);
    //! Makes the constant layer of `constant`, named after it where the model names it.
    nvinfer1::ITensor& addConstantLayer(ConstantData const& constant);

    //! Constant layers made so far, by data and shape (a reshaped view of the same data is another tensor).
    std::map<std::pair<void const*, std::vector<int64_t>>, nvinfer1::ITensor*> mConstantTensors;
    //! Small constants' layers by contents (type, shape and bytes): shape computations repeat a few small values
    //! thousands of times ([0], [1], [-1]), each from its own Constant node or helper, and one layer serves them all.
    std::unordered_map<std::string, nvinfer1::ITensor*> mSmallConstants;
    std::string mNodeName;
    int32_t mLayersOfNode{0};
    ErrorCapture mCapture;
};

} // namespace kiln::onnxparser
