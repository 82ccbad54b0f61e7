// Writes model.onnx: Kiln's bundled default model, a small image classifier with one custom
// plugin op. Written in C++ with the ONNX library's protobuf classes (Debian's libonnx-dev,
// which Kiln's parser already depends on), so generating it needs nothing from PyPI.
//
//   input [1,3,16,16] -> Conv 3x3 (8 channels, pad 1) -> Relu
//     -> MyCustomPlugin (per-channel y = x * weight[c] + bias[c], the seed plugin; domain "kiln.seed")
//     -> MaxPool 2x2 -> GlobalAveragePool -> Flatten -> Gemm (10 classes) -> Softmax -> probabilities [1,10]
//
// The weights come from a fixed formula, so the file is the same on every run and machine.
// Usage: generate_model OUTPUT.onnx
#include <onnx/onnx_pb.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

namespace
{

using onnx::AttributeProto;
using onnx::NodeProto;
using onnx::TensorProto;

//! n deterministic values in [-scale, scale].
std::vector<float> weights(size_t n, float scale, float phase)
{
    std::vector<float> values(n);
    for (size_t i = 0; i < n; ++i)
    {
        values[i] = scale * static_cast<float>(std::sin(0.7 * static_cast<double>(i) + phase));
    }
    return values;
}

void addInitializer(onnx::GraphProto& graph, std::string const& name, std::vector<int64_t> const& dims,
    std::vector<float> const& values)
{
    TensorProto* tensor = graph.add_initializer();
    tensor->set_name(name);
    tensor->set_data_type(TensorProto::FLOAT);
    for (int64_t d : dims)
    {
        tensor->add_dims(d);
    }
    for (float v : values)
    {
        tensor->add_float_data(v);
    }
}

NodeProto* addNode(onnx::GraphProto& graph, std::string const& op, std::string const& name,
    std::vector<std::string> const& inputs, std::string const& output)
{
    NodeProto* node = graph.add_node();
    node->set_op_type(op);
    node->set_name(name);
    for (auto const& input : inputs)
    {
        node->add_input(input);
    }
    node->add_output(output);
    return node;
}

void addInts(NodeProto* node, std::string const& name, std::vector<int64_t> const& values)
{
    AttributeProto* a = node->add_attribute();
    a->set_name(name);
    a->set_type(AttributeProto::INTS);
    for (int64_t v : values)
    {
        a->add_ints(v);
    }
}

void addInt(NodeProto* node, std::string const& name, int64_t value)
{
    AttributeProto* a = node->add_attribute();
    a->set_name(name);
    a->set_type(AttributeProto::INT);
    a->set_i(value);
}

void addFloats(NodeProto* node, std::string const& name, std::vector<float> const& values)
{
    AttributeProto* a = node->add_attribute();
    a->set_name(name);
    a->set_type(AttributeProto::FLOATS);
    for (float v : values)
    {
        a->add_floats(v);
    }
}

void setTensorType(onnx::ValueInfoProto* value, std::string const& name, std::vector<int64_t> const& dims)
{
    value->set_name(name);
    onnx::TypeProto_Tensor* type = value->mutable_type()->mutable_tensor_type();
    type->set_elem_type(TensorProto::FLOAT);
    for (int64_t d : dims)
    {
        type->mutable_shape()->add_dim()->set_dim_value(d);
    }
}

onnx::ModelProto makeModel()
{
    constexpr int64_t kChannels = 8;
    constexpr int64_t kClasses = 10;
    onnx::ModelProto model;
    model.set_ir_version(8);
    model.set_producer_name("kiln examples/default_model/generate_model");
    model.set_doc_string("Kiln's default model: a small CNN with the seed plugin MyCustomPlugin as a custom op");
    onnx::OperatorSetIdProto* opset = model.add_opset_import();
    opset->set_domain("");
    opset->set_version(13);
    onnx::OperatorSetIdProto* plugins = model.add_opset_import();
    plugins->set_domain("kiln.seed");
    plugins->set_version(1);

    onnx::GraphProto& graph = *model.mutable_graph();
    graph.set_name("kiln_default_cnn");
    setTensorType(graph.add_input(), "input", {1, 3, 16, 16});
    setTensorType(graph.add_output(), "probabilities", {1, kClasses});

    addInitializer(graph, "conv1.weight", {kChannels, 3, 3, 3}, weights(kChannels * 3 * 3 * 3, 0.4F, 0.0F));
    addInitializer(graph, "conv1.bias", {kChannels}, weights(kChannels, 0.1F, 1.0F));
    addInitializer(graph, "fc.weight", {kClasses, kChannels}, weights(kClasses * kChannels, 0.8F, 2.0F));
    addInitializer(graph, "fc.bias", {kClasses}, weights(kClasses, 0.05F, 3.0F));

    NodeProto* conv = addNode(graph, "Conv", "conv1", {"input", "conv1.weight", "conv1.bias"}, "conv1_out");
    addInts(conv, "kernel_shape", {3, 3});
    addInts(conv, "pads", {1, 1, 1, 1});
    addNode(graph, "Relu", "relu1", {"conv1_out"}, "relu1_out");

    // The custom op: no ONNX importer knows it, so the parser looks it up in the plugin registry by
    // op_type (and plugin_version, default "1") and passes the attributes the creator names as fields.
    NodeProto* custom = addNode(graph, "MyCustomPlugin", "channel_scale", {"relu1_out"}, "channel_scale_out");
    custom->set_domain("kiln.seed");
    addInt(custom, "in_channel", kChannels);
    addFloats(custom, "weight", weights(kChannels, 1.0F, 0.5F));
    addFloats(custom, "bias", weights(kChannels, 0.2F, 4.0F));

    NodeProto* pool = addNode(graph, "MaxPool", "pool1", {"channel_scale_out"}, "pool1_out");
    addInts(pool, "kernel_shape", {2, 2});
    addInts(pool, "strides", {2, 2});
    addNode(graph, "GlobalAveragePool", "gap", {"pool1_out"}, "gap_out");
    NodeProto* flatten = addNode(graph, "Flatten", "flatten", {"gap_out"}, "features");
    addInt(flatten, "axis", 1);
    NodeProto* fc = addNode(graph, "Gemm", "fc", {"features", "fc.weight", "fc.bias"}, "logits");
    addInt(fc, "transB", 1);
    NodeProto* softmax = addNode(graph, "Softmax", "softmax", {"logits"}, "probabilities");
    addInt(softmax, "axis", 1);
    return model;
}

} // namespace

int main(int argc, char** argv)
{
    if (argc != 2)
    {
        std::fprintf(stderr, "usage: %s OUTPUT.onnx\n", argv[0]);
        return 2;
    }
    std::string bytes;
    // Deterministic serialization: the same bytes every time, so the checked-in file can be verified.
    if (!makeModel().SerializeToString(&bytes))
    {
        std::fprintf(stderr, "generate_model: cannot serialize the model\n");
        return 1;
    }
    std::ofstream file(argv[1], std::ios::binary);
    if (!file.write(bytes.data(), static_cast<std::streamsize>(bytes.size())))
    {
        std::fprintf(stderr, "generate_model: cannot write %s\n", argv[1]);
        return 1;
    }
    return 0;
}
