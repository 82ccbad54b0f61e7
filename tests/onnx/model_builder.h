// Builds small ONNX models in C++ with the protobuf API, for the parser's tests.
#pragma once

#include "onnx/onnx_proto.h"

#include <string>
#include <vector>

namespace kiln::test
{

class ModelBuilder
{
public:
    explicit ModelBuilder(int64_t opset = 17)
    {
        model.set_ir_version(8);
        auto* entry = model.add_opset_import();
        entry->set_domain("");
        entry->set_version(opset);
        model.mutable_graph()->set_name("test");
    }

    //! dims: -1 becomes the symbolic dimension "N".
    void input(std::string const& name, int32_t type, std::vector<int64_t> const& dims)
    {
        describe(model.mutable_graph()->add_input(), name, type, dims);
    }
    void output(std::string const& name, int32_t type)
    {
        auto* value = model.mutable_graph()->add_output();
        value->set_name(name);
        value->mutable_type()->mutable_tensor_type()->set_elem_type(type);
    }
    ::onnx::TensorProto& floats(
        std::string const& name, std::vector<int64_t> const& dims, std::vector<float> const& values)
    {
        auto* tensor = model.mutable_graph()->add_initializer();
        tensor->set_name(name);
        tensor->set_data_type(::onnx::TensorProto::FLOAT);
        for (int64_t d : dims)
        {
            tensor->add_dims(d);
        }
        for (float v : values)
        {
            tensor->add_float_data(v);
        }
        return *tensor;
    }
    ::onnx::TensorProto& int64s(
        std::string const& name, std::vector<int64_t> const& dims, std::vector<int64_t> const& values)
    {
        auto* tensor = model.mutable_graph()->add_initializer();
        tensor->set_name(name);
        tensor->set_data_type(::onnx::TensorProto::INT64);
        for (int64_t d : dims)
        {
            tensor->add_dims(d);
        }
        for (int64_t v : values)
        {
            tensor->add_int64_data(v);
        }
        return *tensor;
    }
    ::onnx::NodeProto& node(std::string const& op, std::vector<std::string> const& inputs,
        std::vector<std::string> const& outputs, std::string const& name = "")
    {
        auto* node = model.mutable_graph()->add_node();
        node->set_op_type(op);
        node->set_name(name);
        for (auto const& i : inputs)
        {
            node->add_input(i);
        }
        for (auto const& o : outputs)
        {
            node->add_output(o);
        }
        return *node;
    }
    std::string bytes() const
    {
        return model.SerializeAsString();
    }

    ::onnx::ModelProto model;

private:
    static void describe(
        ::onnx::ValueInfoProto* value, std::string const& name, int32_t type, std::vector<int64_t> const& dims)
    {
        value->set_name(name);
        auto* tensorType = value->mutable_type()->mutable_tensor_type();
        tensorType->set_elem_type(type);
        auto* shape = tensorType->mutable_shape();
        for (int64_t d : dims)
        {
            auto* dim = shape->add_dim();
            if (d < 0)
            {
                dim->set_dim_param("N");
            }
            else
            {
                dim->set_dim_value(d);
            }
        }
    }
};

inline ::onnx::AttributeProto& addAttribute(
    ::onnx::NodeProto& node, std::string const& name, ::onnx::AttributeProto::AttributeType type)
{
    auto* attribute = node.add_attribute();
    attribute->set_name(name);
    attribute->set_type(type);
    return *attribute;
}
inline void setInt(::onnx::NodeProto& node, std::string const& name, int64_t value)
{
    addAttribute(node, name, ::onnx::AttributeProto::INT).set_i(value);
}
inline void setFloat(::onnx::NodeProto& node, std::string const& name, float value)
{
    addAttribute(node, name, ::onnx::AttributeProto::FLOAT).set_f(value);
}
inline void setString(::onnx::NodeProto& node, std::string const& name, std::string const& value)
{
    addAttribute(node, name, ::onnx::AttributeProto::STRING).set_s(value);
}
inline void setInts(::onnx::NodeProto& node, std::string const& name, std::vector<int64_t> const& values)
{
    auto& attribute = addAttribute(node, name, ::onnx::AttributeProto::INTS);
    for (int64_t v : values)
    {
        attribute.add_ints(v);
    }
}
inline void setFloats(::onnx::NodeProto& node, std::string const& name, std::vector<float> const& values)
{
    auto& attribute = addAttribute(node, name, ::onnx::AttributeProto::FLOATS);
    for (float v : values)
    {
        attribute.add_floats(v);
    }
}

} // namespace kiln::test
