#include "test_models.h"

#include <onnx/onnx_pb.h>

#include <fstream>
#include <vector>

namespace kiln::test
{
namespace
{

onnx::ModelProto emptyModel(std::string const& name)
{
    onnx::ModelProto model;
    model.set_ir_version(8);
    model.set_producer_name("kiln tests/tools");
    onnx::OperatorSetIdProto* opset = model.add_opset_import();
    opset->set_domain("");
    opset->set_version(13);
    model.mutable_graph()->set_name(name);
    return model;
}

//! dims: a negative extent becomes the symbolic dimension "N"; none is a 0-D tensor.
void addValue(google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>* list, std::string const& name,
    std::vector<int64_t> const& dims)
{
    onnx::ValueInfoProto* value = list->Add();
    value->set_name(name);
    onnx::TypeProto_Tensor* type = value->mutable_type()->mutable_tensor_type();
    type->set_elem_type(onnx::TensorProto::FLOAT);
    onnx::TensorShapeProto* shape = type->mutable_shape(); // present even without dims: a known rank of 0
    for (int64_t d : dims)
    {
        auto* dim = shape->add_dim();
        d < 0 ? dim->set_dim_param("N") : dim->set_dim_value(d);
    }
}

onnx::NodeProto& addNode(onnx::GraphProto& graph, std::string const& op, std::string const& name,
    std::vector<std::string> const& inputs, std::string const& output)
{
    onnx::NodeProto* node = graph.add_node();
    node->set_op_type(op);
    node->set_name(name);
    for (auto const& input : inputs)
    {
        node->add_input(input);
    }
    node->add_output(output);
    return *node;
}

void save(onnx::ModelProto const& model, std::string const& path)
{
    std::ofstream file(path, std::ios::binary);
    model.SerializeToOstream(&file);
}

} // namespace

void writeDoubleReluModel(std::string const& path)
{
    onnx::ModelProto model = emptyModel("double_relu");
    onnx::GraphProto& graph = *model.mutable_graph();
    addValue(graph.mutable_input(), "x", {-1, 3});
    addValue(graph.mutable_output(), "y", {-1, 3});
    addNode(graph, "Relu", "relu", {"x"}, "r");
    addNode(graph, "Add", "twice", {"r", "r"}, "y");
    save(model, path);
}

void writeNamedReluModel(std::string const& path, std::string const& name)
{
    onnx::ModelProto model = emptyModel("named_relu");
    onnx::GraphProto& graph = *model.mutable_graph();
    addValue(graph.mutable_input(), "x", {2, 3});
    addValue(graph.mutable_output(), "y", {2, 3});
    addNode(graph, "Relu", name, {"x"}, "y");
    save(model, path);
}

void writeHostileNamesModel(std::string const& path)
{
    std::string const input = std::string(kHostileInputName);
    std::string const output = std::string(kHostileOutputName);
    onnx::ModelProto model = emptyModel("net\x1b]0;retitled\x07");
    onnx::GraphProto& graph = *model.mutable_graph();
    addValue(graph.mutable_input(), input, {2, 3});
    addValue(graph.mutable_output(), output, {2, 3});
    addNode(graph, "Relu", "relu\x1b[2J\x1b[H", {input},
        "r\xc2\x9b"
        "31m");
    addNode(graph, "Add",
        "twice \xe2\x80\xae"
        "desrever",
        {"r\xc2\x9b"
         "31m",
            "r\xc2\x9b"
            "31m"},
        output);
    save(model, path);
}

void writeScaledReluModel(std::string const& path)
{
    onnx::ModelProto model = emptyModel("scaled_relu");
    onnx::GraphProto& graph = *model.mutable_graph();
    addValue(graph.mutable_input(), "x", {-1, 3});
    addValue(graph.mutable_input(), "s", {});
    addValue(graph.mutable_output(), "y", {-1, 3});
    addNode(graph, "Relu", "relu", {"x"}, "r");
    addNode(graph, "Mul", "scale", {"r", "s"}, "y");
    save(model, path);
}

void writeReshapeByInputModel(std::string const& path)
{
    onnx::ModelProto model = emptyModel("reshape_by_input");
    onnx::GraphProto& graph = *model.mutable_graph();
    addValue(graph.mutable_input(), "x", {6});
    addValue(graph.mutable_input(), "s", {2});
    graph.mutable_input(1)->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::INT64);
    addValue(graph.mutable_output(), "y", {-1, -1});
    addNode(graph, "Reshape", "reshape", {"x", "s"}, "y");
    save(model, path);
}

