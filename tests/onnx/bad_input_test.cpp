// Bad models make parse return false with errors that name the node and the reason, never a crash.
#include "onnx_harness.h"

#include <gtest/gtest.h>

namespace kiln::test
{
namespace
{

constexpr int32_t kFloat = ::onnx::TensorProto::FLOAT;

ModelBuilder convModel()
{
    ModelBuilder m;
    m.input("x", kFloat, {1, 1, 3, 3});
    m.floats("w", {1, 1, 2, 2}, {1, 1, 1, 1});
    m.node("Conv", {"x", "w"}, {"y"}, "conv1");
    m.output("y", kFloat);
    return m;
}

TEST(OnnxBadInput, EmptyAndGarbageDataAreNotModels)
{
    OnnxHarness h;
    EXPECT_FALSE(h.parser->parse(nullptr, 0));
    ASSERT_EQ(h.parser->getNbErrors(), 1);
    EXPECT_EQ(h.parser->getError(0)->code(), nvonnxparser::ErrorCode::kMODEL_DESERIALIZE_FAILED);
    h.parser->clearErrors();
    EXPECT_EQ(h.parser->getNbErrors(), 0);
    std::string const garbage = "this is not a protobuf";
    EXPECT_FALSE(h.parse(garbage));
    EXPECT_EQ(h.parser->getError(0)->code(), nvonnxparser::ErrorCode::kMODEL_DESERIALIZE_FAILED);
    EXPECT_EQ(h.parser->getError(1), nullptr);
    EXPECT_FALSE(h.parser->parseFromFile("/nonexistent/model.onnx", 0));
}

TEST(OnnxBadInput, TruncatedModelsFailCleanly)
{
    std::string const bytes = convModel().bytes();
    for (size_t length = 1; length < bytes.size(); ++length)
    {
        OnnxHarness h;
        // A prefix may still decode (protobuf fields are optional); either way nothing crashes and a
        // failure comes with an error.
        if (!h.parse(bytes.substr(0, length)))
        {
            EXPECT_GT(h.parser->getNbErrors(), 0) << "length " << length;
        }
    }
}

TEST(OnnxBadInput, BitFlippedModelsNeverCrash)
{
    std::string const bytes = convModel().bytes();
    for (size_t i = 0; i < bytes.size(); ++i)
    {
        for (int bit : {0, 3, 7})
        {
            std::string flipped = bytes;
            flipped[i] = static_cast<char>(flipped[i] ^ (1 << bit));
            OnnxHarness h;
            if (!h.parse(flipped))
            {
                EXPECT_GT(h.parser->getNbErrors(), 0);
            }
        }
    }
}

TEST(OnnxBadInput, UnsupportedOpsetIsNamed)
{
    ModelBuilder m(99);
    m.input("x", kFloat, {2});
    m.node("Relu", {"x"}, {"y"});
    m.output("y", kFloat);
    OnnxHarness h;
    EXPECT_FALSE(h.parse(m.bytes()));
    ASSERT_EQ(h.parser->getNbErrors(), 1);
    EXPECT_EQ(h.parser->getError(0)->code(), nvonnxparser::ErrorCode::kUNSUPPORTED_GRAPH);
    EXPECT_NE(std::string(h.parser->getError(0)->desc()).find("opset 99"), std::string::npos);
}

TEST(OnnxBadInput, MissingInitializerNamesTheNodeAndTheInput)
{
    ModelBuilder m;
    m.input("x", kFloat, {2});
    m.node("Add", {"x", "bias"}, {"y"}, "add_bias");
    m.output("y", kFloat);
    OnnxHarness h;
    EXPECT_FALSE(h.parse(m.bytes()));
    ASSERT_EQ(h.parser->getNbErrors(), 1);
    nvonnxparser::IParserError const* error = h.parser->getError(0);
    EXPECT_EQ(error->code(), nvonnxparser::ErrorCode::kINVALID_GRAPH);
    EXPECT_EQ(error->node(), 0);
    EXPECT_STREQ(error->nodeName(), "add_bias");
    EXPECT_STREQ(error->nodeOperator(), "Add");
    EXPECT_NE(std::string(error->desc()).find("\"bias\""), std::string::npos) << error->desc();
}

TEST(OnnxBadInput, WrongAttributeTypeIsNamed)
{
    ModelBuilder m = convModel();
    setFloat(*m.model.mutable_graph()->mutable_node(0), "group", 1.0F);
    OnnxHarness h;
    EXPECT_FALSE(h.parse(m.bytes()));
    ASSERT_EQ(h.parser->getNbErrors(), 1);
    EXPECT_EQ(h.parser->getError(0)->code(), nvonnxparser::ErrorCode::kUNSUPPORTED_NODE_ATTR);
    EXPECT_STREQ(h.parser->getError(0)->nodeName(), "conv1");
    EXPECT_NE(std::string(h.parser->getError(0)->desc()).find("\"group\" is FLOAT, expected INT"), std::string::npos)
        << h.parser->getError(0)->desc();
}

TEST(OnnxBadInput, InconsistentShapesNameTheNodeAndTheNetworksReason)
{
    ModelBuilder m;
    m.input("a", kFloat, {2, 3});
    m.input("b", kFloat, {2, 4});
    m.node("Add", {"a", "b"}, {"y"}, "bad_add");
    m.output("y", kFloat);
    OnnxHarness h;
    EXPECT_FALSE(h.parse(m.bytes()));
    ASSERT_EQ(h.parser->getNbErrors(), 1);
    EXPECT_STREQ(h.parser->getError(0)->nodeName(), "bad_add");
    EXPECT_NE(std::string(h.parser->getError(0)->desc()).find("does not broadcast"), std::string::npos)
        << h.parser->getError(0)->desc();
}

TEST(OnnxBadInput, InitializerWithTooFewValuesIsNamed)
{
    ModelBuilder m;
    m.input("x", kFloat, {3});
    m.floats("w", {3}, {1.0F, 2.0F});
    m.node("Mul", {"x", "w"}, {"y"});
    m.output("y", kFloat);
    OnnxHarness h;
    EXPECT_FALSE(h.parse(m.bytes()));
    EXPECT_NE(h.parserErrors().find("tensor \"w\" holds 2 values"), std::string::npos) << h.parserErrors();
}

TEST(OnnxBadInput, UnknownOpWithoutPluginNamesTheOp)
{
    ModelBuilder m;
    m.input("x", kFloat, {2});
    m.node("FancyOp", {"x"}, {"y"}, "fancy");
    m.output("y", kFloat);
    OnnxHarness h;
    EXPECT_FALSE(h.parse(m.bytes()));
    ASSERT_EQ(h.parser->getNbErrors(), 1);
    EXPECT_EQ(h.parser->getError(0)->code(), nvonnxparser::ErrorCode::kUNSUPPORTED_NODE);
    EXPECT_STREQ(h.parser->getError(0)->nodeOperator(), "FancyOp");
    EXPECT_NE(std::string(h.parser->getError(0)->desc()).find("no importer for op \"FancyOp\""), std::string::npos);
}

} // namespace
} // namespace kiln::test
