// ONNX If: the pattern torchvision's batched_nms exports (an empty result when there are no boxes, else a computation
// on them) built and run for both branches; a constant condition imports only the taken branch (the other may hold
// ops Kiln lacks); an error inside a branch names the branch and its node.
#include "model_builder.h"
#include "onnx_harness.h"
#include "recording_output_allocator.h"

#include <cstring>

namespace
{

using kiln::test::ModelBuilder;
using kiln::test::OnnxHarness;
using kiln::test::RecordingOutputAllocator;

constexpr int32_t kFloat = ::onnx::TensorProto::FLOAT;

//! A branch graph with the given nodes' outputs, read from the enclosing graph's names.
::onnx::GraphProto& branch(::onnx::NodeProto& node, char const* attribute, char const* name, char const* output)
{
    ::onnx::GraphProto& graph = *kiln::test::addAttribute(node, attribute, ::onnx::AttributeProto::GRAPH).mutable_g();
    graph.set_name(name);
    auto* value = graph.add_output();
    value->set_name(output);
    value->mutable_type()->mutable_tensor_type()->set_elem_type(kFloat);
    return graph;
}

::onnx::NodeProto& addNode(
    ::onnx::GraphProto& graph, char const* op, std::vector<std::string> const& inputs, std::string const& output)
{
    auto* node = graph.add_node();
    node->set_op_type(op);
    node->set_name(output);
    for (auto const& input : inputs)
    {
        node->add_input(input);
    }
    node->add_output(output);
    return *node;
}

//! y = x has no elements ? an empty tensor : x * 2, as torchvision writes `if boxes.numel() == 0: return empty`.
ModelBuilder emptyOrDoubled()
{
    ModelBuilder m;
    m.input("x", kFloat, {-1});
    m.int64s("zero", {}, {0});
    m.floats("two", {}, {2.0F});
    m.node("Size", {"x"}, {"count"}, "size");
    m.node("Equal", {"count", "zero"}, {"empty"}, "equal");
    ::onnx::NodeProto& node = m.node("If", {"empty"}, {"y"}, "if");
    ::onnx::GraphProto& whenEmpty = branch(node, "then_branch", "then", "nothing");
    ::onnx::TensorProto& none = *kiln::test::addAttribute(
        addNode(whenEmpty, "Constant", {}, "nothing"), "value", ::onnx::AttributeProto::TENSOR)
                                     .mutable_t();
    none.set_data_type(kFloat);
    none.add_dims(0);
    addNode(branch(node, "else_branch", "else", "doubled"), "Mul", {"x", "two"}, "doubled");
    m.output("y", kFloat);
    return m;
}

TEST(OnnxIf, BothBranchesOfATorchvisionStyleEmptyCheckRun)
{
    OnnxHarness h;
    ASSERT_TRUE(h.parse(emptyOrDoubled().bytes())) << h.parserErrors();
    h.setProfile("x", nvinfer1::Dims{1, {0}}, nvinfer1::Dims{1, {3}}, nvinfer1::Dims{1, {8}});
    ASSERT_TRUE(h.build());
    RecordingOutputAllocator allocator;
    ASSERT_TRUE(h.context->setOutputAllocator("y", &allocator));
    std::vector<float> const values{1.0F, -2.0F, 3.0F};
    ASSERT_TRUE(h.context->setInputShape("x", nvinfer1::Dims{1, {3}}));
    ASSERT_TRUE(h.run({{"x", values.data()}}, {}));
    ASSERT_EQ(h.shapeOf("y"), (std::vector<int64_t>{3}));
    std::vector<float> y(3);
    std::memcpy(y.data(), allocator.memory(), sizeof(float) * y.size());
    EXPECT_EQ(y, (std::vector<float>{2.0F, -4.0F, 6.0F}));

    float unused = 0.0F;
    ASSERT_TRUE(h.context->setInputShape("x", nvinfer1::Dims{1, {0}}));
    ASSERT_TRUE(h.run({{"x", &unused}}, {}));
    EXPECT_EQ(h.shapeOf("y"), (std::vector<int64_t>{0}));
}

TEST(OnnxIf, AConstantConditionImportsTheTakenBranchOnly)
{
    ModelBuilder m;
    m.input("x", kFloat, {2});
    m.int64s("yes", {}, {1});
    ::onnx::NodeProto& node = m.node("If", {"yes"}, {"y"}, "if");
    addNode(branch(node, "then_branch", "then", "negated"), "Neg", {"x"}, "negated");
    addNode(branch(node, "else_branch", "else", "unknown"), "NoSuchOp", {"x"}, "unknown");
    m.output("y", kFloat);
    OnnxHarness h;
    ASSERT_TRUE(h.parse(m.bytes())) << h.parserErrors();
    ASSERT_TRUE(h.build());
    std::vector<float> const values{1.0F, -2.0F};
    std::vector<float> y(2);
    ASSERT_TRUE(h.run({{"x", values.data()}}, {{"y", y.data()}}));
    EXPECT_EQ(y, (std::vector<float>{-1.0F, 2.0F}));
}

TEST(OnnxIf, AnErrorInABranchNamesTheBranchAndItsNode)
{
    ModelBuilder m;
    m.input("x", kFloat, {2});
    m.input("c", ::onnx::TensorProto::BOOL, {});
    ::onnx::NodeProto& node = m.node("If", {"c"}, {"y"}, "if");
    addNode(branch(node, "then_branch", "then", "negated"), "Neg", {"x"}, "negated");
    addNode(branch(node, "else_branch", "else", "unknown"), "NoSuchOp", {"x"}, "unknown");
    m.output("y", kFloat);
    OnnxHarness h;
    EXPECT_FALSE(h.parse(m.bytes()));
    EXPECT_NE(h.parserErrors().find("in subgraph \"else\", node 0 \"unknown\" (NoSuchOp)"), std::string::npos)
        << h.parserErrors();
}

} // namespace