void writeGatherByInputModel(std::string const& path)
{
    onnx::ModelProto model = emptyModel("gather_by_input");
    onnx::GraphProto& graph = *model.mutable_graph();
    addValue(graph.mutable_input(), "x", {4, 2});
    addValue(graph.mutable_input(), "i", {3});
    graph.mutable_input(1)->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::INT64);
    addValue(graph.mutable_output(), "y", {3, 2});
    addNode(graph, "Gather", "gather", {"x", "i"}, "y");
    save(model, path);
}

void writeNonZeroModel(std::string const& path)
{
    onnx::ModelProto model = emptyModel("non_zero");
    onnx::GraphProto& graph = *model.mutable_graph();
    addValue(graph.mutable_input(), "x", {-1});
    addValue(graph.mutable_output(), "y", {1, -1});
    addNode(graph, "NonZero", "positions", {"x"}, "indices");
    onnx::NodeProto& cast = addNode(graph, "Cast", "to_float", {"indices"}, "y");
    onnx::AttributeProto* to = cast.add_attribute();
    to->set_name("to");
    to->set_type(onnx::AttributeProto::INT);
    to->set_i(onnx::TensorProto::FLOAT);
    save(model, path);
}

void writeWrongPluginModel(std::string const& path)
{
    onnx::ModelProto model = emptyModel("wrong_plugin");
    onnx::GraphProto& graph = *model.mutable_graph();
    addValue(graph.mutable_input(), "x", {1, 8});
    addValue(graph.mutable_output(), "y", {1, 8});
    addNode(graph, "Relu", "relu_in", {"x"}, "a");
    addNode(graph, "HalfWrongDoubler", "doubler", {"a"}, "b");
    addNode(graph, "Relu", "relu_out", {"b"}, "y");
    save(model, path);
}

void writeGeluPluginModel(std::string const& path)
{
    onnx::ModelProto model = emptyModel("gelu_plugin");
    onnx::GraphProto& graph = *model.mutable_graph();
    addValue(graph.mutable_input(), "x", {2, 2});
    addValue(graph.mutable_output(), "y", {2, 2});
    onnx::NodeProto& gelu = addNode(graph, "CustomGeluPluginDynamic", "gelu", {"x"}, "y");
    onnx::AttributeProto* typeId = gelu.add_attribute();
    typeId->set_name("type_id");
    typeId->set_type(onnx::AttributeProto::INT);
    typeId->set_i(0);
    onnx::AttributeProto* bias = gelu.add_attribute();
    bias->set_name("bias");
    bias->set_type(onnx::AttributeProto::FLOATS);
    bias->add_floats(0.25F);
    bias->add_floats(-0.75F);
    save(model, path);
}

void writeReluMinusConstantModel(std::string const& path)
{
    onnx::ModelProto model = emptyModel("relu_minus_constant");
    onnx::GraphProto& graph = *model.mutable_graph();
    addValue(graph.mutable_input(), "x", {2, 3});
    addValue(graph.mutable_output(), "y", {2, 3});
    onnx::TensorProto* c = graph.add_initializer();
    c->set_name("c");
    c->set_data_type(onnx::TensorProto::FLOAT);
    c->add_dims(1);
    c->add_dims(3);
    for (float const value : {0.5F, 0.25F, 0.125F})
    {
        c->add_float_data(value);
    }
    addNode(graph, "Relu", "relu", {"x"}, "r");
    addNode(graph, "Sub", "minus", {"r", "c"}, "y");
    save(model, path);
}

void writeMatMulModel(std::string const& path)
{
    onnx::ModelProto model = emptyModel("matmul");
    onnx::GraphProto& graph = *model.mutable_graph();
    addValue(graph.mutable_input(), "x", {2, 3});
    addValue(graph.mutable_output(), "y", {2, 2});
    onnx::TensorProto& weights = *graph.add_initializer();
    weights.set_name("W");
    weights.set_data_type(onnx::TensorProto::FLOAT);
    weights.add_dims(3);
    weights.add_dims(2);
    for (float value : {0.5F, -0.25F, 1.0F, 0.3F, -0.75F, 0.1F})
    {
        weights.add_float_data(value);
    }
    addNode(graph, "MatMul", "matmul", {"x", "W"}, "y");
    save(model, path);
}

} // namespace kiln::test
