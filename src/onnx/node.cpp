#include "onnx/node.h"

#include "onnx/import_error.h"

namespace kiln::onnxparser
{

using ::onnx::AttributeProto;

char const* attributeTypeName(int32_t type)
{
    switch (type)
    {
    case AttributeProto::FLOAT: return "FLOAT";
    case AttributeProto::INT: return "INT";
    case AttributeProto::STRING: return "STRING";
    case AttributeProto::TENSOR: return "TENSOR";
    case AttributeProto::GRAPH: return "GRAPH";
    case AttributeProto::SPARSE_TENSOR: return "SPARSE_TENSOR";
    case AttributeProto::TYPE_PROTO: return "TYPE_PROTO";
    case AttributeProto::FLOATS: return "FLOATS";
    case AttributeProto::INTS: return "INTS";
    case AttributeProto::STRINGS: return "STRINGS";
    case AttributeProto::TENSORS: return "TENSORS";
    case AttributeProto::GRAPHS: return "GRAPHS";
    default: return "UNDEFINED";
    }
}

std::string Node::displayName() const
{
    if (!mProto.name().empty())
    {
        return mProto.name();
    }
    return mProto.output_size() > 0 ? mProto.output(0) : mProto.op_type() + "_" + std::to_string(mIndex);
}

std::string Node::describe() const
{
    return "node " + std::to_string(mIndex) + " \"" + displayName() + "\" (" + mProto.op_type() + ")";
}

Value const& Node::input(int32_t i) const
{
    if (!hasInput(i))
    {
        fail(ErrorCode::kINVALID_NODE, "input " + std::to_string(i) + " is required but missing");
    }
    return mInputs[static_cast<size_t>(i)];
}

AttributeProto const* Node::find(std::string const& name) const
{
    for (AttributeProto const& attribute : mProto.attribute())
    {
        if (attribute.name() == name)
        {
            return &attribute;
        }
    }
    return nullptr;
}

AttributeProto const& Node::expect(std::string const& name, AttributeProto::AttributeType type) const
{
    AttributeProto const* attribute = find(name);
    if (attribute == nullptr)
    {
        fail(ErrorCode::kINVALID_NODE, "attribute \"" + name + "\" is required but missing");
    }
    // Old exporters leave `type` unset; then the field that holds a value decides.
    if (attribute->type() != type && attribute->type() != AttributeProto::UNDEFINED)
    {
        fail(ErrorCode::kUNSUPPORTED_NODE_ATTR,
            "attribute \"" + name + "\" is " + attributeTypeName(attribute->type()) + ", expected "
                + attributeTypeName(type));
    }
    return *attribute;
}

int64_t Node::attrInt(std::string const& name, int64_t fallback) const
{
    return hasAttribute(name) ? attrInt(name) : fallback;
}

int64_t Node::attrInt(std::string const& name) const
{
    return expect(name, AttributeProto::INT).i();
}

::onnx::GraphProto const& Node::attrGraph(std::string const& name) const
{
    return expect(name, AttributeProto::GRAPH).g();
}

float Node::attrFloat(std::string const& name, float fallback) const
{
    return hasAttribute(name) ? expect(name, AttributeProto::FLOAT).f() : fallback;
}

std::string Node::attrString(std::string const& name, std::string const& fallback) const
{
    return hasAttribute(name) ? expect(name, AttributeProto::STRING).s() : fallback;
}

std::vector<int64_t> Node::attrInts(std::string const& name, std::vector<int64_t> fallback) const
{
    if (!hasAttribute(name))
    {
        return fallback;
    }
    auto const& values = expect(name, AttributeProto::INTS).ints();
    return std::vector<int64_t>(values.begin(), values.end());
}

std::vector<float> Node::attrFloats(std::string const& name, std::vector<float> fallback) const
{
    if (!hasAttribute(name))
    {
        return fallback;
    }
    auto const& values = expect(name, AttributeProto::FLOATS).floats();
    return std::vector<float>(values.begin(), values.end());
}

::onnx::TensorProto const* Node::attrTensor(std::string const& name) const
{
    return hasAttribute(name) ? &expect(name, AttributeProto::TENSOR).t() : nullptr;
}

} // namespace kiln::onnxparser
