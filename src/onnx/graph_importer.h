// The main loop of a parse: initializers, graph inputs, every node through its importer (or the
// plugin fallback), then the graph outputs. The first failing node stops the import.
#pragma once

#include "onnx/import_context.h"
#include "onnx/parser_error.h"

#include <map>
#include <string>
#include <vector>

namespace kiln::onnxparser
{

struct ImportResult
{
    std::vector<ErrorRecord> errors;
    //! Each node's output tensors by node name (for IParser::getLayerOutputTensor).
    std::map<std::string, std::vector<nvinfer1::ITensor*>> nodeOutputs;
};

//! Imports model's graph into ctx's network. Never throws: problems become result.errors.
void importGraph(ImportContext& ctx, ::onnx::ModelProto const& model, ImportResult& result);

//! Imports a subgraph (an If branch) into ctx's network: its initializers and nodes, which may read the enclosing
//! graph's names. Returns the values of its outputs; its own names are unbound again afterwards. A failing node's
//! ImportError propagates, its message naming the subgraph's node.
std::vector<Value> importSubgraph(ImportContext& ctx, ::onnx::GraphProto const& graph);

//! Whether node has a built-in importer or a registered plugin (what supportsModel reports).
bool nodeSupported(nvinfer1::INetworkDefinition& network, ::onnx::NodeProto const& node);

} // namespace kiln::onnxparser
