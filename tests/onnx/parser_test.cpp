// The ONNX parser on small models built in C++: results checked against values computed by hand.
#include "expect_close.h"
#include "onnx_harness.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <utility>

namespace kiln::test
{
namespace
{

constexpr int32_t kFloat = ::onnx::TensorProto::FLOAT;

TEST(OnnxParser, ConvReluGlobalPoolGemmMatchesHandComputedValues)
{
    // x [1, 1, 2, 2] -> Conv 1x1 (2 maps: *1 + 0.5, *-1 + 0) -> Relu -> GlobalAveragePool -> Flatten -> Gemm.
    ModelBuilder m;
    m.input("x", kFloat, {1, 1, 2, 2});
    m.floats("w", {2, 1, 1, 1}, {1.0F, -1.0F});
    m.floats("b", {2}, {0.5F, 0.0F});
    m.floats("fc", {2, 1}, {2.0F, 3.0F});
    m.floats("fc_bias", {1}, {1.0F});
    m.node("Conv", {"x", "w", "b"}, {"conv"}, "conv1");
    m.node("Relu", {"conv"}, {"relu"});
    m.node("GlobalAveragePool", {"relu"}, {"pool"});
    m.node("Flatten", {"pool"}, {"flat"});
    m.node("Gemm", {"flat", "fc", "fc_bias"}, {"y"});
    m.output("y", kFloat);

    OnnxHarness h;
    ASSERT_TRUE(h.parse(m.bytes())) << h.parserErrors();
    ASSERT_EQ(h.network->getNbInputs(), 1);
    ASSERT_EQ(h.network->getNbOutputs(), 1);
    EXPECT_STREQ(h.network->getOutput(0)->getName(), "y");
    ASSERT_TRUE(h.build());
    std::vector<float> const x{1.0F, -2.0F, 3.0F, 0.0F};
    std::vector<float> y(1);
    ASSERT_TRUE(h.run({{"x", x.data()}}, {{"y", y.data()}}));
    // Map 0: relu(x + 0.5) = 1.5, 0, 3.5, 0.5 -> mean 1.375. Map 1: relu(-x) = 0, 2, 0, 0 -> mean 0.5.
    // y = 2 * 1.375 + 3 * 0.5 + 1.
    expectClose(y, {2.0F * 1.375F + 3.0F * 0.5F + 1.0F}, 1e-5F);
}

TEST(OnnxParser, ShapeComputationsStayDynamic)
{
    // Reshape x [N, 2, 3] to [N, 6] with a shape computed from Shape -> Gather -> Unsqueeze -> Concat.
    ModelBuilder m;
    m.input("x", kFloat, {-1, 2, 3});
    m.int64s("zero", {}, {0});
    m.int64s("axes", {1}, {0});
    m.int64s("six", {1}, {6});
    m.node("Shape", {"x"}, {"shape"});
    m.node("Gather", {"shape", "zero"}, {"batch"});
    m.node("Unsqueeze", {"batch", "axes"}, {"batch1"});
    auto& concat = m.node("Concat", {"batch1", "six"}, {"target"});
    setInt(concat, "axis", 0);
    m.node("Reshape", {"x", "target"}, {"y"});
    m.output("y", kFloat);

    OnnxHarness h;
    ASSERT_TRUE(h.parse(m.bytes())) << h.parserErrors();
    EXPECT_EQ(h.network->getInput(0)->getDimensions().d[0], -1);
    EXPECT_STREQ(h.network->getInput(0)->getDimensionName(0), "N");
    h.setProfile("x", nvinfer1::Dims{3, {1, 2, 3}}, nvinfer1::Dims{3, {2, 2, 3}}, nvinfer1::Dims{3, {4, 2, 3}});
    ASSERT_TRUE(h.build());
    std::vector<float> x(12);
    for (size_t i = 0; i < x.size(); ++i)
    {
        x[i] = static_cast<float>(i);
    }
    std::vector<float> y(12, -1.0F);
    ASSERT_TRUE(h.context->setInputShape("x", nvinfer1::Dims{3, {2, 2, 3}}));
    ASSERT_TRUE(h.run({{"x", x.data()}}, {{"y", y.data()}}));
    EXPECT_EQ(h.shapeOf("y"), (std::vector<int64_t>{2, 6}));
    expectClose(y, x, 1e-5F);
}

TEST(OnnxParser, ExpandTargetsComputedThroughComparisonsAndWhereStayShapeTensors)
{
    // PyTorch's export of row.expand(x.shape[0], -1): the -1 entries of [N, -1] are replaced through Equal, Where and
    // ConstantOfShape, so the target reaches Expand through BOOL comparisons and a select.
    ModelBuilder m;
    m.input("x", kFloat, {-1, 1});
    m.floats("row", {1, 3}, {1.0F, 2.0F, 3.0F});
    m.int64s("zero", {}, {0});
    m.int64s("axes", {1}, {0});
    m.int64s("minus_one", {1}, {-1});
    m.node("Shape", {"x"}, {"shape"});
    m.node("Gather", {"shape", "zero"}, {"batch"});
    m.node("Unsqueeze", {"batch", "axes"}, {"batch1"});
    setInt(m.node("Concat", {"batch1", "minus_one"}, {"target"}), "axis", 0);
    m.node("Equal", {"target", "minus_one"}, {"unset"});
    m.node("Shape", {"target"}, {"target_rank"});
    auto& ones = m.node("ConstantOfShape", {"target_rank"}, {"ones"});
    auto* one = ones.add_attribute();
    one->set_name("value");
    one->set_type(::onnx::AttributeProto::TENSOR);
    one->mutable_t()->set_data_type(::onnx::TensorProto::INT64);
    one->mutable_t()->add_dims(1);
    one->mutable_t()->add_int64_data(1);
    m.node("Where", {"unset", "ones", "target"}, {"fixed"});
    m.node("Expand", {"row", "fixed"}, {"y"});
    m.output("y", kFloat);

    OnnxHarness h;
    ASSERT_TRUE(h.parse(m.bytes())) << h.parserErrors();
    h.setProfile("x", nvinfer1::Dims{2, {1, 1}}, nvinfer1::Dims{2, {2, 1}}, nvinfer1::Dims{2, {4, 1}});
    ASSERT_TRUE(h.build());
    for (int64_t batch : {3, 1})
    {
        std::vector<float> const x(static_cast<size_t>(batch), 0.0F);
        std::vector<float> y(static_cast<size_t>(batch * 3), -1.0F);
        ASSERT_TRUE(h.context->setInputShape("x", nvinfer1::Dims{2, {batch, 1}}));
        ASSERT_TRUE(h.run({{"x", x.data()}}, {{"y", y.data()}}));
        EXPECT_EQ(h.shapeOf("y"), (std::vector<int64_t>{batch, 3}));
        std::vector<float> expected;
        for (int64_t b = 0; b < batch; ++b)
        {
            expected.insert(expected.end(), {1.0F, 2.0F, 3.0F});
        }
        expectClose(y, expected, 0.0F);
    }
}

TEST(OnnxParser, IntegerDivisionOfShapeValuesTruncatesTowardZero)
{
    // Reshape x [N, 6] to [(N - 9) / 2 + 6, -1], the division on integer shape values as ONNX's Div (and PyTorch's
    // channels // groups in ShuffleNet's channel shuffle) exports it. At N = 4, (4 - 9) / 2 truncates to -2, giving
    // [4, 6]; a floor division would give -3 and [3, 8].
    ModelBuilder m;
    m.input("x", kFloat, {-1, 6});
    m.int64s("zero", {1}, {0});
    m.int64s("nine", {1}, {9});
    m.int64s("two", {1}, {2});
    m.int64s("six", {1}, {6});
    m.int64s("rest", {1}, {-1});
    m.node("Shape", {"x"}, {"shape"});
    m.node("Gather", {"shape", "zero"}, {"batch"});
    m.node("Sub", {"batch", "nine"}, {"below"});
    m.node("Div", {"below", "two"}, {"half"});
    m.node("Add", {"half", "six"}, {"rows"});
    setInt(m.node("Concat", {"rows", "rest"}, {"target"}), "axis", 0);
    m.node("Reshape", {"x", "target"}, {"y"});
    m.output("y", kFloat);

    OnnxHarness h;
    ASSERT_TRUE(h.parse(m.bytes())) << h.parserErrors();
    h.setProfile("x", nvinfer1::Dims{2, {4, 6}}, nvinfer1::Dims{2, {4, 6}}, nvinfer1::Dims{2, {4, 6}});
    ASSERT_TRUE(h.build());
    std::vector<float> const x(24, 1.0F);
    std::vector<float> y(24, 0.0F);
    ASSERT_TRUE(h.context->setInputShape("x", nvinfer1::Dims{2, {4, 6}}));
    ASSERT_TRUE(h.run({{"x", x.data()}}, {{"y", y.data()}}));
    EXPECT_EQ(h.shapeOf("y"), (std::vector<int64_t>{4, 6}));
}

//! The tensor of `network` named `name` (a layer's output), or null.
nvinfer1::ITensor* tensorNamed(nvinfer1::INetworkDefinition& network, std::string const& name)
{
    for (int32_t l = 0; l < network.getNbLayers(); ++l)
    {
        nvinfer1::ILayer* layer = network.getLayer(l);
        for (int32_t o = 0; o < layer->getNbOutputs(); ++o)
        {
            if (name == layer->getOutput(o)->getName())
            {
                return layer->getOutput(o);
            }
        }
    }
    return nullptr;
}

TEST(OnnxParser, PadsComputedFromShapesPassThroughTheirRank2Reordering)
{
    // PyTorch's export of F.pad(x, (1, W)) with W = x.shape[1] at run time (Swin's window padding): the pads, in
    // PyTorch's order [left, right, top, bottom], are reshaped to [-1, 2], reversed along the first axis with a step
    // of -1, transposed and flattened into ONNX's [begin..., end...] order, [0, 1, 0, W]. Their values must stay known
    // through the rank-2 tensors, which are not shape tensors themselves (as in TensorRT).
    ModelBuilder m;
    m.input("x", kFloat, {1, -1});
    m.int64s("one_index", {}, {1});
    m.int64s("axes", {1}, {0});
    m.int64s("left", {1}, {1});
    m.int64s("top_bottom", {2}, {0, 0});
    m.int64s("pairs", {2}, {-1, 2});
    m.int64s("last", {1}, {-1});
    m.int64s("before_first", {1}, {-9223372036854775807});
    m.int64s("minus_one", {1}, {-1});
    m.int64s("flat", {1}, {-1});
    m.node("Shape", {"x"}, {"shape"});
    m.node("Gather", {"shape", "one_index"}, {"width"});
    m.node("Unsqueeze", {"width", "axes"}, {"right"});
    setInt(m.node("Concat", {"left", "right", "top_bottom"}, {"torch_pads"}), "axis", 0);
    m.node("Reshape", {"torch_pads", "pairs"}, {"pairs_2d"});
    m.node("Slice", {"pairs_2d", "last", "before_first", "axes", "minus_one"}, {"reversed"});
    setInts(m.node("Transpose", {"reversed"}, {"begin_end"}), "perm", {1, 0});
    m.node("Reshape", {"begin_end", "flat"}, {"onnx_pads"});
    m.node("Pad", {"x", "onnx_pads"}, {"y"});
    m.output("y", kFloat);

    OnnxHarness h;
    ASSERT_TRUE(h.parse(m.bytes())) << h.parserErrors();
    ASSERT_NE(tensorNamed(*h.network, "reversed"), nullptr);
    EXPECT_FALSE(tensorNamed(*h.network, "reversed")->isShapeTensor());
    EXPECT_TRUE(tensorNamed(*h.network, "onnx_pads")->isShapeTensor());
    h.setProfile("x", nvinfer1::Dims{2, {1, 1}}, nvinfer1::Dims{2, {1, 3}}, nvinfer1::Dims{2, {1, 4}});
    ASSERT_TRUE(h.build());
    for (int64_t width : {3, 2})
    {
        std::vector<float> x;
        for (int64_t i = 0; i < width; ++i)
        {
            x.push_back(static_cast<float>(i + 1));
        }
        std::vector<float> y(static_cast<size_t>(1 + 2 * width), -1.0F);
        ASSERT_TRUE(h.context->setInputShape("x", nvinfer1::Dims{2, {1, width}}));
        ASSERT_TRUE(h.run({{"x", x.data()}}, {{"y", y.data()}}));
        EXPECT_EQ(h.shapeOf("y"), (std::vector<int64_t>{1, 1 + 2 * width}));
        std::vector<float> expected{0.0F}; // one zero before, the row, W zeros after
        expected.insert(expected.end(), x.begin(), x.end());
        expected.resize(y.size(), 0.0F);
        expectClose(y, expected, 0.0F);
    }
}

TEST(OnnxParser, SquarePaddingComputedInFloatFromShapesStaysKnown)
{
    // torchvision's detection transform pads a batch to its largest extent: the extents are cast to FLOAT, reduced
    // with ReduceMax, divided by a size_divisible of 1.0, rounded up with Ceil and cast back. Here x [1, H, W] is
    // padded at the end to [1, S, S], S = max(H, W): whole numbers all the way, so the pads stay shape values.
    ModelBuilder m;
    m.input("x", kFloat, {1, -1, -1});
    m.int64s("height_index", {1}, {1});
    m.int64s("width_index", {1}, {2});
    m.floats("one", {}, {1.0F});
    m.int64s("no_pads", {4}, {0, 0, 0, 0});
    m.node("Shape", {"x"}, {"shape"});
    m.node("Gather", {"shape", "height_index"}, {"height"});
    m.node("Gather", {"shape", "width_index"}, {"width"});
    setInt(m.node("Concat", {"height", "width"}, {"extents"}), "axis", 0);
    setInt(m.node("Cast", {"extents"}, {"real_extents"}), "to", ::onnx::TensorProto::FLOAT);
    setInt(m.node("ReduceMax", {"real_extents"}, {"largest"}), "keepdims", 1);
    m.node("Div", {"largest", "one"}, {"multiples"});
    m.node("Ceil", {"multiples"}, {"rounded"});
    setInt(m.node("Cast", {"rounded"}, {"side"}), "to", ::onnx::TensorProto::INT64);
    m.node("Sub", {"side", "extents"}, {"growth"});
    setInt(m.node("Concat", {"no_pads", "growth"}, {"pads"}), "axis", 0);
    m.node("Pad", {"x", "pads"}, {"y"});
    m.output("y", kFloat);

    OnnxHarness h;
    ASSERT_TRUE(h.parse(m.bytes())) << h.parserErrors();
    h.setProfile("x", nvinfer1::Dims{3, {1, 1, 1}}, nvinfer1::Dims{3, {1, 2, 3}}, nvinfer1::Dims{3, {1, 4, 4}});
    ASSERT_TRUE(h.build());
    for (auto [height, width] : {std::pair<int64_t, int64_t>{2, 3}, {4, 1}})
    {
        int64_t const side = std::max(height, width);
        std::vector<float> x(static_cast<size_t>(height * width));
        std::vector<float> expected(static_cast<size_t>(side * side), 0.0F);
        for (int64_t r = 0; r < height; ++r)
        {
            for (int64_t c = 0; c < width; ++c)
            {
                x[static_cast<size_t>(r * width + c)] = static_cast<float>(1 + r * width + c);
                expected[static_cast<size_t>(r * side + c)] = static_cast<float>(1 + r * width + c);
            }
        }
        std::vector<float> y(expected.size(), -1.0F);
        ASSERT_TRUE(h.context->setInputShape("x", nvinfer1::Dims{3, {1, height, width}}));
        ASSERT_TRUE(h.run({{"x", x.data()}}, {{"y", y.data()}}));
        EXPECT_EQ(h.shapeOf("y"), (std::vector<int64_t>{1, side, side}));
        expectClose(y, expected, 0.0F);
    }
}

TEST(OnnxParser, NegativeStepsReverseAnAxisKnownOnlyAtRunTime)
{
    // PyTorch's export of x.flip(-1) (wav2vec2's attention mask): Slice from -1 to INT64_MIN with step -1 along an
    // axis whose extent is dynamic; and every second element from the end (step -2).
    ModelBuilder m;
    m.input("x", kFloat, {1, -1});
    m.int64s("from_last", {1}, {-1});
    m.int64s("past_first", {1}, {std::numeric_limits<int64_t>::min()});
    m.int64s("axis", {1}, {1});
    m.int64s("back", {1}, {-1});
    m.int64s("back_two", {1}, {-2});
    m.node("Slice", {"x", "from_last", "past_first", "axis", "back"}, {"flipped"});
    m.node("Slice", {"x", "from_last", "past_first", "axis", "back_two"}, {"every_second"});
    m.output("flipped", kFloat);
    m.output("every_second", kFloat);

    OnnxHarness h;
    ASSERT_TRUE(h.parse(m.bytes())) << h.parserErrors();
    h.setProfile("x", nvinfer1::Dims{2, {1, 1}}, nvinfer1::Dims{2, {1, 4}}, nvinfer1::Dims{2, {1, 5}});
    ASSERT_TRUE(h.build());
    for (int64_t width : {5, 1, 4})
    {
        std::vector<float> x;
        for (int64_t i = 0; i < width; ++i)
        {
            x.push_back(static_cast<float>(10 + i));
        }
        std::vector<float> const flippedExpected(x.rbegin(), x.rend());
        std::vector<float> everySecondExpected;
        for (size_t i = 0; i < flippedExpected.size(); i += 2)
        {
            everySecondExpected.push_back(flippedExpected[i]);
        }
        std::vector<float> flipped(flippedExpected.size(), -1.0F);
        std::vector<float> everySecond(everySecondExpected.size(), -1.0F);
        ASSERT_TRUE(h.context->setInputShape("x", nvinfer1::Dims{2, {1, width}}));
        ASSERT_TRUE(h.run({{"x", x.data()}}, {{"flipped", flipped.data()}, {"every_second", everySecond.data()}}));
        EXPECT_EQ(h.shapeOf("every_second"), (std::vector<int64_t>{1, (width + 1) / 2}));
        expectClose(flipped, flippedExpected, 0.0F);
        expectClose(everySecond, everySecondExpected, 0.0F);
    }
}

TEST(OnnxParser, FloatRangeOverAShapeCountsItsElementsExactly)
{
    // PyTorch's export of torch.arange(x.shape[1], dtype=torch.float32) (a YOLO head's grid): the size is cast to
    // FLOAT before Range. Its whole-number value stays known through the cast, so the count is a shape tensor.
    ModelBuilder m;
    m.input("x", kFloat, {1, -1});
    m.int64s("one_index", {}, {1});
    m.floats("start", {}, {0.0F});
    m.floats("delta", {}, {1.0F});
    m.node("Shape", {"x"}, {"shape"});
    m.node("Gather", {"shape", "one_index"}, {"width"});
    setInt(m.node("Cast", {"width"}, {"limit"}), "to", ::onnx::TensorProto::FLOAT);
    m.node("Range", {"start", "limit", "delta"}, {"grid"});
    m.node("Add", {"x", "grid"}, {"y"});
    m.output("y", kFloat);

    OnnxHarness h;
    ASSERT_TRUE(h.parse(m.bytes())) << h.parserErrors();
    h.setProfile("x", nvinfer1::Dims{2, {1, 1}}, nvinfer1::Dims{2, {1, 4}}, nvinfer1::Dims{2, {1, 8}});
    ASSERT_TRUE(h.build());
    for (int64_t width : {4, 7})
    {
        std::vector<float> const x(static_cast<size_t>(width), 0.5F);
        std::vector<float> y(static_cast<size_t>(width), -1.0F);
        ASSERT_TRUE(h.context->setInputShape("x", nvinfer1::Dims{2, {1, width}}));
        ASSERT_TRUE(h.run({{"x", x.data()}}, {{"y", y.data()}}));
        std::vector<float> expected;
        for (int64_t i = 0; i < width; ++i)
        {
            expected.push_back(0.5F + static_cast<float>(i));
        }
        expectClose(y, expected, 0.0F);
    }
}

TEST(OnnxParser, FloatRangeWithAFractionalStepOverAShapeNamesTheNode)
{
    // A step of 0.5 makes the count a float quotient, which Kiln cannot know while shapes are inferred.
    ModelBuilder m;
    m.input("x", kFloat, {1, -1});
    m.int64s("one_index", {}, {1});
    m.floats("start", {}, {0.0F});
    m.floats("delta", {}, {0.5F});
    m.node("Shape", {"x"}, {"shape"});
    m.node("Gather", {"shape", "one_index"}, {"width"});
    setInt(m.node("Cast", {"width"}, {"limit"}), "to", ::onnx::TensorProto::FLOAT);
    m.node("Range", {"start", "limit", "delta"}, {"grid"}).set_name("half_steps");
    m.output("grid", kFloat);

    OnnxHarness h;
    EXPECT_FALSE(h.parse(m.bytes()));
    EXPECT_NE(h.parserErrors().find("half_steps"), std::string::npos) << h.parserErrors();
    EXPECT_NE(h.parserErrors().find("Range's length"), std::string::npos) << h.parserErrors();
}

TEST(OnnxParser, BroadcastsLowerRankOperandsAndKeepsTypes)
{
    // ONNX broadcasting: [2, 3] + [3]; then Equal gives BOOL, Where picks.
    ModelBuilder m;
    m.input("a", kFloat, {2, 3});
    m.floats("row", {3}, {10.0F, 20.0F, 30.0F});
    m.floats("limit", {}, {22.0F});
    m.node("Add", {"a", "row"}, {"sum"});
    m.node("Greater", {"sum", "limit"}, {"big"});
    m.node("Where", {"big", "sum", "a"}, {"y"});
    m.output("y", kFloat);

    OnnxHarness h;
    ASSERT_TRUE(h.parse(m.bytes())) << h.parserErrors();
    ASSERT_TRUE(h.build());
    std::vector<float> const a{1, 2, 3, 4, 5, 6};
    std::vector<float> y(6);
    ASSERT_TRUE(h.run({{"a", a.data()}}, {{"y", y.data()}}));
    // sums 11 22 33 / 14 25 36; > 22 keeps the sum, else a.
    expectClose(y, {1, 2, 33, 4, 25, 36}, 1e-5F);
}

TEST(OnnxParser, ReadsWeightsFromExternalDataNextToTheModel)
{
    std::filesystem::path const dir = std::filesystem::temp_directory_path() / "kiln_onnx_external_test";
    std::filesystem::create_directories(dir);
    std::vector<float> const weights{2.0F, -1.0F, 0.5F};
    {
        std::ofstream file(dir / "weights.bin", std::ios::binary);
        std::vector<char> padding(16, 0);
        file.write(padding.data(), static_cast<std::streamsize>(padding.size()));
        file.write(reinterpret_cast<char const*>(weights.data()),
            static_cast<std::streamsize>(weights.size() * sizeof(float)));
    }
    ModelBuilder m;
    m.input("x", kFloat, {3});
    auto& w = m.floats("w", {3}, {});
    w.set_data_location(::onnx::TensorProto::EXTERNAL);
    auto addEntry = [&](char const* key, std::string const& value) {
        auto* entry = w.add_external_data();
        entry->set_key(key);
        entry->set_value(value);
    };
    addEntry("location", "weights.bin");
    addEntry("offset", "16");
    addEntry("length", "12");
    m.node("Mul", {"x", "w"}, {"y"});
    m.output("y", kFloat);
    std::string const modelPath = (dir / "model.onnx").string();
    {
        std::ofstream file(modelPath, std::ios::binary);
        file << m.bytes();
    }

    {
        OnnxHarness h;
        ASSERT_TRUE(h.parser->parseFromFile(modelPath.c_str(), static_cast<int>(nvinfer1::ILogger::Severity::kWARNING)))
            << h.parserErrors();
        ASSERT_TRUE(h.build());
        std::vector<float> const x{1.0F, 2.0F, 4.0F};
        std::vector<float> y(3);
        ASSERT_TRUE(h.run({{"x", x.data()}}, {{"y", y.data()}}));
        expectClose(y, {2.0F, -2.0F, 2.0F}, 1e-5F);
    }
    {
        // The same model from memory without its path cannot find the file.
        OnnxHarness fromMemory;
        EXPECT_FALSE(fromMemory.parse(m.bytes()));
        EXPECT_NE(fromMemory.parserErrors().find("weights.bin"), std::string::npos) << fromMemory.parserErrors();
    }
    {
        // A missing file is named.
        std::filesystem::remove(dir / "weights.bin");
        OnnxHarness missing;
        EXPECT_FALSE(missing.parse(m.bytes(), modelPath.c_str()));
        EXPECT_NE(missing.parserErrors().find("cannot be opened"), std::string::npos) << missing.parserErrors();
    }
    std::filesystem::remove_all(dir);
}

TEST(OnnxParser, FlagsAndQueries)
{
    OnnxHarness h;
    EXPECT_TRUE(h.parser->getFlag(nvonnxparser::OnnxParserFlag::kNATIVE_INSTANCENORM));
    EXPECT_FALSE(h.parser->getFlag(nvonnxparser::OnnxParserFlag::kENABLE_PLUGIN_OVERRIDE));
    h.parser->setFlag(nvonnxparser::OnnxParserFlag::kENABLE_PLUGIN_OVERRIDE);
    EXPECT_TRUE(h.parser->getFlag(nvonnxparser::OnnxParserFlag::kENABLE_PLUGIN_OVERRIDE));
    h.parser->clearFlag(nvonnxparser::OnnxParserFlag::kENABLE_PLUGIN_OVERRIDE);
    EXPECT_FALSE(h.parser->getFlag(nvonnxparser::OnnxParserFlag::kENABLE_PLUGIN_OVERRIDE));
    h.parser->setFlags(0);
    EXPECT_EQ(h.parser->getFlags(), 0U);
    EXPECT_TRUE(h.parser->supportsOperator("Conv"));
    EXPECT_FALSE(h.parser->supportsOperator("NoSuchOp"));
    EXPECT_FALSE(h.parser->supportsOperator(nullptr));
    EXPECT_EQ(getNvOnnxParserVersion(), NV_ONNX_PARSER_VERSION);
}

TEST(OnnxParser, DlaFlagsAreKeptAndReportingDlaCapabilityIsRefused)
{
    ModelBuilder m;
    m.input("x", kFloat, {2});
    m.node("Relu", {"x"}, {"y"});
    m.output("y", kFloat);
    std::string const bytes = m.bytes();

    // kADJUST_FOR_DLA only lets TensorRT rewrite layers for DLA: with no DLA, the parse is the same.
    OnnxHarness adjusted;
    adjusted.parser->setFlag(nvonnxparser::OnnxParserFlag::kADJUST_FOR_DLA);
    EXPECT_TRUE(adjusted.parser->getFlag(nvonnxparser::OnnxParserFlag::kADJUST_FOR_DLA));
    EXPECT_TRUE(adjusted.parse(bytes)) << adjusted.parserErrors();
    EXPECT_EQ(adjusted.network->getNbLayers(), 1);

    // kREPORT_CAPABILITY_DLA fails a parse unless every node runs on DLA; on Kiln none does.
    OnnxHarness reported;
    EXPECT_TRUE(reported.parser->setBuilderConfig(reported.config.get()));
    reported.parser->setFlag(nvonnxparser::OnnxParserFlag::kREPORT_CAPABILITY_DLA);
    EXPECT_FALSE(reported.parse(bytes));
    ASSERT_EQ(reported.parser->getNbErrors(), 1);
    EXPECT_EQ(reported.parser->getError(0)->code(), nvonnxparser::ErrorCode::kUNSUPPORTED_GRAPH);
    EXPECT_NE(reported.parserErrors().find("Kiln has no DLA"), std::string::npos) << reported.parserErrors();
    EXPECT_EQ(reported.network->getNbLayers(), 0);
    SubGraphCollection_t subgraphs;
    EXPECT_FALSE(reported.parser->supportsModel(bytes.data(), bytes.size(), subgraphs));
    EXPECT_FALSE(reported.parser->isSubgraphSupported(0));
}

TEST(OnnxParser, SupportsModelReportsUnsupportedNodes)
{
    ModelBuilder m;
    m.input("x", kFloat, {2});
    m.node("Relu", {"x"}, {"a"});
    m.node("NoSuchOp", {"a"}, {"b"});
    m.node("Relu", {"b"}, {"y"});
    m.output("y", kFloat);
    OnnxHarness h;
    std::string const bytes = m.bytes();
    SubGraphCollection_t subgraphs;
    EXPECT_FALSE(h.parser->supportsModel(bytes.data(), bytes.size(), subgraphs));
    ASSERT_EQ(subgraphs.size(), 3U);
    EXPECT_TRUE(subgraphs[0].second);
    EXPECT_FALSE(subgraphs[1].second);
    EXPECT_EQ(subgraphs[1].first, std::vector<size_t>{1});
    EXPECT_EQ(h.parser->getNbSubgraphs(), 3);
}

TEST(OnnxParser, LayerOutputsAreFoundByNodeName)
{
    ModelBuilder m;
    m.input("x", kFloat, {2});
    m.node("Relu", {"x"}, {"y"}, "my_relu");
    m.output("y", kFloat);
    OnnxHarness h;
    ASSERT_TRUE(h.parse(m.bytes())) << h.parserErrors();
    nvinfer1::ITensor const* output = h.parser->getLayerOutputTensor("my_relu", 0);
    ASSERT_NE(output, nullptr);
    EXPECT_STREQ(output->getName(), "y");
    EXPECT_EQ(h.parser->getLayerOutputTensor("my_relu", 1), nullptr);
    EXPECT_EQ(h.parser->getLayerOutputTensor("nobody", 0), nullptr);
}

//! The kinds of `network`'s layers, in order.
std::vector<nvinfer1::LayerType> layerTypes(nvinfer1::INetworkDefinition const& network)
{
    std::vector<nvinfer1::LayerType> types;
    for (int32_t i = 0; i < network.getNbLayers(); ++i)
    {
        types.push_back(network.getLayer(i)->getType());
    }
    return types;
}

//! An LRN node of `size` over x of `shape`, with alpha / size = 1, beta 1 and `bias`.
ModelBuilder lrnModel(std::vector<int64_t> const& shape, int64_t size, float bias)
{
    ModelBuilder m;
    m.input("x", kFloat, shape);
    auto& node = m.node("LRN", {"x"}, {"y"}, "lrn");
    setInt(node, "size", size);
    setFloat(node, "alpha", static_cast<float>(size));
    setFloat(node, "beta", 1.0F);
    setFloat(node, "bias", bias);
    m.output("y", kFloat);
    return m;
}

TEST(OnnxParser, LrnBecomesTheLayerWhereItTakesTheNode)
{
    // A 4-D input and parameters within TensorRT's ranges: one ILRNLayer with the node's attributes.
    OnnxHarness h;
    ASSERT_TRUE(h.parse(lrnModel({1, 3, 2, 2}, 3, 2.0F).bytes())) << h.parserErrors();
    ASSERT_EQ(layerTypes(*h.network), std::vector<nvinfer1::LayerType>{nvinfer1::LayerType::kLRN});
    auto const* lrn = static_cast<nvinfer1::ILRNLayer const*>(h.network->getLayer(0));
    EXPECT_EQ(lrn->getWindowSize(), 3);
    EXPECT_EQ(lrn->getAlpha(), 3.0F);
    EXPECT_EQ(lrn->getBeta(), 1.0F);
    EXPECT_EQ(lrn->getK(), 2.0F);
    // An even size, a rank other than 4 and a bias below 1e-5 are made of other layers.
    for (ModelBuilder const& m : {lrnModel({1, 4, 2, 2}, 2, 1.0F), lrnModel({1, 3, 2}, 3, 1.0F),
             lrnModel({1, 3, 2, 1, 1}, 3, 1.0F), lrnModel({1, 3, 2, 2}, 3, 0.0F)})
    {
        OnnxHarness composed;
        ASSERT_TRUE(composed.parse(m.bytes())) << composed.parserErrors();
        std::vector<nvinfer1::LayerType> const types = layerTypes(*composed.network);
        EXPECT_EQ(std::count(types.begin(), types.end(), nvinfer1::LayerType::kLRN), 0);
        EXPECT_EQ(std::count(types.begin(), types.end(), nvinfer1::LayerType::kPOOLING), 1);
    }
}

TEST(OnnxParser, LrnOfAnEvenSizeTakesOneChannelMoreAfterThanBefore)
{
    // Size 2 over channels x = 1, 2: ONNX sums channels c to c + 1, so 1 + 4 and 4; with alpha / size = 1, beta 1
    // and bias 1, y = 1 / 6 and 2 / 5.
    OnnxHarness h;
    ASSERT_TRUE(h.parse(lrnModel({1, 2, 1, 1}, 2, 1.0F).bytes())) << h.parserErrors();
    ASSERT_TRUE(h.build());
    std::vector<float> const x{1.0F, 2.0F};
    std::vector<float> y(2);
    ASSERT_TRUE(h.run({{"x", x.data()}}, {{"y", y.data()}}));
    expectClose(y, {1.0F / 6.0F, 0.4F}, 1e-6F);
}

} // namespace
} // namespace kiln::test
