#include "onnx/import_context.h"

#include "core/checked_size.h"
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
    std::optional<std::string> const contents = contentsKey(constant);
    auto shared = contents ? mSmallConstants.find(*contents) : mSmallConstants.end();
    nvinfer1::ITensor& tensor = shared != mSmallConstants.end() ? *shared->second : addConstantLayer(constant);
    if (contents)
    {
        mSmallConstants.emplace(*contents, &tensor);
    }
    // Empty constants share a null data pointer: do not cache those.
    if (constant.data != nullptr)
    {
        mConstantTensors[key] = &tensor;
    }
    return tensor;
}

std::optional<std::string> ImportContext::contentsKey(ConstantData const& constant)
{
    // A few kilobytes: shapes, indices and scalars, never weights worth keeping apart.
    constexpr int64_t kMaxSharedBytes = 4096;
    size_t const size = elementSize(constant.type);
    std::optional<int64_t> const count = checkedElementCount(constant.shape);
    // The model's floating-point values under a name are named for refit (nameWeights), which finds them by that
    // name: they keep a layer of their own.
    bool const namedForRefit = constant.modelValues && !constant.name.empty() && isFloatType(constant.type);
    if (namedForRefit || constant.data == nullptr || size == 0 || !count
        || *count > kMaxSharedBytes / static_cast<int64_t>(size))
    {
        return std::nullopt;
    }
    std::string key;
    key.push_back(static_cast<char>(constant.type));
    key.push_back(static_cast<char>(constant.shape.size()));
    for (int64_t extent : constant.shape)
    {
        key.append(reinterpret_cast<char const*>(&extent), sizeof(extent));
    }
    key.append(static_cast<char const*>(constant.data), static_cast<size_t>(*count) * size);
    return key;
}

nvinfer1::ITensor& ImportContext::addConstantLayer(ConstantData const& constant)
{
    auto& layer = check(mNetwork.addConstant(constant.dims(), constant.weights()), "constant");
    nameWeights(constant);
    if (!constant.name.empty())
    {
        layer.setName(("constant " + constant.name).c_str());
        layer.getOutput(0)->setName(constant.name.c_str());
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
