// Bad uses of the Resize, Einsum, CumSum, Trilu, Range, Concat, GridSample, ReverseSequence, ScatterND,
// ScatterElements, Scatter, OneHot, Hardmax, EyeLike, Compress, RoiAlign, MaxUnpool, LRN, window, LSTM, GRU, RNN, Loop
// and Scan importers: each
// fails to parse with an error that names the node, its op and the reason (for the scatters' operands, which input is
// wrong and how), and nothing crashes. (Their values are checked against ONNX's node tests and ONNX Runtime elsewhere.)
// GridSample's opset-20 spellings of its modes are checked to parse, ReverseSequence's batch_axis 0 on an input whose
// two extents differ, NonZero's data-dependent output feeding Transpose and GatherND (ONNX's boolean-mask idiom) builds
// and runs, and the scatters' reductions and negative axis reach the layer.
#include "onnx_harness.h"
#include "recording_output_allocator.h"

#include <kiln/ScatterReduction.h>

#include <cstring>
#include <tuple>

namespace
{

using kiln::test::expectNodeError;
using kiln::test::ModelBuilder;
using kiln::test::OnnxHarness;

constexpr int32_t kFloat = ::onnx::TensorProto::FLOAT;
constexpr int32_t kInt64 = ::onnx::TensorProto::INT64;

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

//! An LSTM over x [5, 2, 3] with hidden size 4, its weights zeros; `extra` adds inputs after B.
ModelBuilder lstmModel(std::vector<std::string> const& extra = {})
{
    ModelBuilder m;
    m.input("x", kFloat, {5, 2, 3});
    m.floats("w", {1, 16, 3}, std::vector<float>(48));
    m.floats("r", {1, 16, 4}, std::vector<float>(64));
    m.floats("b", {1, 32}, std::vector<float>(32));
    std::vector<std::string> inputs{"x", "w", "r", "b"};
    inputs.insert(inputs.end(), extra.begin(), extra.end());
    kiln::test::setInt(m.node("LSTM", inputs, {"y"}, "bad"), "hidden_size", 4);
    m.output("y", kFloat);
    return m;
}

TEST(OnnxNewOpErrors, RecurrentOpsNameWhatTheyRefuse)
{
    ModelBuilder coupled = lstmModel();
    kiln::test::setInt(*coupled.model.mutable_graph()->mutable_node(0), "input_forget", 1);
    expectNodeError(coupled, nvonnxparser::ErrorCode::kUNSUPPORTED_NODE_ATTR, "LSTM", "input_forget");

    ModelBuilder lengths = lstmModel({"lengths"});
    lengths.input("lengths", ::onnx::TensorProto::INT32, {2, 1});
    expectNodeError(lengths, nvonnxparser::ErrorCode::kINVALID_NODE, "LSTM", "sequence_lens must be 1-D");

    ModelBuilder activation = lstmModel();
    auto& names = kiln::test::addAttribute(
        *activation.model.mutable_graph()->mutable_node(0), "activations", ::onnx::AttributeProto::STRINGS);
    for (char const* name : {"Sigmoid", "Gelu", "Tanh"})
    {
        names.add_strings(name);
    }
    expectNodeError(activation, nvonnxparser::ErrorCode::kUNSUPPORTED_NODE_ATTR, "LSTM", "\"gelu\"");

    ModelBuilder count = lstmModel();
    auto& two = kiln::test::addAttribute(
        *count.model.mutable_graph()->mutable_node(0), "activations", ::onnx::AttributeProto::STRINGS);
    two.add_strings("Sigmoid");
    expectNodeError(count, nvonnxparser::ErrorCode::kINVALID_NODE, "LSTM", "holds 1 functions");
}

TEST(OnnxNewOpErrors, LoopScanOutputsNeedATripCountAndScanNeedsOpset9)
{
    // Loop without M whose body stacks a scan output: its length would be known only once the loop has run.
    ModelBuilder m(13);
    m.input("cond", ::onnx::TensorProto::BOOL, {});
    m.input("x", kFloat, {2});
    auto& loop = m.node("Loop", {"", "cond", "x"}, {"final", "stacked"}, "bad");
    auto& body = *kiln::test::addAttribute(loop, "body", ::onnx::AttributeProto::GRAPH).mutable_g();
    body.set_name("body");
    for (auto const& [name, type] :
        {std::pair{"i", kInt64}, std::pair{"c", int32_t{::onnx::TensorProto::BOOL}}, std::pair{"v", kFloat}})
    {
        auto* input = body.add_input();
        input->set_name(name);
        input->mutable_type()->mutable_tensor_type()->set_elem_type(type);
    }
    auto* negate = body.add_node();
    negate->set_op_type("Not");
    negate->add_input("c");
    negate->add_output("c_out");
    auto* twice = body.add_node();
    twice->set_op_type("Add");
    twice->add_input("v");
    twice->add_input("v");
    twice->add_output("v_out");
    for (char const* name : {"c_out", "v_out", "v_out"})
    {
        body.add_output()->set_name(name);
    }
    m.output("final", kFloat);
    m.output("stacked", kFloat);
    expectNodeError(m, nvonnxparser::ErrorCode::kUNSUPPORTED_NODE_INPUT, "Loop", "input M");

    ModelBuilder old(8);
    old.input("x", kFloat, {1, 3, 2});
    kiln::test::setInt(old.node("Scan", {"", "x"}, {"y"}, "bad"), "num_scan_inputs", 1);
    old.output("y", kFloat);
    expectNodeError(old, nvonnxparser::ErrorCode::kUNSUPPORTED_NODE, "Scan", "opset 9");
}

TEST(OnnxNewOpErrors, ResizeModesTensorRTLacksAreNamed)
{
    ModelBuilder m(13);
    m.input("x", kFloat, {1, 1, 2, 2});
    m.floats("roi", {0}, {});
    m.floats("scales", {4}, {1, 1, 2, 2});
    kiln::test::setString(
        m.node("Resize", {"x", "roi", "scales"}, {"y"}, "bad"), "coordinate_transformation_mode", "tf_crop_and_resize");
    m.output("y", kFloat);
    expectNodeError(m, nvonnxparser::ErrorCode::kUNSUPPORTED_NODE_ATTR, "Resize", "tf_crop_and_resize");

    ModelBuilder wrongRank(13);
    wrongRank.input("x", kFloat, {1, 1, 2, 2});
    wrongRank.floats("roi", {0}, {});
    wrongRank.floats("scales", {2}, {2, 2});
    wrongRank.node("Resize", {"x", "roi", "scales"}, {"y"}, "bad");
    wrongRank.output("y", kFloat);
    expectNodeError(
        wrongRank, nvonnxparser::ErrorCode::kINVALID_NODE, "Resize", "2 scales or sizes for an input of rank 4");
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
    expectNodeError(
        m, nvonnxparser::ErrorCode::kINVALID_NODE, "Concat", "input 1 has extent 3 on axis 0 where input 0 has 2");
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
    for (auto const& [batchAxis, timeAxis, text] : {std::tuple{2, 0, "batch_axis 2 is not 0 or 1"},
             std::tuple{1, -1, "time_axis -1 is not 0 or 1"}, std::tuple{0, 0, "batch_axis and time_axis are both 0"}})
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

//! A model with one scatter node "bad" of `op` on data "x", indices "i" and updates "u" of the given types and dims.
ModelBuilder scatterModel(char const* op, std::array<std::pair<int32_t, std::vector<int64_t>>, 3> const& operands)
{
    ModelBuilder m(18);
    m.input("x", operands[0].first, operands[0].second);
    m.input("i", operands[1].first, operands[1].second);
    m.input("u", operands[2].first, operands[2].second);
    m.node(op, {"x", "i", "u"}, {"y"}, "bad");
    m.output("y", operands[0].first);
    return m;
}

TEST(OnnxNewOpErrors, ScatterOperandsOfWrongTypesRanksAndShapesAreNamed)
{
    using nvonnxparser::ErrorCode;
    std::vector<std::tuple<char const*, std::array<std::pair<int32_t, std::vector<int64_t>>, 3>, char const*>> const
        cases{
            {"ScatterND", {{{kFloat, {4, 4}}, {kFloat, {2, 1}}, {kFloat, {2, 4}}}},
                "the scatter indices (input 1) must be INT32 or INT64, not FLOAT"},
            {"ScatterND", {{{kFloat, {4, 4}}, {kInt64, {2, 1}}, {kInt64, {2, 4}}}},
                "the scatter updates (input 2) must have the data's type FLOAT, not INT64"},
            {"ScatterND", {{{kFloat, {4, 4}}, {kInt64, {2, 3}}, {kFloat, {2}}}},
                "the scatter indices (input 1) hold tuples of 3 coordinates; a kND scatter into data of rank 2"},
            {"ScatterND", {{{kFloat, {4, 4}}, {kInt64, {2, 1}}, {kFloat, {2}}}},
                "the scatter updates (input 2) must have rank 2 (the indices' tuples and the data's slices), not 1"},
            {"ScatterND", {{{kFloat, {4, 4}}, {kInt64, {2, 1}}, {kFloat, {3, 4}}}},
                "the scatter updates (input 2) have extent 3 in dim 0 where the indices' tuples"},
            {"ScatterElements", {{{kFloat, {4, 4}}, {kInt64, {4}}, {kFloat, {4}}}},
                "the scatter indices (input 1) of a kELEMENT scatter must have the data's rank 2, not 1"},
            {"Scatter", {{{kFloat, {4, 4}}, {kInt64, {2, 2}}, {kFloat, {2, 3}}}},
                "the scatter updates (input 2) have extent 3 in dim 1 where the indices' extents give 2"},
        };
    for (auto const& [op, operands, text] : cases)
    {
        SCOPED_TRACE(text);
        expectNodeError(scatterModel(op, operands), ErrorCode::kUNSUPPORTED_NODE, op, text);
    }
}

TEST(OnnxNewOpErrors, ScatterAttributesOutOfRangeAreNamed)
{
    ModelBuilder reduction = scatterModel("ScatterND", {{{kFloat, {4}}, {kInt64, {2, 1}}, {kFloat, {2}}}});
    kiln::test::setString(*reduction.model.mutable_graph()->mutable_node(0), "reduction", "sum");
    expectNodeError(reduction, nvonnxparser::ErrorCode::kUNSUPPORTED_NODE_ATTR, "ScatterND",
        "reduction \"sum\" is not none, add, mul, max or min");
    ModelBuilder axis = scatterModel("ScatterElements", {{{kFloat, {4, 4}}, {kInt64, {2, 2}}, {kFloat, {2, 2}}}});
    kiln::test::setInt(*axis.model.mutable_graph()->mutable_node(0), "axis", 2);
    expectNodeError(
        axis, nvonnxparser::ErrorCode::kINVALID_NODE, "ScatterElements", "axis 2 is out of range for rank 2");
}

TEST(OnnxNewOpErrors, ScatterReductionsAndNegativeAxisReachTheLayer)
{
    for (auto const& [name, reduction] :
        {std::pair{"add", kiln::ScatterReduction::kADD}, std::pair{"mul", kiln::ScatterReduction::kMUL},
            std::pair{"max", kiln::ScatterReduction::kMAX}, std::pair{"min", kiln::ScatterReduction::kMIN}})
    {
        ModelBuilder m = scatterModel("ScatterElements", {{{kFloat, {3, 4}}, {kInt64, {3, 2}}, {kFloat, {3, 2}}}});
        kiln::test::setString(*m.model.mutable_graph()->mutable_node(0), "reduction", name);
        kiln::test::setInt(*m.model.mutable_graph()->mutable_node(0), "axis", -1);
        OnnxHarness h;
        ASSERT_TRUE(h.parse(m.bytes())) << h.parserErrors();
        ASSERT_EQ(h.network->getNbLayers(), 1);
        auto* layer = dynamic_cast<nvinfer1::IScatterLayer*>(h.network->getLayer(0));
        ASSERT_NE(layer, nullptr);
        EXPECT_EQ(layer->getMode(), nvinfer1::ScatterMode::kELEMENT);
        EXPECT_EQ(layer->getAxis(), 1);
        EXPECT_EQ(kiln::getScatterReduction(*layer), reduction) << name;
    }
}

TEST(OnnxNewOpErrors, OneHotNeedsItsDepthAtBuildTimeAndTwoValues)
{
    // A FLOAT depth fed at run time is no shape tensor (an INT64 one is a shape input, whose values the application
    // gives with the input shapes): IOneHotLayer sizes its output from it.
    ModelBuilder runTimeDepth;
    runTimeDepth.input("indices", kInt64, {3});
    runTimeDepth.input("depth", kFloat, {});
    runTimeDepth.floats("values", {2}, {0, 1});
    runTimeDepth.node("OneHot", {"indices", "depth", "values"}, {"y"}, "bad");
    runTimeDepth.output("y", kFloat);
    expectNodeError(runTimeDepth, nvonnxparser::ErrorCode::kUNSUPPORTED_NODE_INPUT, "OneHot", "OneHot's depth");

    ModelBuilder threeValues;
    threeValues.input("indices", kInt64, {3});
    threeValues.int64s("depth", {}, {4});
    threeValues.floats("values", {3}, {0, 1, 2});
    threeValues.node("OneHot", {"indices", "depth", "values"}, {"y"}, "bad");
    threeValues.output("y", kFloat);
    expectNodeError(threeValues, nvonnxparser::ErrorCode::kINVALID_NODE, "OneHot", "two elements: [off, on]");

    ModelBuilder farAxis;
    farAxis.input("indices", kInt64, {3});
    farAxis.int64s("depth", {}, {4});
    farAxis.floats("values", {2}, {0, 1});
    kiln::test::setInt(farAxis.node("OneHot", {"indices", "depth", "values"}, {"y"}, "bad"), "axis", 2);
    farAxis.output("y", kFloat);
    expectNodeError(farAxis, nvonnxparser::ErrorCode::kINVALID_NODE, "OneHot", "axis 2 is out of range");
}

TEST(OnnxNewOpErrors, HardmaxBeforeOpset13IsNamed)
{
    ModelBuilder m(11);
    m.input("x", kFloat, {2, 3});
    m.node("Hardmax", {"x"}, {"y"}, "bad");
    m.output("y", kFloat);
    expectNodeError(m, nvonnxparser::ErrorCode::kUNSUPPORTED_NODE, "Hardmax", "opset 13");
}

TEST(OnnxNewOpErrors, EyeLikeAndCompressNameTheRanksTheyTake)
{
    ModelBuilder eye;
    eye.input("x", kFloat, {2, 3, 4});
    eye.node("EyeLike", {"x"}, {"y"}, "bad");
    eye.output("y", kFloat);
    expectNodeError(eye, nvonnxparser::ErrorCode::kINVALID_NODE, "EyeLike", "must be 2-D, not of rank 3");

    ModelBuilder compress;
    compress.input("x", kFloat, {2, 3});
    compress.input("condition", ::onnx::TensorProto::BOOL, {2, 3});
    compress.node("Compress", {"x", "condition"}, {"y"}, "bad");
    compress.output("y", kFloat);
    expectNodeError(compress, nvonnxparser::ErrorCode::kINVALID_NODE, "Compress", "condition must be 1-D");
}

TEST(OnnxNewOpErrors, RoiAlignWithoutThePluginCollectionSaysHowToRegisterIt)
{
    // This program registers no plugin library: RoiAlign, which imports as ROIAlign_TRT, says what to call.
    ModelBuilder m(16);
    m.input("x", kFloat, {1, 1, 4, 4});
    m.floats("rois", {1, 4}, {0, 0, 2, 2});
    m.int64s("batch_indices", {1}, {0});
    m.node("RoiAlign", {"x", "rois", "batch_indices"}, {"y"}, "bad");
    m.output("y", kFloat);
    expectNodeError(m, nvonnxparser::ErrorCode::kUNSUPPORTED_NODE, "RoiAlign", "call initLibNvInferPlugins");
}

TEST(OnnxNewOpErrors, MaxUnpoolNamesAnOutputShapeItCannotMake)
{
    // Pooled [1, 1, 2, 2] by 2 x 2 windows unpools to [1, 1, 4, 4]; output_shape may only pad that.
    ModelBuilder m;
    m.input("x", kFloat, {1, 1, 2, 2});
    m.input("indices", kInt64, {1, 1, 2, 2});
    m.int64s("output_shape", {4}, {1, 1, 3, 3});
    auto& node = m.node("MaxUnpool", {"x", "indices", "output_shape"}, {"y"}, "bad");
    kiln::test::setInts(node, "kernel_shape", {2, 2});
    kiln::test::setInts(node, "strides", {2, 2});
    m.output("y", kFloat);
    expectNodeError(m, nvonnxparser::ErrorCode::kINVALID_NODE, "MaxUnpool", "smaller than the unpooled tensor");
}

TEST(OnnxNewOpErrors, LrnNamesItsRankAndSize)
{
    ModelBuilder flat;
    flat.input("x", kFloat, {2, 3});
    kiln::test::setInt(flat.node("LRN", {"x"}, {"y"}, "bad"), "size", 3);
    flat.output("y", kFloat);
    expectNodeError(flat, nvonnxparser::ErrorCode::kINVALID_NODE, "LRN", "not rank 2");

    ModelBuilder empty;
    empty.input("x", kFloat, {1, 3, 2, 2});
    kiln::test::setInt(empty.node("LRN", {"x"}, {"y"}, "bad"), "size", 0);
    empty.output("y", kFloat);
    expectNodeError(empty, nvonnxparser::ErrorCode::kINVALID_NODE, "LRN", "size must be positive, not 0");
}

TEST(OnnxNewOpErrors, WindowsNameTheirSizeAndType)
{
    ModelBuilder negative;
    negative.int64s("size", {}, {-2});
    negative.node("HannWindow", {"size"}, {"y"}, "bad");
    negative.output("y", kFloat);
    expectNodeError(negative, nvonnxparser::ErrorCode::kINVALID_NODE, "HannWindow", "one non-negative integer");

    ModelBuilder inDouble;
    inDouble.int64s("size", {}, {8});
    kiln::test::setInt(
        inDouble.node("BlackmanWindow", {"size"}, {"y"}, "bad"), "output_datatype", ::onnx::TensorProto::DOUBLE);
    inDouble.output("y", ::onnx::TensorProto::DOUBLE);
    expectNodeError(inDouble, nvonnxparser::ErrorCode::kUNSUPPORTED_NODE_DATATYPE, "BlackmanWindow", "DOUBLE");
}

} // namespace
