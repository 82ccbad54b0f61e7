// onnx-tensorrt's plugin fallback: a node whose op_type has no importer (or that a plugin overrides)
// becomes a plugin layer. The plugin is looked up as (op_type, plugin_version or "1",
// plugin_namespace or ""); the creator's getFieldNames() decides which attributes are passed.
#pragma once

#include "onnx/import_context.h"
#include "onnx/node.h"

#include <string>
#include <vector>

namespace kiln::onnxparser
{

//! The (name, version, namespace) a node is looked up under.
struct PluginKey
{
    std::string name;
    std::string version;
    std::string pluginNamespace;
};
PluginKey pluginKeyOf(Node const& node);
PluginKey pluginKeyOf(::onnx::NodeProto const& node);

//! Whether the network's registry has a creator for node's plugin key.
bool pluginRegistered(nvinfer1::INetworkDefinition& network, PluginKey const& key);

//! Imports node as a plugin layer; fails (UNSUPPORTED_NODE) naming the op, the node and the closest
//! registered plugins when no creator matches.
std::vector<Value> importAsPlugin(ImportContext& ctx, Node const& node);

//! "Closest registered creators: ..." for a key that was not found (any IPluginRegistry).
std::string closestPluginNames(nvinfer1::IPluginRegistry& registry, PluginKey const& key);

//! Adds a V2 plugin layer over the node's inputs; the parser keeps plugin alive (see PluginOwner).
std::vector<Value> addPluginV2Layer(ImportContext& ctx, Node const& node, nvinfer1::IPluginV2* plugin);

} // namespace kiln::onnxparser
