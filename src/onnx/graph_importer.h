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

//! Whether node has a built-in importer or a registered plugin (what supportsModel reports).
bool nodeSupported(nvinfer1::INetworkDefinition& network, ::onnx::NodeProto const& node);

} // namespace kiln::onnxparser
