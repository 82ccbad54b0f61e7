// TRT_PluginV2: a serialized IPluginV2 carried in the model (name, version, namespace, data), recreated
// with its creator's deserializePlugin, as onnx-tensorrt does.
#include "onnx/importer_table.h"
#include "onnx/import_error.h"
#include "onnx/plugin_fallback.h"

namespace kiln::onnxparser
{
namespace
{

std::vector<Value> importTrtPluginV2(ImportContext& ctx, Node const& node)
{
    PluginKey const key{node.attrString("name", ""), node.attrString("version", ""), node.attrString("namespace", "")};
    std::string const data = node.attrString("data", "");
    nvinfer1::IPluginRegistry& registry = ctx.network().getBuilder().getPluginRegistry();
    nvinfer1::IPluginCreator* creator
        = registry.getPluginCreator(key.name.c_str(), key.version.c_str(), key.pluginNamespace.c_str());
    if (creator == nullptr)
    {
        fail(ErrorCode::kUNSUPPORTED_NODE,
            "TRT_PluginV2 names plugin \"" + key.name + "\" version \"" + key.version + "\" namespace \""
                + key.pluginNamespace + "\", which has no registered IPluginCreator. "
                + closestPluginNames(registry, key));
    }
    nvinfer1::IPluginV2* plugin = nullptr;
    try
    {
        plugin = creator->deserializePlugin("", data.data(), data.size());
    }
    catch (std::exception const& e)
    {
        fail(ErrorCode::kUNSUPPORTED_NODE, "deserializePlugin of \"" + key.name + "\" threw: " + e.what());
    }
    if (plugin == nullptr)
    {
        fail(ErrorCode::kUNSUPPORTED_NODE, "deserializePlugin of \"" + key.name + "\" returned null");
    }
    return addPluginV2Layer(ctx, node, plugin);
}

} // namespace

ImporterRegistration const kPluginOpImporters(
    [](ImporterTable& table) { table.addForAnyDomain("TRT_PluginV2", importTrtPluginV2); });

} // namespace kiln::onnxparser
