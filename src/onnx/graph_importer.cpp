#include "onnx/graph_importer.h"

#include "onnx/import_error.h"
#include "onnx/importer_table.h"
#include "onnx/network_helpers.h"
#include "onnx/plugin_fallback.h"

#include <set>
#include <unordered_map>

namespace kiln::onnxparser
{
namespace
{

using Severity = nvinfer1::ILogger::Severity;

void addInitializers(ImportContext& ctx, ::onnx::GraphProto const& graph)
{
    for (::onnx::TensorProto const& initializer : graph.initializer())
    {
        ctx.define(initializer.name(), Value(readTensor(initializer, ctx.modelDir(), ctx.store())));
    }
}

//! A graph input's dimensions as the model declares them: symbolic (dim_param) and unknown extents are -1, given at
//! run time.
nvinfer1::Dims declaredDims(::onnx::ValueInfoProto const& input)
{
    auto const& tensorType = input.type().tensor_type();
    if (!tensorType.has_shape())
    {
        fail(ErrorCode::kUNSUPPORTED_GRAPH, "graph input \"" + input.name() + "\" has no shape (its rank is needed)");
    }
    auto const& shape = tensorType.shape();
    if (shape.dim_size() > nvinfer1::Dims::MAX_DIMS)
    {
        fail(ErrorCode::kUNSUPPORTED_GRAPH,
            "graph input \"" + input.name() + "\" has rank " + std::to_string(shape.dim_size())
                + "; Kiln supports up to " + std::to_string(nvinfer1::Dims::MAX_DIMS));
    }
    nvinfer1::Dims dims{};
    dims.nbDims = shape.dim_size();
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        auto const& dim = shape.dim(i);
        if (dim.has_dim_value() && dim.dim_value() < 0)
        {
            fail(ErrorCode::kINVALID_GRAPH,
                "graph input \"" + input.name() + "\" has extent " + std::to_string(dim.dim_value()) + " at axis "
                    + std::to_string(i) + " (an unknown extent is a dim_param or no value, not a negative one)");
        }
        dims.d[i] = dim.has_dim_value() ? dim.dim_value() : -1;
    }
    return dims;
}

void addInput(ImportContext& ctx, ::onnx::ValueInfoProto const& input)
{
    if (!input.type().has_tensor_type())
    {
        fail(ErrorCode::kUNSUPPORTED_GRAPH, "graph input \"" + input.name() + "\" is not a tensor");
    }
    int32_t const elementType = input.type().tensor_type().elem_type();
    std::optional<nvinfer1::DataType> const type = kilnType(elementType);
    if (!type || elementType == ::onnx::TensorProto::DOUBLE)
    {
        fail(ErrorCode::kUNSUPPORTED_NODE_DATATYPE,
            "graph input \"" + input.name() + "\" has element type " + onnxTypeName(elementType)
                + ", which Kiln does not support");
    }
    nvinfer1::Dims const dims = declaredDims(input);
    nvinfer1::ITensor* tensor = ctx.network().addInput(input.name().c_str(), *type, dims);
    if (tensor == nullptr)
    {
        fail(ErrorCode::kINVALID_GRAPH, "the network rejected graph input \"" + input.name() + "\"");
    }
    auto const& shape = input.type().tensor_type().shape();
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        if (shape.dim(i).has_dim_param())
        {
            tensor->setDimensionName(i, shape.dim(i).dim_param().c_str());
        }
    }
    ctx.define(input.name(), Value(tensor));
}

void addInputs(ImportContext& ctx, ::onnx::GraphProto const& graph)
{
    std::set<std::string> names;
    for (::onnx::ValueInfoProto const& input : graph.input())
    {
        if (!names.insert(input.name()).second)
        {
            fail(ErrorCode::kINVALID_GRAPH, "graph input \"" + input.name() + "\" is listed more than once");
        }
        // Initializers were bound first (models for IR version < 4 list them as inputs too).
        if (ctx.find(input.name()) == nullptr)
        {
            addInput(ctx, input);
        }
    }
}

