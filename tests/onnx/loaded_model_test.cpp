// IParser::loadModelProto, loadInitializer and parseModelProto: a model whose initializer the application replaces
// before the import runs as that replacement says, and each misuse fails with an error naming the call. Also the
// ONNX refitter entry point, which Kiln refuses (no refit).
#include "expect_close.h"
#include "onnx_harness.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kiln::test
{
namespace
{

constexpr int32_t kFloat = ::onnx::TensorProto::FLOAT;

//! y = x * w + b, w and b initializers of two floats.
std::string scaleAndShift()
{
    ModelBuilder m;
    m.input("x", kFloat, {2});
    m.floats("w", {2}, {1.0F, 2.0F});
    m.floats("b", {2}, {0.0F, 0.0F});
    m.node("Mul", {"x", "w"}, {"xw"});
    m.node("Add", {"xw", "b"}, {"y"});
    m.output("y", kFloat);
    return m.bytes();
}

//! Runs the parsed network on x = {2, 4}.
std::vector<float> runOnTwoFour(OnnxHarness& h)
{
    EXPECT_TRUE(h.build());
    std::vector<float> const x{2.0F, 4.0F};
    std::vector<float> y(2, -1.0F);
    EXPECT_TRUE(h.run({{"x", x.data()}}, {{"y", y.data()}}));
    return y;
}

TEST(OnnxLoadedModel, ReplacedInitializersAreTheOnesImported)
{
    std::string const model = scaleAndShift();
    OnnxHarness h;
    ASSERT_TRUE(h.parser->loadModelProto(model.data(), model.size()));
    float const w[] = {3.0F, 5.0F};
    float const b[] = {0.5F, -1.0F};
    ASSERT_TRUE(h.parser->loadInitializer("w", w, sizeof(w))) << h.parserErrors();
    ASSERT_TRUE(h.parser->loadInitializer("b", b, sizeof(b))) << h.parserErrors();
    ASSERT_TRUE(h.parser->parseModelProto()) << h.parserErrors();
    // The model's own weights would give {2, 8}; the replacements give {2*3 + 0.5, 4*5 - 1}.
    expectClose(runOnTwoFour(h), {6.5F, 19.0F}, 0.0F);
}

TEST(OnnxLoadedModel, WithoutReplacementsItImportsAsParseDoes)
{
    std::string const model = scaleAndShift();
    OnnxHarness h;
    ASSERT_TRUE(h.parser->loadModelProto(model.data(), model.size()));
    ASSERT_TRUE(h.parser->parseModelProto()) << h.parserErrors();
    expectClose(runOnTwoFour(h), {2.0F, 8.0F}, 0.0F);
}

TEST(OnnxLoadedModel, MisusesFailAndNameTheCall)
{
    std::string const model = scaleAndShift();
    OnnxHarness h;
    float const w[] = {3.0F, 5.0F};
    EXPECT_FALSE(h.parser->loadInitializer("w", w, sizeof(w)));
    EXPECT_FALSE(h.parser->parseModelProto());
    ASSERT_TRUE(h.parser->loadModelProto(model.data(), model.size()));
    EXPECT_FALSE(h.parser->loadModelProto(model.data(), model.size()));
    EXPECT_FALSE(h.parser->loadInitializer("v", w, sizeof(w)));
    EXPECT_FALSE(h.parser->loadInitializer("w", w, sizeof(float)));
    ASSERT_EQ(h.parser->getNbErrors(), 5);
    char const* const calls[]
        = {"loadInitializer", "parseModelProto", "loadModelProto", "loadInitializer", "loadInitializer"};
    for (int i = 0; i < 5; ++i)
    {
        EXPECT_EQ(h.parser->getError(i)->code(), nvonnxparser::ErrorCode::kINVALID_VALUE);
        EXPECT_NE(
            std::string(h.parser->getError(i)->desc()).find(std::string("IParser::") + calls[i]), std::string::npos)
            << h.parser->getError(i)->desc();
    }
    EXPECT_NE(std::string(h.parser->getError(4)->desc()).find("holds 8 bytes, 4 were given"), std::string::npos);
    // The failed calls left the loaded model as it was.
    h.parser->clearErrors();
    ASSERT_TRUE(h.parser->parseModelProto()) << h.parserErrors();
    expectClose(runOnTwoFour(h), {2.0F, 8.0F}, 0.0F);
}

TEST(OnnxLoadedModel, UndecodableBytesAreAModelError)
{
    OnnxHarness h;
    std::string const junk = "not a model";
    EXPECT_FALSE(h.parser->loadModelProto(junk.data(), junk.size()));
    ASSERT_EQ(h.parser->getNbErrors(), 1);
    EXPECT_EQ(h.parser->getError(0)->code(), nvonnxparser::ErrorCode::kMODEL_DESERIALIZE_FAILED);
}

TEST(OnnxParserRefitter, IsRefusedWithAnErrorNamingTheCall)
{
    RecordingLogger logger;
    // No IRefitter can be made in Kiln (createInferRefitter refuses), so the entry point is called directly.
    EXPECT_EQ(createNvOnnxParserRefitter_INTERNAL(nullptr, &logger, NV_ONNX_PARSER_VERSION), nullptr);
    EXPECT_NE(logger.errors().find("createParserRefitter: Kiln cannot refit engines yet"), std::string::npos);
}

} // namespace
} // namespace kiln::test
