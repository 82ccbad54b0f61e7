// Models written to hurt the parser: sizes that overflow or ask for terabytes, loops bounded by a number in the
// model, external data that leads out of the model's folder, names listed twice, standard op names in a custom
// domain. Each is refused with an error naming what is wrong, or imported without materialising the size it names.
#include "onnx_harness.h"

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace kiln::test
{
namespace
{

constexpr int32_t kFloat = ::onnx::TensorProto::FLOAT;
constexpr int32_t kInt64 = ::onnx::TensorProto::INT64;

//! Parses bytes that must be refused; returns the parser's errors.
std::string refusal(std::string const& bytes, char const* path = nullptr)
{
    OnnxHarness h;
    EXPECT_FALSE(h.parse(bytes, path));
    EXPECT_GT(h.parser->getNbErrors(), 0);
    return h.parserErrors();
}

//! The model's output y = ConstantOfShape(shape) * x, x a one-element input; value is ConstantOfShape's fill.
ModelBuilder filledModel(std::vector<int64_t> const& shape, float value)
{
    ModelBuilder m;
    m.input("x", kFloat, {1});
    m.int64s("shape", {static_cast<int64_t>(shape.size())}, shape);
    auto& fill = m.node("ConstantOfShape", {"shape"}, {"filled"}, "fill");
    ::onnx::TensorProto* tensor = addAttribute(fill, "value", ::onnx::AttributeProto::TENSOR).mutable_t();
    tensor->set_data_type(kFloat);
    tensor->add_dims(1);
    tensor->add_float_data(value);
    m.node("Mul", {"filled", "x"}, {"y"}, "scale");
    m.output("y", kFloat);
    return m;
}

//! The largest constant layer of the network, in elements.
int64_t largestConstant(nvinfer1::INetworkDefinition& network)
{
    int64_t largest = 0;
    for (int32_t i = 0; i < network.getNbLayers(); ++i)
    {
        if (auto* constant = dynamic_cast<nvinfer1::IConstantLayer*>(network.getLayer(i)))
        {
            largest = std::max(largest, constant->getWeights().count);
        }
    }
    return largest;
}

TEST(OnnxHostileModel, ConstantOfShapeWhoseByteSizeOverflowsIsRefusedNamingTheNode)
{
    // 2^62 FLOAT elements are 2^64 bytes: the byte size wrapped to 0 and the fill wrote past an empty buffer.
    for (std::vector<int64_t> const& shape : {std::vector<int64_t>{int64_t{1} << 62},
             std::vector<int64_t>{int64_t{1} << 32, int64_t{1} << 32, 4}, std::vector<int64_t>{2, -3}})
    {
        std::string const errors = refusal(filledModel(shape, 1.0F).bytes());
        EXPECT_NE(errors.find("\"fill\" (ConstantOfShape)"), std::string::npos) << errors;
        EXPECT_NE(errors.find("the shape ["), std::string::npos) << errors;
    }
}

TEST(OnnxHostileModel, ConstantOfShapeBeyondTheBudgetIsABroadcastAtRunTime)
{
    // 1025 x 4096 FLOAT is just over the 16 MiB one computed constant may have.
    OnnxHarness h;
    ASSERT_TRUE(h.parse(filledModel({1025, 4096}, 3.0F).bytes())) << h.parserErrors();
    EXPECT_LT(largestConstant(*h.network), int64_t{1} << 20);
    ASSERT_TRUE(h.build());
    float const x = 2.0F;
    std::vector<float> y(1025 * 4096, 0.0F);
    ASSERT_TRUE(h.run({{"x", &x}}, {{"y", y.data()}}));
    EXPECT_EQ(y.front(), 6.0F);
    EXPECT_EQ(y.back(), 6.0F);
    EXPECT_EQ(std::count(y.begin(), y.end(), 6.0F), static_cast<std::ptrdiff_t>(y.size()));
}

TEST(OnnxHostileModel, ConstantOfShapeOfTerabytesIsNotComputedWhileParsing)
{
    // 2^40 FLOAT elements (4 TiB): the parser used to ask for all of it.
    OnnxHarness h;
    ASSERT_TRUE(h.parse(filledModel({int64_t{1} << 20, int64_t{1} << 20}, 1.0F).bytes())) << h.parserErrors();
    EXPECT_LT(largestConstant(*h.network), int64_t{1} << 20);
    nvinfer1::Dims const dims = h.network->getOutput(0)->getDimensions();
    ASSERT_EQ(dims.nbDims, 2);
    EXPECT_EQ(dims.d[0], int64_t{1} << 20);
    EXPECT_EQ(dims.d[1], int64_t{1} << 20);
}

TEST(OnnxHostileModel, ConstantOfShapeOfMoreExtentsThanATensorHasIsRefused)
{
    std::string const errors = refusal(filledModel(std::vector<int64_t>(20, 1), 1.0F).bytes());
    EXPECT_NE(errors.find("has 20 extents"), std::string::npos) << errors;
}

//! y = Range(start, limit, delta) of INT64 or FLOAT scalars.
template <typename T>
ModelBuilder rangeModel(T start, T limit, T delta)
{
    ModelBuilder m;
    bool constexpr isFloat = std::is_same_v<T, float>;
    int32_t i = 0;
    for (T bound : {start, limit, delta})
    {
        std::string const name = std::string("bound") + std::to_string(i++);
        if constexpr (isFloat)
        {
            m.floats(name, {}, {bound});
        }
        else
        {
            m.int64s(name, {}, {bound});
        }
    }
    m.node("Range", {"bound0", "bound1", "bound2"}, {"y"}, "range");
    m.output("y", isFloat ? kFloat : kInt64);
    return m;
}

TEST(OnnxHostileModel, RangeBeyondTheBudgetIsAFillAtRunTime)
{
    OnnxHarness h;
    ASSERT_TRUE(h.parse(rangeModel<int64_t>(0, int64_t{1} << 40, 1).bytes())) << h.parserErrors();
    EXPECT_LT(largestConstant(*h.network), int64_t{1} << 20);
    nvinfer1::Dims const dims = h.network->getOutput(0)->getDimensions();
    ASSERT_EQ(dims.nbDims, 1);
    EXPECT_EQ(dims.d[0], int64_t{1} << 40);
}

TEST(OnnxHostileModel, RangeOfLargeIntegersIsExact)
{
    // Through a double, 2^60 and 2^60 + 3 are one number and the range was empty.
    int64_t const start = int64_t{1} << 60;
    OnnxHarness h;
    ASSERT_TRUE(h.parse(rangeModel<int64_t>(start, start + 3, 1).bytes())) << h.parserErrors();
    ASSERT_EQ(h.network->getNbLayers(), 1);
    auto* constant = dynamic_cast<nvinfer1::IConstantLayer*>(h.network->getLayer(0));
    ASSERT_NE(constant, nullptr);
    ASSERT_EQ(constant->getWeights().count, 3);
    auto const* values = static_cast<int64_t const*>(constant->getWeights().values);
    EXPECT_EQ(values[0], start);
    EXPECT_EQ(values[2], start + 2);
}

TEST(OnnxHostileModel, RangeWithoutARepresentableLengthIsRefused)
{
    std::string const overflow = refusal(rangeModel<int64_t>(-2, std::numeric_limits<int64_t>::max(), 1).bytes());
    EXPECT_NE(overflow.find("limit - start overflows INT64"), std::string::npos) << overflow;
    std::string const endless = refusal(rangeModel<float>(0.0F, 1e30F, 1e-30F).bytes());
    EXPECT_NE(endless.find("give no finite length"), std::string::npos) << endless;
    EXPECT_NE(endless.find("\"range\" (Range)"), std::string::npos) << endless;
}

TEST(OnnxHostileModel, HugeWindowIsRefusedBeforeAllocating)
{
    ModelBuilder m;
    m.int64s("size", {}, {int64_t{1} << 40});
    m.node("HannWindow", {"size"}, {"y"}, "window");
    m.output("y", kFloat);
    std::string const errors = refusal(m.bytes());
    EXPECT_NE(errors.find("\"window\" (HannWindow)"), std::string::npos) << errors;
    EXPECT_NE(errors.find("larger than Kiln computes while parsing"), std::string::npos) << errors;
}

TEST(OnnxHostileModel, SplitCountOtherThanTheOutputsIsRefused)
{
    // num_outputs bounded a loop: 2^40 iterations before the count was compared with the node's outputs.
    ModelBuilder m(18);
    m.input("x", kFloat, {4});
    auto& split = m.node("Split", {"x"}, {"a", "b"}, "split");
    setInt(split, "num_outputs", int64_t{1} << 40);
    m.output("a", kFloat);
    m.output("b", kFloat);
    std::string const errors = refusal(m.bytes());
    EXPECT_NE(errors.find("num_outputs is 1099511627776 but the node has 2 outputs"), std::string::npos) << errors;
}

TEST(OnnxHostileModel, DuplicateGraphOutputOrInputIsRefusedNamingIt)
{
    ModelBuilder outputs;
    outputs.input("x", kFloat, {2});
    outputs.node("Relu", {"x"}, {"y"});
    outputs.output("y", kFloat);
    outputs.output("y", kFloat);
    std::string const twice = refusal(outputs.bytes());
    EXPECT_NE(twice.find("graph output \"y\" is listed more than once"), std::string::npos) << twice;

    ModelBuilder inputs;
    inputs.input("x", kFloat, {2});
    inputs.input("x", kFloat, {3});
    inputs.node("Relu", {"x"}, {"y"});
    inputs.output("y", kFloat);
    std::string const input = refusal(inputs.bytes());
    EXPECT_NE(input.find("graph input \"x\" is listed more than once"), std::string::npos) << input;
}

TEST(OnnxHostileModel, NegativeInputExtentIsRefused)
{
    ModelBuilder m;
    m.input("x", kFloat, {2});
    m.model.mutable_graph()
        ->mutable_input(0)
        ->mutable_type()
        ->mutable_tensor_type()
        ->mutable_shape()
        ->mutable_dim(0)
        ->set_dim_value(-5);
    m.node("Relu", {"x"}, {"y"});
    m.output("y", kFloat);
    std::string const errors = refusal(m.bytes());
    EXPECT_NE(errors.find("graph input \"x\" has extent -5 at axis 0"), std::string::npos) << errors;
}

TEST(OnnxHostileModel, StandardOpNameInACustomDomainGoesToThePluginRegistry)
{
    // Relu of com.example is that domain's op, not ONNX's: without a plugin of that name it is not imported.
    ModelBuilder custom;
    custom.input("x", kFloat, {2});
    custom.node("Relu", {"x"}, {"y"}, "custom_relu").set_domain("com.example");
    custom.output("y", kFloat);
    std::string const errors = refusal(custom.bytes());
    EXPECT_NE(errors.find("no plugin registered as \"Relu\""), std::string::npos) << errors;
    {
        std::string const bytes = custom.bytes();
        OnnxHarness h;
        EXPECT_FALSE(h.parser->supportsModelV2(bytes.data(), bytes.size(), nullptr));
    }
    // ONNX's default domain may be named.
    ModelBuilder standard;
    standard.input("x", kFloat, {2});
    standard.node("Relu", {"x"}, {"y"}).set_domain("ai.onnx");
    standard.output("y", kFloat);
    OnnxHarness h;
    EXPECT_TRUE(h.parse(standard.bytes())) << h.parserErrors();
}

TEST(OnnxHostileModel, InitializerOfMoreAxesThanATensorHasIsRefused)
{
    ModelBuilder m;
    m.input("x", kFloat, {1});
    m.floats("w", std::vector<int64_t>(9, 1), {2.0F});
    m.node("Mul", {"x", "w"}, {"y"});
    m.output("y", kFloat);
    std::string const errors = refusal(m.bytes());
    EXPECT_NE(errors.find("constant \"w\" has rank 9"), std::string::npos) << errors;
}

TEST(OnnxHostileModel, LoadInitializerRefusesDimensionsWhoseSizeWraps)
{
    // 2^32 x 2^32 FLOAT elements wrapped to 0 bytes, so that 0 bytes were taken as the initializer's values.
    ModelBuilder m;
    m.input("x", kFloat, {1});
    m.floats("w", {int64_t{1} << 32, int64_t{1} << 32}, {});
    m.node("Mul", {"x", "w"}, {"y"});
    m.output("y", kFloat);
    std::string const bytes = m.bytes();
    OnnxHarness h;
    ASSERT_TRUE(h.parser->loadModelProto(bytes.data(), bytes.size()));
    float const none = 0.0F;
    EXPECT_FALSE(h.parser->loadInitializer("w", &none, 0));
}

//! A folder with a model whose initializer w (three floats) lies in external data at `location`.
class ExternalDataFolder
{
public:
    explicit ExternalDataFolder(std::string const& name)
        : mRoot(std::filesystem::temp_directory_path() / name)
    {
        std::filesystem::remove_all(mRoot);
        std::filesystem::create_directories(mRoot / "model");
        std::filesystem::create_directories(mRoot / "outside");
        writeFloats(mRoot / "outside" / "secret.bin");
        writeFloats(mRoot / "model" / "weights.bin");
    }
    ~ExternalDataFolder()
    {
        std::filesystem::remove_all(mRoot);
    }
    std::filesystem::path const& root() const
    {
        return mRoot;
    }
    //! Writes model/model.onnx reading w from `location` and returns its path.
    std::string model(std::string const& location, std::string const& offset = "0", std::string const& length = "12")
    {
        ModelBuilder m;
        m.input("x", kFloat, {3});
        auto& w = m.floats("w", {3}, {});
        w.set_data_location(::onnx::TensorProto::EXTERNAL);
        for (auto const& [key, value] :
            {std::pair<char const*, std::string>{"location", location}, {"offset", offset}, {"length", length}})
        {
            auto* entry = w.add_external_data();
            entry->set_key(key);
            entry->set_value(value);
        }
        m.node("Mul", {"x", "w"}, {"y"});
        m.output("y", kFloat);
        std::string const path = (mRoot / "model" / "model.onnx").string();
        std::ofstream(path, std::ios::binary) << m.bytes();
        return path;
    }

private:
    static void writeFloats(std::filesystem::path const& path)
    {
        float const values[] = {1.0F, 2.0F, 3.0F};
        std::ofstream(path, std::ios::binary).write(reinterpret_cast<char const*>(values), sizeof(values));
    }

    std::filesystem::path mRoot;
};

std::string parseFile(std::string const& path, bool expected)
{
    OnnxHarness h;
    EXPECT_EQ(h.parser->parseFromFile(path.c_str(), static_cast<int>(nvinfer1::ILogger::Severity::kWARNING)), expected)
        << h.parserErrors();
    return h.parserErrors();
}

TEST(OnnxHostileModel, ExternalDataMayNotFollowALinkOutOfTheModelsFolder)
{
    ExternalDataFolder folder("kiln_onnx_external_link_test");
    std::filesystem::path const model = folder.root() / "model";
    std::filesystem::create_symlink(folder.root() / "outside" / "secret.bin", model / "w.bin");
    std::filesystem::create_directory_symlink(folder.root() / "outside", model / "sub");
    std::filesystem::create_symlink("weights.bin", model / "inside.bin");

    std::string const file = parseFile(folder.model("w.bin"), false);
    EXPECT_NE(file.find("outside the model's folder"), std::string::npos) << file;
    std::string const subfolder = parseFile(folder.model("sub/secret.bin"), false);
    EXPECT_NE(subfolder.find("outside the model's folder"), std::string::npos) << subfolder;
    // A link that stays inside the folder, and the folder reached through a link, are fine.
    parseFile(folder.model("inside.bin"), true);
    std::filesystem::create_directory_symlink(model, folder.root() / "linked_model");
    parseFile((folder.root() / "linked_model" / "model.onnx").string(), true);
}

TEST(OnnxHostileModel, ExternalDataOffsetsAndLengthsAreChecked)
{
    ExternalDataFolder folder("kiln_onnx_external_offset_test");
    // offset + length wrapped around to a negative end that passed the check against the file's size.
    std::string const wraps = parseFile(folder.model("weights.bin", "9223372036854775800", "12"), false);
    EXPECT_NE(wraps.find("do not hold the 12 bytes"), std::string::npos) << wraps;
    std::string const junk = parseFile(folder.model("weights.bin", "0", "12abc"), false);
    EXPECT_NE(junk.find("length \"12abc\" is not a non-negative 64-bit integer"), std::string::npos) << junk;
    std::string const negative = parseFile(folder.model("weights.bin", "-4", "12"), false);
    EXPECT_NE(negative.find("offset \"-4\""), std::string::npos) << negative;
    std::filesystem::create_directory(folder.root() / "model" / "dir");
    std::string const notAFile = parseFile(folder.model("dir"), false);
    EXPECT_NE(notAFile.find("is not a regular file"), std::string::npos) << notAFile;
}

TEST(OnnxHostileModel, ExternalDataThatIsAPipeIsRefusedWithoutWaiting)
{
    // Opening a FIFO for reading waits for a writer: the parser would hang before it saw what the file was.
    ExternalDataFolder folder("kiln_onnx_external_fifo_test");
    std::filesystem::path const pipe = folder.root() / "model" / "pipe.bin";
    ASSERT_EQ(::mkfifo(pipe.c_str(), 0600), 0);
    std::string const errors = parseFile(folder.model("pipe.bin"), false);
    EXPECT_NE(errors.find("is not a regular file"), std::string::npos) << errors;
}

} // namespace
} // namespace kiln::test