std::vector<Value> resolveInputs(ImportContext& ctx, ::onnx::NodeProto const& proto)
{
    std::vector<Value> inputs;
    for (std::string const& name : proto.input())
    {
        if (name.empty())
        {
            inputs.emplace_back();
            continue;
        }
        Value const* value = ctx.find(name);
        if (value == nullptr)
        {
            fail(ErrorCode::kINVALID_GRAPH,
                "input \"" + name
                    + "\" is neither a graph input, an initializer, nor an output of an earlier node "
                      "(is the graph topologically sorted?)");
        }
        inputs.push_back(*value);
    }
    return inputs;
}

std::vector<Value> dispatch(ImportContext& ctx, Node const& node)
{
    // An op of a domain other than ONNX's is that domain's custom op, even where it shares a standard op's name:
    // it goes to the plugin registry, as ops no importer knows do.
    Importer const importer = builtinImporters().find(node.proto().domain(), node.opType());
    // As onnx-tensorrt: a plugin replaces a built-in op when asked to (flag or plugin_namespace attribute)
    // and one is registered.
    bool const pluginRequested = ctx.flag(nvonnxparser::OnnxParserFlag::kENABLE_PLUGIN_OVERRIDE)
        || node.hasAttribute("plugin_namespace");
    if (importer != nullptr && !(pluginRequested && pluginRegistered(ctx.network(), pluginKeyOf(node))))
    {
        return importer(ctx, node);
    }
    if (importer == nullptr)
    {
        ctx.log(Severity::kINFO,
            "No importer registered for op: " + node.opType()
                + (isDefaultDomain(node.proto().domain()) ? "" : " of domain " + node.proto().domain())
                + ". Attempting to import as plugin.");
    }
    return importAsPlugin(ctx, node);
}

void bindOutputs(ImportContext& ctx, Node const& node, std::vector<Value> const& outputs,
    std::set<nvinfer1::ITensor*>& namedTensors, ImportResult& result)
{
    std::vector<nvinfer1::ITensor*>& recorded = result.nodeOutputs[node.displayName()];
    for (int32_t i = 0; i < node.nbOutputs(); ++i)
    {
        std::string const& name = node.proto().output(i);
        if (name.empty())
        {
            continue;
        }
        if (i >= static_cast<int32_t>(outputs.size()) || outputs[i].empty())
        {
            fail(ErrorCode::kUNSUPPORTED_NODE,
                "output " + std::to_string(i) + " (\"" + name + "\") is not supported by Kiln's importer");
        }
        Value const& value = outputs[i];
        if (value.isTensor())
        {
            nvinfer1::ITensor* tensor = value.tensor();
            // A tensor keeps the first ONNX name it gets (Identity-like importers pass tensors through).
            if (!tensor->isNetworkInput() && namedTensors.insert(tensor).second)
            {
                tensor->setName(name.c_str());
            }
            recorded.push_back(tensor);
        }
        ctx.define(name, value);
    }
}

void markOutputs(ImportContext& ctx, ::onnx::GraphProto const& graph, std::set<nvinfer1::ITensor*>& namedTensors)
{
    std::set<nvinfer1::ITensor*> marked;
    std::set<std::string> names;
    for (::onnx::ValueInfoProto const& output : graph.output())
    {
        // Outputs are bound by name: a second output of one name would be a network output no binding can address.
        if (!names.insert(output.name()).second)
        {
            fail(ErrorCode::kINVALID_GRAPH, "graph output \"" + output.name() + "\" is listed more than once");
        }
        ctx.beginNode("output " + output.name());
        Value const* value = ctx.find(output.name());
        if (value == nullptr || value->empty())
        {
            fail(ErrorCode::kINVALID_GRAPH, "graph output \"" + output.name() + "\" is not produced by any node");
        }
        nvinfer1::ITensor* tensor = &ctx.tensor(*value);
        // An output needs a tensor of its own name: copy inputs, tensors named otherwise, repeated outputs.
        bool const shared = tensor->isNetworkInput() || marked.count(tensor) > 0
            || std::string(tensor->getName()) != output.name();
        if (shared)
        {
            tensor = ctx.check(ctx.network().addIdentity(*tensor), "identity").getOutput(0);
        }
        if (output.type().has_tensor_type())
        {
            int32_t const elementType = output.type().tensor_type().elem_type();
            std::optional<nvinfer1::DataType> const declared = kilnType(elementType);
            if (declared && elementType != ::onnx::TensorProto::DOUBLE && *declared != tensor->getType())
            {
                tensor = &castTo(ctx, *tensor, *declared);
            }
        }
        tensor->setName(output.name().c_str());
        namedTensors.insert(tensor);
        marked.insert(tensor);
        ctx.network().markOutput(*tensor);
    }
}

