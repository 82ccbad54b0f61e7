#include "onnx/plugin_fallback.h"

#include "core/checked_size.h"
#include "onnx/import_error.h"

#include <kiln/PluginRegistry.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <optional>

namespace kiln::onnxparser
{
namespace
{

using nvinfer1::PluginField;
using nvinfer1::PluginFieldType;
using ::onnx::AttributeProto;
using ::onnx::TensorProto;

//! The fields handed to createPlugin, with the storage their data points into.
struct PluginFields
{
    std::vector<std::string> names;
    std::vector<std::vector<uint8_t>> buffers;
    std::vector<PluginField> fields;

    template <typename T>
    void add(std::string const& name, PluginFieldType type, std::vector<T> const& values, int32_t length)
    {
        std::vector<uint8_t> bytes(values.size() * sizeof(T));
        if (!bytes.empty())
        {
            std::memcpy(bytes.data(), values.data(), bytes.size());
        }
        names.push_back(name);
        buffers.push_back(std::move(bytes));
        fields.emplace_back(nullptr, nullptr, type, length);
    }
    //! Points each field at its (now stable) name and buffer.
    nvinfer1::PluginFieldCollection collection()
    {
        for (size_t i = 0; i < fields.size(); ++i)
        {
            fields[i].name = names[i].c_str();
            fields[i].data = buffers[i].empty() ? nullptr : buffers[i].data();
        }
        return nvinfer1::PluginFieldCollection{static_cast<int32_t>(fields.size()), fields.data()};
    }
};

//! A TENSOR attribute's bytes as the plugin field type of the reference table.
void addTensorField(PluginFields& out, std::string const& name, TensorProto const& tensor)
{
    // A plugin field's length is an int32: larger counts (or ones that overflow) cannot be passed.
    std::optional<int64_t> const checked = checkedElementCount(tensor.dims());
    if (!checked || *checked > std::numeric_limits<int32_t>::max())
    {
        fail(ErrorCode::kINVALID_NODE,
            "tensor attribute \"" + name + "\" has a negative extent or more elements than a plugin field holds");
    }
    int64_t const count = *checked;
    auto raw = [&](PluginFieldType type, size_t size, auto const& field) {
        std::vector<uint8_t> bytes;
        if (tensor.has_raw_data())
        {
            bytes.assign(tensor.raw_data().begin(), tensor.raw_data().end());
        }
        else
        {
            bytes.resize(static_cast<size_t>(field.size()) * size);
            for (int i = 0; i < field.size(); ++i)
            {
                auto const value = field.Get(i);
                std::memcpy(bytes.data() + static_cast<size_t>(i) * size, &value, size);
            }
        }
        if (bytes.size() != checkedByteSize(count, size))
        {
            fail(ErrorCode::kINVALID_NODE, "tensor attribute \"" + name + "\" holds the wrong number of values");
        }
        out.add(name, type, bytes, static_cast<int32_t>(count));
    };
    switch (tensor.data_type())
    {
    case TensorProto::FLOAT: raw(PluginFieldType::kFLOAT32, 4, tensor.float_data()); break;
    case TensorProto::DOUBLE: raw(PluginFieldType::kFLOAT64, 8, tensor.double_data()); break;
    case TensorProto::INT32: raw(PluginFieldType::kINT32, 4, tensor.int32_data()); break;
    case TensorProto::INT16: raw(PluginFieldType::kINT16, 2, tensor.int32_data()); break;
    case TensorProto::INT8: raw(PluginFieldType::kINT8, 1, tensor.int32_data()); break;
    case TensorProto::FLOAT16: raw(PluginFieldType::kFLOAT16, 2, tensor.int32_data()); break;
    case TensorProto::BFLOAT16: raw(PluginFieldType::kBF16, 2, tensor.int32_data()); break;
    case TensorProto::STRING:
    {
        std::string joined;
        for (auto const& s : tensor.string_data())
        {
            joined += s;
        }
        out.add(name, PluginFieldType::kCHAR, std::vector<char>(joined.begin(), joined.end()),
            static_cast<int32_t>(joined.size()));
        break;
    }
    default:
        fail(ErrorCode::kUNSUPPORTED_NODE_ATTR,
            "tensor attribute \"" + name + "\" has element type " + std::to_string(tensor.data_type())
                + ", which cannot be passed to a plugin");
    }
}

void addAttributeField(PluginFields& out, AttributeProto const& attribute)
{
    std::string const& name = attribute.name();
    switch (attribute.type())
    {
    case AttributeProto::FLOAT: out.add(name, PluginFieldType::kFLOAT32, std::vector<float>{attribute.f()}, 1); break;
    // ONNX ints are 64-bit; plugins receive them narrowed to int32, as onnx-tensorrt passes them.
    case AttributeProto::INT:
        out.add(name, PluginFieldType::kINT32, std::vector<int32_t>{static_cast<int32_t>(attribute.i())}, 1);
        break;
    case AttributeProto::STRING:
        out.add(name, PluginFieldType::kCHAR, std::vector<char>(attribute.s().begin(), attribute.s().end()),
            static_cast<int32_t>(attribute.s().size()));
        break;
    case AttributeProto::FLOATS:
        out.add(name, PluginFieldType::kFLOAT32,
            std::vector<float>(attribute.floats().begin(), attribute.floats().end()), attribute.floats_size());
        break;
    case AttributeProto::INTS:
    {
        std::vector<int32_t> values;
        for (int64_t v : attribute.ints())
        {
            values.push_back(static_cast<int32_t>(v));
        }
        out.add(name, PluginFieldType::kINT32, values, attribute.ints_size());
        break;
    }
    case AttributeProto::STRINGS:
    {
        // Each string followed by its terminating NUL; the length counts every byte.
        std::vector<char> joined;
        for (auto const& s : attribute.strings())
        {
            joined.insert(joined.end(), s.begin(), s.end());
            joined.push_back('\0');
        }
        out.add(name, PluginFieldType::kCHAR, joined, static_cast<int32_t>(joined.size()));
        break;
    }
    case AttributeProto::TENSOR: addTensorField(out, name, attribute.t()); break;
    default:
        fail(ErrorCode::kUNSUPPORTED_NODE_ATTR,
            "attribute \"" + name + "\" is " + attributeTypeName(attribute.type())
                + ", which cannot be passed to a plugin");
    }
}

//! Kiln's field for a V3 creator that wants its node's input ranks (TensorRT's Python plugins get them with the
//! input types; IPluginV3OneBuild does not): a creator whose getFieldNames() names it gets an INT32 array of the
//! ranks of the node's tensor inputs (shape inputs left out), in their order.
constexpr char const* kInputRanksField = "__kiln_input_ranks";

//! The attributes named by the creator's getFieldNames(), converted; others are ignored. `inputRanks`, where
//! given, fills kInputRanksField.
PluginFields loadFields(ImportContext& ctx, Node const& node, nvinfer1::PluginFieldCollection const* wanted,
    std::vector<int32_t> const* inputRanks = nullptr)
{
    PluginFields out;
    if (wanted == nullptr)
    {
        return out;
    }
    for (int32_t i = 0; i < wanted->nbFields; ++i)
    {
        char const* fieldName = wanted->fields[i].name;
        if (fieldName == nullptr)
        {
            continue;
        }
        if (inputRanks != nullptr && std::strcmp(fieldName, kInputRanksField) == 0)
        {
            out.add(fieldName, PluginFieldType::kINT32, *inputRanks, static_cast<int32_t>(inputRanks->size()));
            continue;
        }
        AttributeProto const* attribute = node.find(fieldName);
        if (attribute == nullptr)
        {
            ctx.log(nvinfer1::ILogger::Severity::kWARNING,
                node.describe() + ": attribute \"" + fieldName
                    + "\" that the plugin creator names is missing. Ensure that the plugin creator has a default "
                      "value.");
            continue;
        }
        addAttributeField(out, *attribute);
    }
    return out;
}

std::vector<nvinfer1::ITensor*> nodeInputs(ImportContext& ctx, Node const& node, std::vector<int64_t> const& skip)
{
    std::vector<nvinfer1::ITensor*> inputs;
    for (int32_t i = 0; i < node.nbInputs(); ++i)
    {
        if (std::find(skip.begin(), skip.end(), i) != skip.end())
        {
            continue;
        }
        // Empty optional inputs become null entries, as onnx-tensorrt passes them.
        inputs.push_back(node.hasInput(i) ? &ctx.tensor(node.input(i)) : nullptr);
    }
    return inputs;
}

std::vector<Value> layerOutputs(nvinfer1::ILayer& layer)
{
    std::vector<Value> outputs;
    for (int32_t i = 0; i < layer.getNbOutputs(); ++i)
    {
        outputs.emplace_back(layer.getOutput(i));
    }
    return outputs;
}

std::string describeKey(PluginKey const& key)
{
    return "\"" + key.name + "\" version \"" + key.version + "\" namespace \"" + key.pluginNamespace + "\"";
}

std::vector<Value> importV3(
    ImportContext& ctx, Node const& node, nvinfer1::IPluginCreatorV3One& creator, PluginKey const& key)
{
    std::vector<int64_t> const shapeIndices = node.attrInts("tensorrt_plugin_shape_input_indices");
    std::vector<int32_t> inputRanks;
    for (nvinfer1::ITensor const* input : nodeInputs(ctx, node, shapeIndices))
    {
        inputRanks.push_back(input != nullptr ? input->getDimensions().nbDims : 0);
    }
    PluginFields fields = loadFields(ctx, node, creator.getFieldNames(), &inputRanks);
    nvinfer1::PluginFieldCollection const collection = fields.collection();
    nvinfer1::IPluginV3* plugin = nullptr;
    try
    {
        plugin = creator.createPlugin(node.displayName().c_str(), &collection, nvinfer1::TensorRTPhase::kBUILD);
    }
    catch (std::exception const& e)
    {
        fail(ErrorCode::kUNSUPPORTED_NODE, "plugin " + describeKey(key) + ": createPlugin threw: " + e.what());
    }
    if (plugin == nullptr)
    {
        fail(ErrorCode::kUNSUPPORTED_NODE, "plugin " + describeKey(key) + ": createPlugin returned null");
    }
    for (int64_t index : shapeIndices)
    {
        if (index < 0 || index >= node.nbInputs() || !node.hasInput(static_cast<int32_t>(index)))
        {
            delete plugin;
            fail(ErrorCode::kINVALID_NODE,
                "tensorrt_plugin_shape_input_indices names input " + std::to_string(index)
                    + ", which the node does not have");
        }
    }
    std::vector<nvinfer1::ITensor*> const inputs = nodeInputs(ctx, node, shapeIndices);
    std::vector<nvinfer1::ITensor*> shapeInputs;
    for (int64_t index : shapeIndices)
    {
        shapeInputs.push_back(&ctx.tensor(node.input(static_cast<int32_t>(index))));
    }
    nvinfer1::IPluginV3Layer* layer = ctx.network().addPluginV3(inputs.data(), static_cast<int32_t>(inputs.size()),
        shapeInputs.data(), static_cast<int32_t>(shapeInputs.size()), *plugin);
    ctx.plugins().keep(plugin);
    return layerOutputs(ctx.check(layer, "plugin"));
}

std::vector<Value> importV2(
    ImportContext& ctx, Node const& node, nvinfer1::IPluginCreator& creator, PluginKey const& key)
{
    if (node.hasAttribute("tensorrt_plugin_shape_input_indices"))
    {
        ctx.log(nvinfer1::ILogger::Severity::kWARNING,
            node.describe() + ": tensorrt_plugin_shape_input_indices is ignored for IPluginV2 plugins");
    }
    PluginFields fields = loadFields(ctx, node, creator.getFieldNames());
    nvinfer1::PluginFieldCollection const collection = fields.collection();
    nvinfer1::IPluginV2* plugin = nullptr;
    try
    {
        plugin = creator.createPlugin(node.displayName().c_str(), &collection);
    }
    catch (std::exception const& e)
    {
        fail(ErrorCode::kUNSUPPORTED_NODE, "plugin " + describeKey(key) + ": createPlugin threw: " + e.what());
    }
    if (plugin == nullptr)
    {
        fail(ErrorCode::kUNSUPPORTED_NODE, "plugin " + describeKey(key) + ": createPlugin returned null");
    }
    return addPluginV2Layer(ctx, node, plugin);
}

//! The creator for key, without the error that IPluginRegistry::getCreator logs for a missing one (the
//! parser asks about nodes that may well have none, and writes its own message when it matters).
nvinfer1::IPluginCreatorInterface* findCreatorQuietly(nvinfer1::IPluginRegistry& registry, PluginKey const& key)
{
    return findPluginCreator(registry, key.name.c_str(), key.version.c_str(), key.pluginNamespace.c_str());
}

} // namespace

PluginKey pluginKeyOf(::onnx::NodeProto const& node)
{
    PluginKey key{node.op_type(), "1", ""};
    for (AttributeProto const& attribute : node.attribute())
    {
        if (attribute.name() == "plugin_version" && attribute.type() == AttributeProto::STRING)
        {
            key.version = attribute.s();
        }
        else if (attribute.name() == "plugin_namespace" && attribute.type() == AttributeProto::STRING)
        {
            key.pluginNamespace = attribute.s();
        }
    }
    return key;
}

PluginKey pluginKeyOf(Node const& node)
{
    return pluginKeyOf(node.proto());
}

bool pluginRegistered(nvinfer1::INetworkDefinition& network, PluginKey const& key)
{
    return findCreatorQuietly(network.getBuilder().getPluginRegistry(), key) != nullptr;
}

std::string closestPluginNames(nvinfer1::IPluginRegistry& registry, PluginKey const& key)
{
    return describeClosestPluginCreators(registry, key.name.c_str(), key.version.c_str(), key.pluginNamespace.c_str());
}

std::vector<Value> addPluginV2Layer(ImportContext& ctx, Node const& node, nvinfer1::IPluginV2* plugin)
{
    std::vector<nvinfer1::ITensor*> const inputs = nodeInputs(ctx, node, {});
    nvinfer1::IPluginV2Layer* layer
        = ctx.network().addPluginV2(inputs.data(), static_cast<int32_t>(inputs.size()), *plugin);
    ctx.plugins().keep(plugin);
    return layerOutputs(ctx.check(layer, "plugin"));
}

std::vector<Value> importAsPlugin(ImportContext& ctx, Node const& node)
{
    PluginKey const key = pluginKeyOf(node);
    ctx.log(nvinfer1::ILogger::Severity::kINFO,
        "Searching for plugin: " + key.name + ", plugin_version: " + key.version
            + ", plugin_namespace: " + key.pluginNamespace);
    nvinfer1::IPluginRegistry& registry = ctx.network().getBuilder().getPluginRegistry();
    nvinfer1::IPluginCreatorInterface* creator = findCreatorQuietly(registry, key);
    if (creator == nullptr)
    {
        fail(ErrorCode::kUNSUPPORTED_NODE,
            "no importer for op \"" + key.name + "\" and no plugin registered as " + describeKey(key)
                + " (are the plugin name, version and namespace correct?). " + closestPluginNames(registry, key));
    }
    if (std::strcmp(creator->getInterfaceInfo().kind, "PLUGIN CREATOR_V1") == 0)
    {
        return importV2(ctx, node, *static_cast<nvinfer1::IPluginCreator*>(creator), key);
    }
    return importV3(ctx, node, *static_cast<nvinfer1::IPluginCreatorV3One*>(creator), key);
}

} // namespace kiln::onnxparser
