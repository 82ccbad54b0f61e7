// The NonMaxSuppression importer beyond ONNX's node tests (which feed every input as a graph input):
// max_output_boxes_per_class as an initializer (which bounds the memory planned), a Constant node, a graph input, or
// absent (nothing selected); no score_threshold (every score counts, negative ones too); center_point_box 1; the
// selected indices feeding a Gather as torchvision's exported nms does; and the node's errors.
#include "onnx_harness.h"
#include "recording_output_allocator.h"

#include <cstring>
#include <optional>

namespace
{

using kiln::test::ModelBuilder;
using kiln::test::OnnxHarness;

constexpr int32_t kFloat = ::onnx::TensorProto::FLOAT;
constexpr int32_t kInt64 = ::onnx::TensorProto::INT64;

// ONNX's suppress_by_IOU example: boxes 0-2 overlap, 3-4 overlap, 5 is apart; selected 3, 0, 5.
std::vector<float> const kCorners{
    0, 0, 1, 1, 0, 0.1F, 1, 1.1F, 0, -0.1F, 1, 0.9F, 0, 10, 1, 11, 0, 10.1F, 1, 11.1F, 0, 100, 1, 101};
std::vector<float> const kScores{0.9F, 0.75F, 0.6F, 0.95F, 0.5F, 0.3F};

//! A model with inputs "boxes" [1, 6, 4] and "scores" [1, 1, 6], iou_threshold 0.5 (an initializer), the given
//! max_output_boxes_per_class input name ("" for none) and output "selected".
ModelBuilder nmsModel(std::string const& maxOut, int64_t centerPointBox = 0)
{
    ModelBuilder m(11);
    m.input("boxes", kFloat, {1, 6, 4});
    m.input("scores", kFloat, {1, 1, 6});
    m.floats("iou", {}, {0.5F});
    auto& node = m.node("NonMaxSuppression", {"boxes", "scores", maxOut, "iou"}, {"selected"}, "nms");
    kiln::test::setInt(node, "center_point_box", centerPointBox);
    m.output("selected", kInt64);
    return m;
}

//! Parses, builds and runs m; the rows of "selected" (INT64), with the bytes planned for it checked where given.
std::vector<int64_t> selectedBy(ModelBuilder const& m, std::vector<float> const& boxes,
    std::vector<float> const& scores, std::optional<int64_t> maxOut = std::nullopt,
    std::optional<int64_t> plannedBytes = std::nullopt)
{
    OnnxHarness h;
    EXPECT_TRUE(h.parse(m.bytes())) << h.parserErrors();
    if (!h.build())
    {
        return {-1};
    }
    if (plannedBytes)
    {
        EXPECT_EQ(h.context->getMaxOutputSize("selected"), *plannedBytes);
    }
    kiln::test::RecordingOutputAllocator selected;
    EXPECT_TRUE(h.context->setOutputAllocator("selected", &selected));
    std::map<std::string, void const*> inputs{{"boxes", boxes.data()}, {"scores", scores.data()}};
    if (maxOut)
    {
        inputs["max_out"] = &*maxOut;
    }
    if (!h.run(inputs, {}))
    {
        return {-1};
    }
    std::vector<int64_t> rows(static_cast<size_t>(selected.shapes.back().at(0) * 3));
    if (!rows.empty())
    {
        std::memcpy(rows.data(), selected.memory(), rows.size() * sizeof(int64_t));
    }
    return rows;
}

TEST(OnnxNonMaxSuppression, MaxOutputBoxesPerClassFromAnInitializerBoundsTheMemory)
{
    ModelBuilder m = nmsModel("max_out");
    m.int64s("max_out", {1}, {2});
    // One batch item, one class, at most 2 boxes: 2 rows of 3 INT64.
    EXPECT_EQ(selectedBy(m, kCorners, kScores, std::nullopt, 2 * 3 * 8), (std::vector<int64_t>{0, 0, 3, 0, 0, 0}));
    ModelBuilder huge = nmsModel("max_out");
    huge.int64s("max_out", {}, {std::numeric_limits<int64_t>::max()}); // torchvision's nms: no limit
    EXPECT_EQ(selectedBy(huge, kCorners, kScores, std::nullopt, 6 * 3 * 8),
        (std::vector<int64_t>{0, 0, 3, 0, 0, 0, 0, 0, 5}));
}

TEST(OnnxNonMaxSuppression, MaxOutputBoxesPerClassFromAConstantNode)
{
    ModelBuilder m = nmsModel("max_out");
    auto& constant = m.node("Constant", {}, {"max_out"}, "limit");
    auto& value = kiln::test::addAttribute(constant, "value", ::onnx::AttributeProto::TENSOR);
    value.mutable_t()->set_data_type(::onnx::TensorProto::INT64);
    value.mutable_t()->add_int64_data(1);
    // The Constant comes before the NMS node that reads it.
    m.model.mutable_graph()->mutable_node()->SwapElements(0, 1);
    EXPECT_EQ(selectedBy(m, kCorners, kScores, std::nullopt, 1 * 3 * 8), (std::vector<int64_t>{0, 0, 3}));
}

TEST(OnnxNonMaxSuppression, MaxOutputBoxesPerClassFromAGraphInputOrAbsent)
{
    ModelBuilder m = nmsModel("max_out");
    m.input("max_out", kInt64, {1});
    for (auto const& [limit, expected] : {std::pair<int64_t, std::vector<int64_t>>{3, {0, 0, 3, 0, 0, 0, 0, 0, 5}},
             std::pair<int64_t, std::vector<int64_t>>{1, {0, 0, 3}}, std::pair<int64_t, std::vector<int64_t>>{0, {}},
             std::pair<int64_t, std::vector<int64_t>>{-5, {}},
             std::pair<int64_t, std::vector<int64_t>>{int64_t{1} << 40, {0, 0, 3, 0, 0, 0, 0, 0, 5}}})
    {
        EXPECT_EQ(selectedBy(m, kCorners, kScores, limit, 6 * 3 * 8), expected) << limit;
    }
    EXPECT_EQ(selectedBy(nmsModel(""), kCorners, kScores), (std::vector<int64_t>{}));
}

TEST(OnnxNonMaxSuppression, WithoutScoreThresholdNegativeScoresCount)
{
    ModelBuilder m = nmsModel("max_out");
    m.int64s("max_out", {1}, {3});
    std::vector<float> negative;
    for (float score : kScores)
    {
        negative.push_back(score - 1.0F);
    }
    EXPECT_EQ(selectedBy(m, kCorners, negative), (std::vector<int64_t>{0, 0, 3, 0, 0, 0, 0, 0, 5}));
}

TEST(OnnxNonMaxSuppression, CenterPointBoxAndTorchvisionsGatherOfTheBoxIndices)
{
    // ONNX's center_point_box_format example; then the box column, as torchvision's exported nms takes it.
    std::vector<float> const centers{
        0.5F, 0.5F, 1, 1, 0.5F, 0.6F, 1, 1, 0.5F, 0.4F, 1, 1, 0.5F, 10.5F, 1, 1, 0.5F, 10.6F, 1, 1, 0.5F, 100.5F, 1, 1};
    ModelBuilder m = nmsModel("max_out", 1);
    m.int64s("max_out", {1}, {3});
    m.int64s("column", {}, {2});
    kiln::test::setInt(m.node("Gather", {"selected", "column"}, {"keep"}, "keep"), "axis", 1);
    m.output("keep", kInt64);
    OnnxHarness h;
    ASSERT_TRUE(h.parse(m.bytes())) << h.parserErrors();
    ASSERT_TRUE(h.build());
    kiln::test::RecordingOutputAllocator selected;
    kiln::test::RecordingOutputAllocator keep;
    ASSERT_TRUE(h.context->setOutputAllocator("selected", &selected));
    ASSERT_TRUE(h.context->setOutputAllocator("keep", &keep));
    ASSERT_TRUE(h.run({{"boxes", centers.data()}, {"scores", kScores.data()}}, {}));
    ASSERT_EQ(keep.shapes.back(), (std::vector<int64_t>{3}));
    std::vector<int64_t> kept(3);
    std::memcpy(kept.data(), keep.memory(), sizeof(int64_t) * 3);
    EXPECT_EQ(kept, (std::vector<int64_t>{3, 0, 5}));
}

//! Parses m, expects one error at node "nms" with the code, whose text contains `text`.
void expectNmsError(ModelBuilder const& m, nvonnxparser::ErrorCode code, char const* text)
{
    OnnxHarness h;
    EXPECT_FALSE(h.parse(m.bytes()));
    ASSERT_EQ(h.parser->getNbErrors(), 1) << h.parserErrors();
    nvonnxparser::IParserError const* error = h.parser->getError(0);
    EXPECT_EQ(error->code(), code) << error->desc();
    EXPECT_STREQ(error->nodeName(), "nms");
    EXPECT_NE(std::string(error->desc()).find(text), std::string::npos) << error->desc();
}

TEST(OnnxNonMaxSuppression, NodeErrorsAreNamed)
{
    expectNmsError(nmsModel("", 2), nvonnxparser::ErrorCode::kINVALID_NODE, "center_point_box must be 0 or 1, not 2");
    ModelBuilder twoValues = nmsModel("max_out");
    twoValues.int64s("max_out", {2}, {1, 2});
    expectNmsError(twoValues, nvonnxparser::ErrorCode::kINVALID_NODE,
        "max_output_boxes_per_class (input 2) must "
        "hold one value, not 2");
    ModelBuilder flat(11);
    flat.input("boxes", kFloat, {6, 4});
    flat.input("scores", kFloat, {1, 1, 6});
    flat.node("NonMaxSuppression", {"boxes", "scores"}, {"selected"}, "nms");
    flat.output("selected", kInt64);
    expectNmsError(flat, nvonnxparser::ErrorCode::kINVALID_NODE, "not of ranks 2 and 3");
    ModelBuilder mismatched(11);
    mismatched.input("boxes", kFloat, {1, 5, 4});
    mismatched.input("scores", kFloat, {1, 1, 6});
    mismatched.node("NonMaxSuppression", {"boxes", "scores"}, {"selected"}, "nms");
    mismatched.output("selected", kInt64);
    expectNmsError(mismatched, nvonnxparser::ErrorCode::kUNSUPPORTED_NODE, "the boxes have 5 boxes but the scores 6");
}

} // namespace