//! Imports graph's nodes in order; `current` is the node being imported (for the caller's error record).
void importNodes(ImportContext& ctx, ::onnx::GraphProto const& graph, std::set<nvinfer1::ITensor*>& namedTensors,
    ImportResult& result, std::unique_ptr<Node>& current)
{
    for (int32_t index = 0; index < graph.node_size(); ++index)
    {
        ::onnx::NodeProto const& proto = graph.node(index);
        current = std::make_unique<Node>(proto, index, std::vector<Value>{}); // named while its inputs resolve
        ctx.beginNode(current->displayName());
        current = std::make_unique<Node>(proto, index, resolveInputs(ctx, proto));
        ctx.log(Severity::kVERBOSE, "Importing " + current->describe());
        std::vector<Value> const outputs = dispatch(ctx, *current);
        bindOutputs(ctx, *current, outputs, namedTensors, result);
    }
}

ErrorRecord recordFor(Node const* node, ErrorCode code, std::string const& description)
{
    ErrorRecord record;
    record.code = code;
    record.function = "importGraph";
    if (node != nullptr)
    {
        record.node = node->index();
        record.nodeName = node->proto().name();
        record.nodeOperator = node->opType();
        record.description = "In " + node->describe() + ": " + description;
    }
    else
    {
        record.description = description;
    }
    return record;
}

} // namespace

std::vector<Value> importSubgraph(ImportContext& ctx, ::onnx::GraphProto const& graph)
{
    std::unordered_map<std::string, Value> const enclosing = ctx.names();
    addInitializers(ctx, graph);
    // The enclosing graph's tensors keep their names when a branch passes them through (Identity).
    std::set<nvinfer1::ITensor*> namedTensors;
    for (auto const& entry : enclosing)
    {
        if (entry.second.isTensor())
        {
            namedTensors.insert(entry.second.tensor());
        }
    }
    ImportResult unrecorded; // IParser::getLayerOutputTensor names the main graph's nodes only
    std::unique_ptr<Node> current;
    try
    {
        importNodes(ctx, graph, namedTensors, unrecorded, current);
    }
    catch (ImportError const& e)
    {
        fail(e.code(), "in subgraph \"" + graph.name() + "\", " + current->describe() + ": " + e.what());
    }
    std::vector<Value> outputs;
    for (::onnx::ValueInfoProto const& output : graph.output())
    {
        Value const* value = ctx.find(output.name());
        if (value == nullptr || value->empty())
        {
            fail(ErrorCode::kINVALID_GRAPH,
                "subgraph \"" + graph.name() + "\" output \"" + output.name() + "\" is not produced by any node");
        }
        outputs.push_back(*value);
    }
    ctx.restoreNames(enclosing);
    return outputs;
}

bool nodeSupported(nvinfer1::INetworkDefinition& network, ::onnx::NodeProto const& node)
{
    return builtinImporters().find(node.domain(), node.op_type()) != nullptr
        || pluginRegistered(network, pluginKeyOf(node));
}

void importGraph(ImportContext& ctx, ::onnx::ModelProto const& model, ImportResult& result)
{
    ::onnx::GraphProto const& graph = model.graph();
    std::unique_ptr<Node> current;
    try
    {
        addInitializers(ctx, graph);
        addInputs(ctx, graph);
        std::set<nvinfer1::ITensor*> namedTensors;
        importNodes(ctx, graph, namedTensors, result, current);
        current.reset();
        markOutputs(ctx, graph, namedTensors);
    }
    catch (ImportError const& e)
    {
        result.errors.push_back(recordFor(current.get(), e.code(), e.what()));
    }
    catch (std::bad_alloc const&)
    {
        result.errors.push_back(recordFor(current.get(), ErrorCode::kMEM_ALLOC_FAILED, "out of memory"));
    }
    catch (std::exception const& e)
    {
        result.errors.push_back(recordFor(current.get(), ErrorCode::kINTERNAL_ERROR, e.what()));
    }
}

} // namespace kiln::onnxparser
