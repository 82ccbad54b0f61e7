// One ONNX node as importers see it: its inputs resolved to Values and typed attribute access
// that fails with a message naming the attribute when the model stores another type.
#pragma once

#include "onnx/onnx_proto.h"
#include "onnx/value.h"

#include <optional>
#include <string>
#include <vector>

namespace kiln::onnxparser
{

class Node
{
public:
    Node(::onnx::NodeProto const& proto, int32_t index, std::vector<Value> inputs)
        : mProto(proto)
        , mIndex(index)
        , mInputs(std::move(inputs))
    {
    }

    ::onnx::NodeProto const& proto() const
    {
        return mProto;
    }
    std::string const& opType() const
    {
        return mProto.op_type();
    }
    //! The node's name, or its first output's name when the model leaves it unnamed.
    std::string displayName() const;
    int32_t index() const
    {
        return mIndex;
    }

    int32_t nbInputs() const
    {
        return static_cast<int32_t>(mInputs.size());
    }
    //! False for an input the node leaves out (absent or empty name).
    bool hasInput(int32_t i) const
    {
        return i >= 0 && i < nbInputs() && !mInputs[i].empty();
    }
    //! Input i; fails (INVALID_NODE) if the node does not give it.
    Value const& input(int32_t i) const;
    int32_t nbOutputs() const
    {
        return mProto.output_size();
    }
    //! Whether output i is named (used by the graph).
    bool wantsOutput(int32_t i) const
    {
        return i < nbOutputs() && !mProto.output(i).empty();
    }

    bool hasAttribute(std::string const& name) const
    {
        return find(name) != nullptr;
    }
    int64_t attrInt(std::string const& name, int64_t fallback) const;
    int64_t attrInt(std::string const& name) const;
    float attrFloat(std::string const& name, float fallback) const;
    std::string attrString(std::string const& name, std::string const& fallback) const;
    std::vector<int64_t> attrInts(std::string const& name, std::vector<int64_t> fallback = {}) const;
    std::vector<float> attrFloats(std::string const& name, std::vector<float> fallback = {}) const;
    ::onnx::TensorProto const* attrTensor(std::string const& name) const;
    //! A required GRAPH attribute (If's branches).
    ::onnx::GraphProto const& attrGraph(std::string const& name) const;
    ::onnx::AttributeProto const* find(std::string const& name) const;

    //! "node 3 \"conv1\" (Conv)": how messages refer to the node.
    std::string describe() const;

private:
    ::onnx::AttributeProto const& expect(std::string const& name, ::onnx::AttributeProto::AttributeType type) const;

    ::onnx::NodeProto const& mProto;
    int32_t mIndex;
    std::vector<Value> mInputs;
};

//! The ONNX name of an attribute type ("INT", "FLOATS", ...).
char const* attributeTypeName(int32_t type);

} // namespace kiln::onnxparser
