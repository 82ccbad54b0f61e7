// EfficientNMS_TRT and EfficientNMS_ONNX_TRT against torchvision's batched_nms/nms (values printed by torchvision
// 0.x on the CPU, pasted here), against a brute-force NMS written below, and against hand-decoded anchors; with a
// GPU, CUDA against the CPU.
#include "box_reference.h"
#include "expect_close.h"
#include "plugin_harness.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace kiln::test
{
namespace
{

using nvinfer1::DataType;

PluginCall efficientNms(float scoreThreshold, float iouThreshold, int32_t maxOutputBoxes, int32_t backgroundClass = -1,
    int32_t scoreActivation = 0, int32_t boxCoding = 0)
{
    PluginCall call{"EfficientNMS_TRT", "1", {}};
    call.fields.add("score_threshold", scoreThreshold)
        .add("iou_threshold", iouThreshold)
        .add("max_output_boxes", maxOutputBoxes)
        .add("background_class", backgroundClass)
        .add("score_activation", scoreActivation)
        .add("box_coding", boxCoding);
    return call;
}

// Six boxes (x1, y1, x2, y2), two classes: boxes 0/1, 2/3 and 0/4 overlap with IoU about 0.68-0.72.
std::vector<float> const kBoxes{
    0, 0, 10, 10, 1, 1, 11, 11, 20, 20, 30, 30, 21, 19, 31, 29, 0, 0, 10, 10.5F, 50, 50, 60, 60};
std::vector<float> const kScores{0.9F, 0.1F, 0.8F, 0.75F, 0.3F, 0.7F, 0.65F, 0.6F, 0.2F, 0.85F, 0.05F, 0.4F};

std::vector<HostTensor> runSmall(PluginCall& call, DataType type = DataType::kFLOAT)
{
    return runPlugin(kiln::Backend::kCPU, call,
        {fromFloats({1, 6, 4}, kBoxes, type), fromFloats({1, 6, 2}, kScores, type)}, type == DataType::kHALF);
}

TEST(EfficientNmsPlugin, MatchesTorchvisionBatchedNms)
{
    // torchvision.ops.batched_nms over the candidates with score >= 0.25, IoU 0.5, first 5:
    // (box 0, class 0) 0.9, (4, 1) 0.85, (2, 1) 0.7, (3, 0) 0.65, (5, 1) 0.4.
    PluginCall call = efficientNms(0.25F, 0.5F, 5);
    std::vector<HostTensor> const out = runSmall(call);
    ASSERT_EQ(out.size(), 4U);
    EXPECT_EQ(out[0].shape, (Shape{1, 1}));
    EXPECT_EQ(out[1].shape, (Shape{1, 5, 4}));
    EXPECT_EQ(out[0].ints(), (std::vector<int64_t>{5}));
    expectClose(out[1].floats(), {0, 0, 10, 10, 0, 0, 10, 10.5F, 20, 20, 30, 30, 21, 19, 31, 29, 50, 50, 60, 60}, 0.F);
    expectClose(out[2].floats(), {0.9F, 0.85F, 0.7F, 0.65F, 0.4F}, 0.F);
    EXPECT_EQ(out[3].ints(), (std::vector<int64_t>{0, 1, 1, 0, 1}));
}

TEST(EfficientNmsPlugin, ClassAgnosticMatchesTorchvisionNmsAndPadsWithZeros)
{
    // torchvision.ops.nms over the same candidates: (0, 0) 0.9, (2, 1) 0.7, (5, 1) 0.4.
    PluginCall call = efficientNms(0.25F, 0.5F, 5);
    call.fields.add("class_agnostic", 1);
    std::vector<HostTensor> const out = runSmall(call);
    ASSERT_EQ(out.size(), 4U);
    EXPECT_EQ(out[0].ints(), (std::vector<int64_t>{3}));
    expectClose(out[1].floats(), {0, 0, 10, 10, 20, 20, 30, 30, 50, 50, 60, 60, 0, 0, 0, 0, 0, 0, 0, 0}, 0.F);
    expectClose(out[2].floats(), {0.9F, 0.7F, 0.4F, 0.F, 0.F}, 0.F);
    EXPECT_EQ(out[3].ints(), (std::vector<int64_t>{0, 1, 1, 0, 0}));
}

TEST(EfficientNmsPlugin, SkipsTheBackgroundClassAndStopsAtMaxOutputBoxes)
{
    PluginCall call = efficientNms(0.25F, 0.5F, 2, /*backgroundClass=*/0);
    std::vector<HostTensor> const out = runSmall(call);
    ASSERT_EQ(out.size(), 4U);
    // Class 1 only: 0.85 (box 4), 0.75 (box 1) is suppressed by box 4, then 0.7 (box 2).
    EXPECT_EQ(out[0].ints(), (std::vector<int64_t>{2}));
    expectClose(out[2].floats(), {0.85F, 0.7F}, 0.F);
    EXPECT_EQ(out[3].ints(), (std::vector<int64_t>{1, 1}));
}

TEST(EfficientNmsPlugin, ScoreActivationThresholdsLogitsAndOutputsSigmoids)
{
    // Raw scores (logits); the threshold 0.5 is sigmoid(0): logits >= 0 pass.
    std::vector<float> const logits{2.F, -1.F, 0.5F, -3.F, -0.25F, 1.F};
    std::vector<float> const boxes{0, 0, 1, 1, 5, 5, 6, 6, 10, 10, 11, 11};
    PluginCall call = efficientNms(0.5F, 0.5F, 4, -1, /*scoreActivation=*/1);
    std::vector<HostTensor> const out
        = runPlugin(kiln::Backend::kCPU, call, {fromFloats({1, 3, 4}, boxes), fromFloats({1, 3, 2}, logits)});
    ASSERT_EQ(out.size(), 4U);
    EXPECT_EQ(out[0].ints(), (std::vector<int64_t>{3}));
    auto const sigmoid = [](float x) { return 1.F / (1.F + std::exp(-x)); };
    expectClose(out[2].floats(), {sigmoid(2.F), sigmoid(1.F), sigmoid(0.5F), 0.F}, 1e-6F);
    EXPECT_EQ(out[3].ints(), (std::vector<int64_t>{0, 1, 0, 0}));
}

TEST(EfficientNmsPlugin, DecodesCenterSizeBoxesWithAnchorsIntoCorners)
{
    // Anchor (c0, c1, s0, s1) = (10, 20, 4, 8); deltas (0.5, -0.25, ln 2, 0): centre (12, 18), size (8, 8), so the
    // corners are (8, 14, 16, 22). The second anchor's box is far away and kept too.
    std::vector<float> const deltas{0.5F, -0.25F, std::log(2.F), 0.F, 0.F, 0.F, 0.F, 0.F};
    std::vector<float> const anchors{10, 20, 4, 8, 100, 100, 2, 2};
    PluginCall call = efficientNms(0.1F, 0.5F, 2, -1, 0, /*boxCoding=*/1);
    std::vector<HostTensor> const out = runPlugin(kiln::Backend::kCPU, call,
        {fromFloats({1, 2, 4}, deltas), fromFloats({1, 2, 1}, {0.9F, 0.8F}), fromFloats({1, 2, 4}, anchors)});
    ASSERT_EQ(out.size(), 4U);
    EXPECT_EQ(out[0].ints(), (std::vector<int64_t>{2}));
    expectClose(out[1].floats(), {8, 14, 16, 22, 99, 99, 101, 101}, 1e-5F);
}

TEST(EfficientNmsPlugin, EqualScoresKeepTheLowerFlatIndexFirst)
{
    // Four disjoint boxes with one class and equal scores: output order is the box order.
    std::vector<float> const boxes{30, 30, 31, 31, 0, 0, 1, 1, 20, 20, 21, 21, 10, 10, 11, 11};
    PluginCall call = efficientNms(0.1F, 0.5F, 4);
    std::vector<HostTensor> const out = runPlugin(
        kiln::Backend::kCPU, call, {fromFloats({1, 4, 4}, boxes), fromFloats({1, 4, 1}, {0.5F, 0.5F, 0.5F, 0.5F})});
    ASSERT_EQ(out.size(), 4U);
    expectClose(out[1].floats(), boxes, 0.F);
}

// The brute-force reference: repeatedly take the best remaining candidate (highest score, then lowest flat index
// anchor * classes + class), keep it, and drop the remaining ones of its class that overlap it with IoU >= iou.
struct Detection
{
    int32_t cls;
    float score;
    std::array<float, 4> box;
};

std::vector<Detection> bruteForceNms(float const* boxes, float const* scores, int32_t anchors, int32_t classes,
    float scoreThreshold, float iouThreshold, int32_t maxOut)
{
    std::vector<bool> removed(static_cast<size_t>(anchors * classes), false);
    std::vector<Detection> kept;
    while (static_cast<int32_t>(kept.size()) < maxOut)
    {
        int32_t best = -1;
        for (int32_t e = 0; e < anchors * classes; ++e)
        {
            if (!removed[e] && scores[e] >= scoreThreshold && (best < 0 || scores[e] > scores[best]))
            {
                best = e;
            }
        }
        if (best < 0)
        {
            break;
        }
        float const* box = boxes + (best / classes) * 4;
        kept.push_back(Detection{best % classes, scores[best], {box[0], box[1], box[2], box[3]}});
        for (int32_t e = 0; e < anchors * classes; ++e)
        {
            if (e % classes == best % classes && plainIou(box, boxes + (e / classes) * 4) >= iouThreshold)
            {
                removed[e] = true;
            }
        }
    }
    return kept;
}

//! Boxes with corners in order, in clusters so that many overlap; scores distinct with high probability.
void randomInputs(int32_t batch, int32_t anchors, int32_t classes, std::vector<float>& boxes,
    std::vector<float>& scores, uint32_t seed)
{
    uint32_t state = seed;
    auto next = [&state] {
        state = state * 1664525U + 1013904223U;
        return static_cast<float>(state >> 8) / 16777216.F;
    };
    boxes.resize(static_cast<size_t>(batch * anchors * 4));
    scores.resize(static_cast<size_t>(batch * anchors * classes));
    for (size_t i = 0; i < boxes.size(); i += 4)
    {
        float const x = std::floor(next() * 8.F) * 10.F + next() * 4.F;
        float const y = std::floor(next() * 8.F) * 10.F + next() * 4.F;
        boxes[i] = x;
        boxes[i + 1] = y;
        boxes[i + 2] = x + 6.F + next() * 6.F;
        boxes[i + 3] = y + 6.F + next() * 6.F;
    }
    for (float& s : scores)
    {
        s = next();
    }
}

TEST(EfficientNmsPlugin, MatchesABruteForceNmsOnRandomBoxes)
{
    int32_t constexpr kBatch = 2, kAnchors = 300, kClasses = 3, kMax = 60;
    std::vector<float> boxes, scores;
    randomInputs(kBatch, kAnchors, kClasses, boxes, scores, 7U);
    PluginCall call = efficientNms(0.2F, 0.45F, kMax);
    std::vector<HostTensor> const out = runPlugin(kiln::Backend::kCPU, call,
        {fromFloats({kBatch, kAnchors, 4}, boxes), fromFloats({kBatch, kAnchors, kClasses}, scores)});
    ASSERT_EQ(out.size(), 4U);
    std::vector<int64_t> const counts = out[0].ints();
    std::vector<float> const outBoxes = out[1].floats();
    std::vector<float> const outScores = out[2].floats();
    std::vector<int64_t> const outClasses = out[3].ints();
    for (int32_t b = 0; b < kBatch; ++b)
    {
        std::vector<Detection> const expected = bruteForceNms(boxes.data() + b * kAnchors * 4,
            scores.data() + b * kAnchors * kClasses, kAnchors, kClasses, 0.2F, 0.45F, kMax);
        ASSERT_EQ(counts[b], static_cast<int64_t>(expected.size()));
        EXPECT_GT(expected.size(), 20U); // enough kept, and enough suppressed, to mean something
        for (size_t k = 0; k < expected.size(); ++k)
        {
            size_t const slot = b * kMax + k;
            EXPECT_EQ(outClasses[slot], expected[k].cls) << "image " << b << " slot " << k;
            EXPECT_EQ(outScores[slot], expected[k].score) << "image " << b << " slot " << k;
            for (size_t v = 0; v < 4; ++v)
            {
                EXPECT_EQ(outBoxes[slot * 4 + v], expected[k].box[v]);
            }
        }
    }
}

TEST(EfficientNmsPlugin, RunsInFp16)
{
    PluginCall call = efficientNms(0.25F, 0.5F, 5);
    std::vector<HostTensor> const out = runSmall(call, DataType::kHALF);
    ASSERT_EQ(out.size(), 4U);
    EXPECT_EQ(out[1].type, DataType::kHALF);
    EXPECT_EQ(out[0].ints(), (std::vector<int64_t>{5}));
    expectClose(out[2].floats(), {0.9F, 0.85F, 0.7F, 0.65F, 0.4F}, 1e-3F);
    EXPECT_EQ(out[3].ints(), (std::vector<int64_t>{0, 1, 1, 0, 1}));
}

TEST(EfficientNmsOnnxPlugin, WritesSelectedIndicesPaddedWithTheLastRow)
{
    PluginCall call{"EfficientNMS_ONNX_TRT", "1", {}};
    call.fields.add("score_threshold", 0.25F).add("iou_threshold", 0.5F).add("max_output_boxes_per_class", 4);
    call.fields.add("center_point_box", 0);
    // Two images: the small case, and the same with every score below the threshold but one.
    std::vector<float> boxes = kBoxes;
    boxes.insert(boxes.end(), kBoxes.begin(), kBoxes.end());
    std::vector<float> scores = kScores;
    std::vector<float> second(12, 0.F);
    second[5] = 0.5F; // box 2, class 1
    scores.insert(scores.end(), second.begin(), second.end());
    std::vector<HostTensor> const out
        = runPlugin(kiln::Backend::kCPU, call, {fromFloats({2, 6, 4}, boxes), fromFloats({2, 6, 2}, scores)});
    ASSERT_EQ(out.size(), 1U);
    EXPECT_EQ(out[0].shape, (Shape{8, 3}));
    EXPECT_EQ(
        out[0].ints(), (std::vector<int64_t>{0, 0, 0, 0, 1, 4, 0, 1, 2, 0, 0, 3, 1, 1, 2, 1, 1, 2, 1, 1, 2, 1, 1, 2}));
}

TEST(EfficientNmsPlugin, CudaMatchesTheCpu)
{
    SKIP_WITHOUT_GPU();
    int32_t constexpr kBatch = 3, kAnchors = 5000, kClasses = 4, kMax = 300;
    std::vector<float> boxes, scores;
    randomInputs(kBatch, kAnchors, kClasses, boxes, scores, 11U);
    for (DataType const type : {DataType::kFLOAT, DataType::kHALF})
    {
        for (int32_t agnostic : {0, 1})
        {
            PluginCall call = efficientNms(0.05F, 0.5F, kMax);
            call.fields.add("class_agnostic", agnostic);
            std::vector<HostTensor> const inputs{
                fromFloats({kBatch, kAnchors, 4}, boxes, type), fromFloats({kBatch, kAnchors, kClasses}, scores, type)};
            bool const half = type == DataType::kHALF;
            std::vector<HostTensor> const cpu = runPlugin(kiln::Backend::kCPU, call, inputs, half);
            std::vector<HostTensor> const cuda = runPlugin(kiln::Backend::kCUDA, call, inputs, half);
            ASSERT_EQ(cuda.size(), 4U);
            EXPECT_EQ(cuda[0].ints(), cpu[0].ints());
            expectClose(cuda[1].floats(), cpu[1].floats(), half ? 1e-2F : 1e-5F);
            expectClose(cuda[2].floats(), cpu[2].floats(), half ? 1e-3F : 1e-6F);
            EXPECT_EQ(cuda[3].ints(), cpu[3].ints());
        }
    }
    PluginCall onnx{"EfficientNMS_ONNX_TRT", "1", {}};
    onnx.fields.add("score_threshold", 0.3F).add("iou_threshold", 0.5F).add("max_output_boxes_per_class", 50);
    std::vector<HostTensor> const inputs{
        fromFloats({kBatch, kAnchors, 4}, boxes), fromFloats({kBatch, kAnchors, kClasses}, scores)};
    std::vector<HostTensor> const cpu = runPlugin(kiln::Backend::kCPU, onnx, inputs);
    std::vector<HostTensor> const cuda = runPlugin(kiln::Backend::kCUDA, onnx, inputs);
    ASSERT_EQ(cuda.size(), 1U);
    EXPECT_EQ(cuda[0].ints(), cpu[0].ints());
}

TEST(EfficientNmsPlugin, BadFieldsAreErrorsNamingPluginFieldAndValue)
{
    PluginCall missing{"EfficientNMS_TRT", "1", {}};
    missing.fields.add("score_threshold", 0.5F);
    EXPECT_NE(creationErrors(missing).find("EfficientNMS_TRT: the required field 'iou_threshold' is missing"),
        std::string::npos);

    PluginCall coding = efficientNms(0.5F, 0.5F, 10, -1, 0, 2);
    EXPECT_NE(creationErrors(coding).find("EfficientNMS_TRT: field 'box_coding' is 2"), std::string::npos);

    PluginCall maxBoxes = efficientNms(0.5F, 0.5F, 0);
    EXPECT_NE(creationErrors(maxBoxes).find("field 'max_output_boxes' is 0; expected > 0"), std::string::npos);

    PluginCall wrongType{"EfficientNMS_TRT", "1", {}};
    wrongType.fields.add("score_threshold", 0.5F).add("iou_threshold", 0.5F).add("max_output_boxes", 1.5F);
    EXPECT_NE(creationErrors(wrongType).find("field 'max_output_boxes' holds kFLOAT32 data; expected integers"),
        std::string::npos);

    PluginCall onnx{"EfficientNMS_ONNX_TRT", "1", {}};
    onnx.fields.add("max_output_boxes_per_class", -3);
    EXPECT_NE(creationErrors(onnx).find("EfficientNMS_ONNX_TRT: field 'max_output_boxes_per_class' is -3"),
        std::string::npos);
}

} // namespace
} // namespace kiln::test
