// Bad uses of the Resize, Einsum, CumSum, Trilu, Range, Concat, GridSample and ReverseSequence importers:
// each fails to parse with an error that names the node, its op and the reason, and nothing crashes. (Their values
// are checked against ONNX's node tests and ONNX Runtime elsewhere.) GridSample's opset-20 spellings of its modes are
// checked to parse, ReverseSequence's batch_axis 0 on an input whose two extents differ, and NonZero's data-dependent
// output feeding Transpose and GatherND (ONNX's boolean-mask idiom) builds and runs.
#include "onnx_harness.h"
#include "recording_output_allocator.h"

#include <cstring>

#include <tuple>

namespace
{

using kiln::test::ModelBuilder;
using kiln::test::OnnxHarness;

constexpr int32_t kFloat = ::onnx::TensorProto::FLOAT;
constexpr int32_t kInt64 = ::onnx::TensorProto::INT64;

//! Parses m, expects exactly one error at node 0 named "bad" with the code, whose text contains `text`.
void expectNodeError(ModelBuilder const& m, nvonnxparser::ErrorCode code, std::string const& op, char const* text)
{
    OnnxHarness h;
    EXPECT_FALSE(h.parse(m.bytes()));
    ASSERT_EQ(h.parser->getNbErrors(), 1) << h.parserErrors();
    nvonnxparser::IParserError const* error = h.parser->getError(0);
    EXPECT_EQ(error->code(), code) << error->desc();
    EXPECT_STREQ(error->nodeName(), "bad");
    EXPECT_EQ(error->nodeOperator(), op);
    EXPECT_NE(std::string(error->desc()).find(text), std::string::npos) << error->desc();
}

TEST(OnnxNewOpErrors, EinsumEllipsisAndDiagonalAreUnsupported)
{
    for (auto const& [equation, text] : {std::pair{"...ij->...ji", "ellipsis"}, std::pair{"ii->i", "diagonals"}})
    {
        ModelBuilder m;
        m.input("x", kFloat, {3, 3});
        kiln::test::setString(m.node("Einsum", {"x"}, {"y"}, "bad"), "equation", equation);
        m.output("y", kFloat);
        expectNodeError(m, nvonnxparser::ErrorCode::kUNSUPPORTED_NODE_ATTR, "Einsum", text);
    }
    ModelBuilder m;
    m.input("x", kFloat, {3, 3});
    kiln::test::setString(m.node("Einsum", {"x"}, {"y"}, "bad"), "equation", "ijk->i");
    m.output("y", kFloat);
    expectNodeError(m, nvonnxparser::ErrorCode::kINVALID_NODE, "Einsum", "has rank 2 but its labels are \"ijk\"");
}

TEST(OnnxNewOpErrors, ResizeModesTensorRTLacksAreNamed)
{
    ModelBuilder m(13);
    m.input("x", kFloat, {1, 1, 2, 2});
    m.floats("roi", {0}, {});
    m.floats("scales", {4}, {1, 1, 2, 2});
    kiln::test::setString(m.node("Resize", {"x", "roi", "scales"}, {"y"}, "bad"), "coordinate_transformation_mode",
        "tf_crop_and_resize");
    m.output("y", kFloat);
    expectNodeError(m, nvonnxparser::ErrorCode::kUNSUPPORTED_NODE_ATTR, "Resize", "tf_crop_and_resize");

    ModelBuilder wrongRank(13);
    wrongRank.input("x", kFloat, {1, 1, 2, 2});
    wrongRank.floats("roi", {0}, {});
    wrongRank.floats("scales", {2}, {2, 2});
    wrongRank.node("Resize", {"x", "roi", "scales"}, {"y"}, "bad");
    wrongRank.output("y", kFloat);
    expectNodeError(wrongRank, nvonnxparser::ErrorCode::kINVALID_NODE, "Resize", "2 scales or sizes for an input of rank 4");
}

TEST(OnnxNewOpErrors, CumSumAxisMustBeConstant)
{
    ModelBuilder m;
    m.input("x", kFloat, {4});
    m.input("axis", kInt64, {});
    m.node("CumSum", {"x", "axis"}, {"y"}, "bad");
    m.output("y", kFloat);
    expectNodeError(m, nvonnxparser::ErrorCode::kUNSUPPORTED_NODE_INPUT, "CumSum", "input 1 (axis)");
}

TEST(OnnxNewOpErrors, TriluNeedsRankTwo)
{
    ModelBuilder m(14);
    m.input("x", kFloat, {4});
    m.node("Trilu", {"x"}, {"y"}, "bad");
    m.output("y", kFloat);
    expectNodeError(m, nvonnxparser::ErrorCode::kINVALID_NODE, "Trilu", "rank 2 or more");
}

TEST(OnnxNewOpErrors, RangeFromDataIsNamed)
{
    // Floating-point bounds read from a graph input are data, not shapes: the output's length would depend on
    // input values. (An INT64 bound from a graph input is a shape tensor, which a profile bounds.)
    ModelBuilder m(13);
    m.input("limit", kFloat, {});
    m.floats("start", {}, {0.0F});
    m.floats("delta", {}, {1.0F});
    m.node("Range", {"start", "limit", "delta"}, {"y"}, "bad");
    m.output("y", kFloat);
    expectNodeError(m, nvonnxparser::ErrorCode::kUNSUPPORTED_NODE_INPUT, "Range", "Range's length");
}

TEST(OnnxNewOpErrors, ConcatExtentMismatchIsNamed)
{
    ModelBuilder m;
    m.input("a", kFloat, {2, 3});
    m.input("b", kFloat, {3, 3});
    kiln::test::setInt(m.node("Concat", {"a", "b"}, {"y"}, "bad"), "axis", 1);
    m.output("y", kFloat);
    expectNodeError(m, nvonnxparser::ErrorCode::kINVALID_NODE, "Concat", "input 1 has extent 3 on axis 0 where input 0 has 2");
}

TEST(OnnxNewOpErrors, GridSampleModesAndRanksTensorRTLacksAreNamed)
{
    ModelBuilder m(16);
    m.input("x", kFloat, {1, 1, 2, 2});
    m.input("grid", kFloat, {1, 3, 3, 2});
    kiln::test::setString(m.node("GridSample", {"x", "grid"}, {"y"}, "bad"), "mode", "area");
    m.output("y", kFloat);
    expectNodeError(m, nvonnxparser::ErrorCode::kUNSUPPORTED_NODE_ATTR, "GridSample", "mode \"area\"");

    ModelBuilder padding(16);
    padding.input("x", kFloat, {1, 1, 2, 2});
    padding.input("grid", kFloat, {1, 3, 3, 2});
    kiln::test::setString(padding.node("GridSample", {"x", "grid"}, {"y"}, "bad"), "padding_mode", "wrap");
    padding.output("y", kFloat);
    expectNodeError(padding, nvonnxparser::ErrorCode::kUNSUPPORTED_NODE_ATTR, "GridSample", "padding_mode \"wrap\"");

    // Opset 20's volumetric GridSample: IGridSampleLayer samples 4-D inputs only.
    ModelBuilder volumetric(20);
    volumetric.input("x", kFloat, {1, 1, 2, 2, 2});
    volumetric.input("grid", kFloat, {1, 3, 3, 3, 3});
    volumetric.node("GridSample", {"x", "grid"}, {"y"}, "bad");
    volumetric.output("y", kFloat);
    expectNodeError(volumetric, nvonnxparser::ErrorCode::kUNSUPPORTED_NODE, "GridSample", "4-D inputs");
}

TEST(OnnxNewOpErrors, GridSampleTakesOpset20Spellings)
{
    ModelBuilder m(20);
    m.input("x", kFloat, {1, 1, 2, 2});
    m.input("grid", kFloat, {1, 3, 3, 2});
    ::onnx::NodeProto& node = m.node("GridSample", {"x", "grid"}, {"y"}, "sample");
    kiln::test::setString(node, "mode", "cubic");
    kiln::test::setString(node, "padding_mode", "reflection");
    kiln::test::setInt(node, "align_corners", 1);
    m.output("y", kFloat);
    OnnxHarness h;
    ASSERT_TRUE(h.parse(m.bytes())) << h.parserErrors();
    ASSERT_EQ(h.network->getNbLayers(), 1);
    auto* layer = dynamic_cast<nvinfer1::IGridSampleLayer*>(h.network->getLayer(0));
    ASSERT_NE(layer, nullptr);
    EXPECT_EQ(layer->getInterpolationMode(), nvinfer1::InterpolationMode::kCUBIC);
    EXPECT_EQ(layer->getSampleMode(), nvinfer1::SampleMode::kREFLECT);
    EXPECT_TRUE(layer->getAlignCorners());
}

TEST(OnnxNewOpErrors, ReverseSequenceAxesOtherThanZeroAndOneAreNamed)
{
    for (auto const& [batchAxis, timeAxis, text] :
        {std::tuple{2, 0, "batch_axis 2 is not 0 or 1"}, std::tuple{1, -1, "time_axis -1 is not 0 or 1"},
            std::tuple{0, 0, "batch_axis and time_axis are both 0"}})
    {
        ModelBuilder m(10);
        m.input("x", kFloat, {3, 3, 2});
        m.input("lens", kInt64, {3});
        ::onnx::NodeProto& node = m.node("ReverseSequence", {"x", "lens"}, {"y"}, "bad");
        kiln::test::setInt(node, "batch_axis", batchAxis);
        kiln::test::setInt(node, "time_axis", timeAxis);
        m.output("y", kFloat);
        expectNodeError(m, nvonnxparser::ErrorCode::kINVALID_NODE, "ReverseSequence", text);
    }
}

TEST(OnnxNewOpErrors, ReverseSequenceTakesBatchAxisZeroWhateverTheExtents)
{
    // Two lengths for x [2, 5]: they match batch_axis 0, not the layer's default batch axis 1, which the importer
    // sets only after adding the layer.
    ModelBuilder m(10);
    m.input("x", kFloat, {2, 5});
    m.input("lens", kInt64, {2});
    ::onnx::NodeProto& node = m.node("ReverseSequence", {"x", "lens"}, {"y"}, "reverse");
    kiln::test::setInt(node, "batch_axis", 0);
    kiln::test::setInt(node, "time_axis", 1);
    m.output("y", kFloat);
    OnnxHarness h;
    ASSERT_TRUE(h.parse(m.bytes())) << h.parserErrors();
    ASSERT_EQ(h.network->getNbLayers(), 1);
    auto* layer = dynamic_cast<nvinfer1::IReverseSequenceLayer*>(h.network->getLayer(0));
    ASSERT_NE(layer, nullptr);
    EXPECT_EQ(layer->getBatchAxis(), 0);
    EXPECT_EQ(layer->getSequenceAxis(), 1);
}

TEST(OnnxNewOpErrors, NonZeroPositionsGatherTheSelectedElements)
{
    // y = x[x > 0] as PyTorch exports it: GatherND(x, Transpose(NonZero(Greater(x, 0)))).
    ModelBuilder m(13);
    m.input("x", kFloat, {2, 3});
    m.floats("zero", {}, {0});
    m.node("Greater", {"x", "zero"}, {"mask"}, "mask");
    m.node("NonZero", {"mask"}, {"positions"}, "positions");
    m.node("Transpose", {"positions"}, {"columns"}, "columns");
    m.node("GatherND", {"x", "columns"}, {"y"}, "gather");
    m.output("y", kFloat);
    OnnxHarness h;
    ASSERT_TRUE(h.parse(m.bytes())) << h.parserErrors();
    ASSERT_TRUE(h.build());
    kiln::test::RecordingOutputAllocator y;
    ASSERT_TRUE(h.context->setOutputAllocator("y", &y));
    std::vector<float> const x{-1, 2, 0, 4, -5, 6};
    ASSERT_TRUE(h.run({{"x", x.data()}}, {}));
    ASSERT_EQ(y.shapes, (std::vector<std::vector<int64_t>>{{3}}));
    std::vector<float> values(3);
    std::memcpy(values.data(), y.memory(), sizeof(float) * 3);
    EXPECT_EQ(values, (std::vector<float>{2, 4, 6}));
}

} // namespace
