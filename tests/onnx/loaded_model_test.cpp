// IParser::loadModelProto, loadInitializer and parseModelProto: a model whose initializer the application replaces
// before the import runs as that replacement says, and each misuse fails with an error naming the call. Also the
// ONNX refitter, which refits an engine from a model's initializers (the parser named its weights after them).
#include "expect_close.h"
#include "onnx_harness.h"

#include <gtest/gtest.h>

#include <memory>
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

//! scaleAndShift() with other initializer values.
std::string scaleAndShiftWith(std::vector<float> const& w, std::vector<float> const& b)
{
    ModelBuilder m;
    m.input("x", kFloat, {2});
    m.floats("w", {2}, w);
    m.floats("b", {2}, b);
    m.node("Mul", {"x", "w"}, {"xw"});
    m.node("Add", {"xw", "b"}, {"y"});
    m.output("y", kFloat);
    return m.bytes();
}

//! A refittable engine of scaleAndShift(): the parser named its weights after the initializers.
void buildRefittable(OnnxHarness& h)
{
    std::string const model = scaleAndShift();
    ASSERT_TRUE(h.parse(model)) << h.parserErrors();
    h.config->setFlag(nvinfer1::BuilderFlag::kREFIT);
    expectClose(runOnTwoFour(h), {2.0F, 8.0F}, 0.0F);
}

std::vector<float> runEngine(OnnxHarness& h)
{
    std::vector<float> const x{2.0F, 4.0F};
    std::vector<float> y(2, -1.0F);
    EXPECT_TRUE(h.run({{"x", x.data()}}, {{"y", y.data()}}));
    return y;
}

TEST(OnnxParserRefitter, RefitsFromAnotherModelsInitializers)
{
    OnnxHarness h;
    buildRefittable(h);
    std::unique_ptr<nvinfer1::IRefitter> refitter{nvinfer1::createInferRefitter(*h.engine, h.logger)};
    ASSERT_NE(refitter, nullptr) << h.logger.errors();
    EXPECT_EQ(refitter->getAllWeights(0, nullptr), 2); // "w" and "b"
    std::unique_ptr<nvonnxparser::IParserRefitter> onnxRefitter{
        nvonnxparser::createParserRefitter(*refitter, h.logger)};
    ASSERT_NE(onnxRefitter, nullptr);
    std::string const retrained = scaleAndShiftWith({3.0F, 5.0F}, {0.5F, -1.0F});
    ASSERT_TRUE(onnxRefitter->refitFromBytes(retrained.data(), retrained.size())) << h.logger.errors();
    ASSERT_TRUE(refitter->refitCudaEngine());
    expectClose(runEngine(h), {6.5F, 19.0F}, 0.0F);

    // The loaded-model form: the initializer replaced before the refit.
    ASSERT_TRUE(onnxRefitter->loadModelProto(retrained.data(), retrained.size()));
    float const b[] = {10.0F, 20.0F};
    ASSERT_TRUE(onnxRefitter->loadInitializer("b", b, sizeof(b)));
    ASSERT_TRUE(onnxRefitter->refitModelProto()) << h.logger.errors();
    ASSERT_TRUE(refitter->refitCudaEngine());
    expectClose(runEngine(h), {16.0F, 40.0F}, 0.0F);
}

TEST(OnnxParserRefitter, AModelWithoutTheEnginesWeightsFailsNamingThem)
{
    OnnxHarness h;
    buildRefittable(h);
    std::unique_ptr<nvinfer1::IRefitter> refitter{nvinfer1::createInferRefitter(*h.engine, h.logger)};
    ASSERT_NE(refitter, nullptr);
    std::unique_ptr<nvonnxparser::IParserRefitter> onnxRefitter{
        nvonnxparser::createParserRefitter(*refitter, h.logger)};
    ModelBuilder m;
    m.input("x", kFloat, {2});
    m.floats("w", {2}, {1.0F, 1.0F});
    m.node("Mul", {"x", "w"}, {"y"});
    m.output("y", kFloat);
    std::string const other = m.bytes();
    EXPECT_FALSE(onnxRefitter->refitFromBytes(other.data(), other.size()));
    ASSERT_EQ(onnxRefitter->getNbErrors(), 1);
    EXPECT_EQ(onnxRefitter->getError(0)->code(), nvonnxparser::ErrorCode::kREFIT_FAILED);
    EXPECT_NE(std::string(onnxRefitter->getError(0)->desc()).find("the engine's weights \"b\""), std::string::npos)
        << onnxRefitter->getError(0)->desc();
    std::string const junk = "not a model";
    EXPECT_FALSE(onnxRefitter->refitFromBytes(junk.data(), junk.size()));
    EXPECT_FALSE(onnxRefitter->refitFromFile("/nonexistent/model.onnx"));
    EXPECT_FALSE(onnxRefitter->refitModelProto());
    EXPECT_EQ(onnxRefitter->getNbErrors(), 4);
    onnxRefitter->clearErrors();
    EXPECT_EQ(onnxRefitter->getNbErrors(), 0);
}

} // namespace
} // namespace kiln::test
