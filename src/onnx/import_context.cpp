#include "onnx/import_context.h"

#include "onnx/import_error.h"

namespace kiln::onnxparser
{

ImportContext::ImportContext(nvinfer1::INetworkDefinition& network, nvinfer1::ILogger& logger,
    nvonnxparser::OnnxParserFlags flags, int64_t opset, ConstantStore& store, PluginOwner& plugins,
    std::string modelDir)
    : mNetwork(network)
    , mLogger(logger)
    , mFlags(flags)
    , mOpset(opset)
    , mStore(store)
    , mPlugins(plugins)
    , mModelDir(std::move(modelDir))
{
}

void ImportContext::log(nvinfer1::ILogger::Severity severity, std::string const& message)
{
    try
    {
        mLogger.log(severity, message.c_str());
    }
    catch (...)
    {
        // A throwing logger must not abort the import.
    }
}

void ImportContext::define(std::string const& name, Value value)
{
    mValues[name] = std::move(value);
}

Value const* ImportContext::find(std::string const& name) const
{
    auto it = mValues.find(name);
    return it == mValues.end() ? nullptr : &it->second;
}

nvinfer1::ITensor& ImportContext::tensor(Value const& value)
{
    if (value.isTensor())
    {
        return *value.tensor();
    }
    if (!value.isConstant())
    {
        fail(ErrorCode::kINTERNAL_ERROR, "an absent optional value was used as a tensor");
    }
    ConstantData const& constant = value.constant();
    auto const key = std::make_pair(constant.data, constant.shape);
    auto cached = mConstantTensors.find(key);
    if (cached != mConstantTensors.end() && cached->second != nullptr)
    {
        return *cached->second;
    }
    auto& layer = check(mNetwork.addConstant(constant.dims(), constant.weights()), "constant");
    nameWeights(constant);
    if (!constant.name.empty())
    {
        layer.setName(("constant " + constant.name).c_str());
        layer.getOutput(0)->setName(constant.name.c_str());
    }
    // Empty constants share a null data pointer: do not cache those.
    if (constant.data != nullptr)
    {
        mConstantTensors[key] = layer.getOutput(0);
    }
    return *layer.getOutput(0);
}

void ImportContext::nameWeights(ConstantData const& constant)
{
    if (constant.modelValues && !constant.name.empty() && constant.data != nullptr && isFloatType(constant.type))
    {
        mNetwork.setWeightsName(constant.weights(), constant.name.c_str());
    }
}

void ImportContext::beginNode(std::string nodeName)
{
    mNodeName = std::move(nodeName);
    mLayersOfNode = 0;
    mCapture.record({});
}

void ImportContext::checkLayer(nvinfer1::ILayer* layer, char const* what)
{
    if (layer == nullptr)
    {
        std::string reason = mCapture.lastError();
        fail(ErrorCode::kUNSUPPORTED_NODE,
            std::string("the network rejected the ") + what + " layer"
                + (reason.empty() ? std::string(" (see the log)") : ": " + reason));
    }
    if (!mNodeName.empty())
    {
        std::string name = mNodeName;
        if (mLayersOfNode++ > 0)
        {
            name += " (" + std::string(what) + " " + std::to_string(mLayersOfNode) + ")";
        }
        layer->setName(name.c_str());
    }
}

} // namespace kiln::onnxparser
