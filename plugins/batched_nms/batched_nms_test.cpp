// BatchedNMSDynamic_TRT and BatchedNMS_TRT against torchvision's batched_nms (values printed by torchvision on the
// CPU, pasted here), hand-computed overlaps, and a brute-force NMS written below (also with topK 10,000 and
// keepTopK 5,000); with a GPU, CUDA against the CPU.
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

PluginCall batchedNms(int32_t numClasses, int32_t topK, int32_t keepTopK, float scoreThreshold, float iouThreshold,
    char const* name = "BatchedNMSDynamic_TRT")
{
    PluginCall call{name, "1", {}};
    call.fields.add("numClasses", numClasses)
        .add("topK", topK)
        .add("keepTopK", keepTopK)
        .add("scoreThreshold", scoreThreshold)
        .add("iouThreshold", iouThreshold);
    return call;
}

// The boxes of efficient_nms_test.cpp divided by 100 (normalized), two classes.
std::vector<float> const kBoxes{0, 0, .1F, .1F, .01F, .01F, .11F, .11F, .2F, .2F, .3F, .3F, .21F, .19F, .31F, .29F, 0,
    0, .1F, .105F, .5F, .5F, .6F, .6F};
std::vector<float> const kScores{0.9F, 0.1F, 0.8F, 0.75F, 0.3F, 0.7F, 0.65F, 0.6F, 0.2F, 0.85F, 0.05F, 0.4F};

TEST(BatchedNmsPlugin, MatchesTorchvisionBatchedNmsAndPadsWithClassMinusOne)
{
    // torchvision.ops.batched_nms over the scores > 0.25, IoU 0.5: (box 0, class 0) 0.9, (4, 1) 0.85, (2, 1) 0.7,
    // (3, 0) 0.65, (5, 1) 0.4; nothing else survives.
    PluginCall call = batchedNms(2, 100, 7, 0.25F, 0.5F);
    std::vector<HostTensor> const out
        = runPlugin(kiln::Backend::kCPU, call, {fromFloats({1, 6, 1, 4}, kBoxes), fromFloats({1, 6, 2}, kScores)});
    ASSERT_EQ(out.size(), 4U);
    EXPECT_EQ(out[0].shape, (Shape{1, 1}));
    EXPECT_EQ(out[1].shape, (Shape{1, 7, 4}));
    EXPECT_EQ(out[0].ints(), (std::vector<int64_t>{5}));
    expectClose(out[1].floats(),
        {0, 0, .1F, .1F, 0, 0, .1F, .105F, .2F, .2F, .3F, .3F, .21F, .19F, .31F, .29F, .5F, .5F, .6F, .6F, 0, 0, 0, 0,
            0, 0, 0, 0},
        0.F);
    expectClose(out[2].floats(), {0.9F, 0.85F, 0.7F, 0.65F, 0.4F, 0.F, 0.F}, 0.F);
    expectClose(out[3].floats(), {0, 1, 1, 0, 1, -1, -1}, 0.F);
}

TEST(BatchedNmsPlugin, LegacyInterfaceGivesTheSameDetections)
{
    PluginCall call = batchedNms(2, 100, 7, 0.25F, 0.5F, "BatchedNMS_TRT");
    std::vector<HostTensor> const out
        = runPlugin(kiln::Backend::kCPU, call, {fromFloats({1, 6, 1, 4}, kBoxes), fromFloats({1, 6, 2}, kScores)});
    ASSERT_EQ(out.size(), 4U);
    EXPECT_EQ(out[0].shape, (Shape{1})); // NVIDIA's num_detections has no axis but the batch here
    EXPECT_EQ(out[0].ints(), (std::vector<int64_t>{5}));
    expectClose(out[2].floats(), {0.9F, 0.85F, 0.7F, 0.65F, 0.4F, 0.F, 0.F}, 0.F);
    expectClose(out[3].floats(), {0, 1, 1, 0, 1, -1, -1}, 0.F);
}

// Boxes (0, 0, 9, 9) and (5, 0, 14, 9) in pixels: Caffe semantics count 10 x 10 areas and a 5 x 10 overlap, IoU 1/3;
// without them the overlap is 4 x 9 and the areas still 10 x 10: IoU 36/164 = 0.22.
std::vector<HostTensor> pixelPair(int32_t caffeSemantics)
{
    PluginCall call = batchedNms(1, 10, 2, 0.F, 0.3F);
    call.fields.add("isNormalized", 0).add("clipBoxes", 0).add("caffeSemantics", caffeSemantics);
    return runPlugin(kiln::Backend::kCPU, call,
        {fromFloats({1, 2, 1, 4}, {0, 0, 9, 9, 5, 0, 14, 9}), fromFloats({1, 2, 1}, {0.9F, 0.8F})});
}

TEST(BatchedNmsPlugin, UnnormalizedBoxesFollowCaffeSemanticsWhenAsked)
{
    std::vector<HostTensor> const caffe = pixelPair(1);
    ASSERT_EQ(caffe.size(), 4U);
    EXPECT_EQ(caffe[0].ints(), (std::vector<int64_t>{1}));
    std::vector<HostTensor> const plain = pixelPair(0);
    ASSERT_EQ(plain.size(), 4U);
    EXPECT_EQ(plain[0].ints(), (std::vector<int64_t>{2}));
    expectClose(plain[1].floats(), {0, 0, 9, 9, 5, 0, 14, 9}, 0.F);
}

TEST(BatchedNmsPlugin, ClipsBoxesByDefault)
{
    PluginCall call = batchedNms(1, 10, 1, 0.F, 0.5F);
    std::vector<HostTensor> const out = runPlugin(kiln::Backend::kCPU, call,
        {fromFloats({1, 1, 1, 4}, {-0.5F, 0.25F, 1.5F, 0.75F}), fromFloats({1, 1, 1}, {0.5F})});
    ASSERT_EQ(out.size(), 4U);
    expectClose(out[1].floats(), {0.F, 0.25F, 1.F, 0.75F}, 0.F);
}

TEST(BatchedNmsPlugin, UsesPerClassBoxesWithoutShareLocation)
{
    // Box 0 of class 1 overlaps box 1 of class 1; class 0's boxes are disjoint.
    std::vector<float> const boxes{0, 0, .1F, .1F, .5F, .5F, .6F, .6F, .3F, .3F, .4F, .4F, .5F, .5F, .61F, .6F};
    PluginCall call = batchedNms(2, 10, 4, 0.1F, 0.5F);
    call.fields.add("shareLocation", 0);
    std::vector<HostTensor> const out = runPlugin(
        kiln::Backend::kCPU, call, {fromFloats({1, 2, 2, 4}, boxes), fromFloats({1, 2, 2}, {0.9F, 0.8F, 0.7F, 0.6F})});
    ASSERT_EQ(out.size(), 4U);
    EXPECT_EQ(out[0].ints(), (std::vector<int64_t>{3}));
    expectClose(out[3].floats(), {0, 1, 0, -1}, 0.F);
    expectClose(out[1].floats(), {0, 0, .1F, .1F, .5F, .5F, .6F, .6F, .3F, .3F, .4F, .4F, 0, 0, 0, 0}, 0.F);
}

TEST(BatchedNmsPlugin, TopKLimitsEachClassAndTiesKeepClassThenBoxOrder)
{
    // Four disjoint boxes, equal scores in both classes: topK 3 keeps boxes 0-2 of each class; the image order puts
    // class 0 before class 1 and, within a class, the lower box first.
    std::vector<float> const boxes{0, 0, .1F, .1F, .2F, .2F, .3F, .3F, .4F, .4F, .5F, .5F, .6F, .6F, .7F, .7F};
    PluginCall call = batchedNms(2, 3, 8, 0.1F, 0.5F);
    std::vector<float> const equal(8, .5F);
    std::vector<HostTensor> const out
        = runPlugin(kiln::Backend::kCPU, call, {fromFloats({1, 4, 1, 4}, boxes), fromFloats({1, 4, 2}, equal)});
    ASSERT_EQ(out.size(), 4U);
    EXPECT_EQ(out[0].ints(), (std::vector<int64_t>{6}));
    expectClose(out[3].floats(), {0, 0, 0, 1, 1, 1, -1, -1}, 0.F);
    expectClose(out[1].floats(),
        {0, 0, .1F, .1F, .2F, .2F, .3F, .3F, .4F, .4F, .5F, .5F, 0, 0, .1F, .1F, .2F, .2F, .3F, .3F, .4F, .4F, .5F, .5F,
            0, 0, 0, 0, 0, 0, 0, 0},
        0.F);
}

// The brute-force reference: per class, repeatedly take the best remaining box (highest score, then lowest index)
// among the first topK by score, keep it, drop those overlapping it with IoU > iou (normalized boxes); then all
// survivors by score (ties: lower class, then earlier in the class), the first keepTopK.
struct Detection
{
    int32_t cls;
    float score;
    int32_t box;
};

std::vector<Detection> bruteForce(float const* boxes, float const* scores, int32_t n, int32_t classes, int32_t topK,
    int32_t keepTopK, float scoreThreshold, float iouThreshold)
{
    std::vector<Detection> all;
    for (int32_t c = 0; c < classes; ++c)
    {
        std::vector<int32_t> order;
        for (int32_t b = 0; b < n; ++b)
        {
            if (scores[b * classes + c] > scoreThreshold)
            {
                order.push_back(b);
            }
        }
        std::stable_sort(order.begin(), order.end(),
            [&](int32_t x, int32_t y) { return scores[x * classes + c] > scores[y * classes + c]; });
        order.resize(std::min<size_t>(order.size(), static_cast<size_t>(topK)));
        std::vector<bool> removed(order.size(), false);
        for (size_t i = 0; i < order.size(); ++i)
        {
            if (removed[i])
            {
                continue;
            }
            all.push_back(Detection{c, scores[order[i] * classes + c], order[i]});
            for (size_t j = i + 1; j < order.size(); ++j)
            {
                if (plainIou(boxes + order[i] * 4, boxes + order[j] * 4) > iouThreshold)
                {
                    removed[j] = true;
                }
            }
        }
    }
    std::stable_sort(all.begin(), all.end(), [](Detection const& a, Detection const& b) { return a.score > b.score; });
    all.resize(std::min<size_t>(all.size(), static_cast<size_t>(keepTopK)));
    return all;
}

//! Normalized boxes on a grid of `side` x `side` cells, some of them jittered copies of a neighbour (so that NMS
//! has something to do), and random scores.
void gridInputs(int32_t batch, int32_t n, int32_t classes, int32_t side, std::vector<float>& boxes,
    std::vector<float>& scores, uint32_t seed)
{
    uint32_t state = seed;
    auto next = [&state] {
        state = state * 1664525U + 1013904223U;
        return static_cast<float>(state >> 8) / 16777216.F;
    };
    float const cell = 1.F / static_cast<float>(side);
    boxes.resize(static_cast<size_t>(batch * n * 4));
    scores.resize(static_cast<size_t>(batch * n * classes));
    for (int32_t i = 0; i < batch * n; ++i)
    {
        int32_t const at = (i % n) % (side * side);
        float const x = static_cast<float>(at % side) * cell + next() * 0.2F * cell;
        float const y = static_cast<float>(at / side) * cell + next() * 0.2F * cell;
        boxes[i * 4 + 0] = x;
        boxes[i * 4 + 1] = y;
        boxes[i * 4 + 2] = x + cell * (0.6F + 0.2F * next());
        boxes[i * 4 + 3] = y + cell * (0.6F + 0.2F * next());
    }
    for (float& s : scores)
    {
        s = next();
    }
}

void expectBruteForce(
    int32_t batch, int32_t n, int32_t classes, int32_t side, int32_t topK, int32_t keepTopK, size_t minimumKept)
{
    std::vector<float> boxes, scores;
    gridInputs(batch, n, classes, side, boxes, scores, 5U);
    float constexpr kScore = 0.05F, kIou = 0.5F;
    PluginCall call = batchedNms(classes, topK, keepTopK, kScore, kIou);
    std::vector<HostTensor> const out = runPlugin(
        kiln::Backend::kCPU, call, {fromFloats({batch, n, 1, 4}, boxes), fromFloats({batch, n, classes}, scores)});
    ASSERT_EQ(out.size(), 4U);
    std::vector<int64_t> const counts = out[0].ints();
    std::vector<float> const outBoxes = out[1].floats();
    std::vector<float> const outScores = out[2].floats();
    std::vector<float> const outClasses = out[3].floats();
    for (int32_t b = 0; b < batch; ++b)
    {
        std::vector<Detection> const expected = bruteForce(
            boxes.data() + b * n * 4, scores.data() + b * n * classes, n, classes, topK, keepTopK, kScore, kIou);
        EXPECT_GE(expected.size(), minimumKept);
        ASSERT_EQ(counts[b], static_cast<int64_t>(expected.size()));
        for (size_t k = 0; k < expected.size(); ++k)
        {
            size_t const slot = b * keepTopK + k;
            ASSERT_EQ(outClasses[slot], static_cast<float>(expected[k].cls)) << "image " << b << " slot " << k;
            ASSERT_EQ(outScores[slot], expected[k].score) << "image " << b << " slot " << k;
            for (size_t v = 0; v < 4; ++v)
            {
                ASSERT_EQ(outBoxes[slot * 4 + v], boxes[(b * n + expected[k].box) * 4 + v]);
            }
        }
    }
}

TEST(BatchedNmsPlugin, MatchesABruteForceNmsOnRandomBoxes)
{
    expectBruteForce(2, 400, 3, 12, 200, 150, 100);
}

TEST(BatchedNmsPlugin, HasNoTopKCapWithTopK10000AndKeepTopK5000)
{
    // 12,000 boxes on a 100 x 100 grid: the first 10,000 by score of each class enter NMS, thousands survive.
    expectBruteForce(1, 12'000, 2, 100, 10'000, 5'000, 5'000);
}

TEST(BatchedNmsPlugin, RunsInFp16)
{
    PluginCall call = batchedNms(2, 100, 7, 0.25F, 0.5F);
    std::vector<HostTensor> const out = runPlugin(kiln::Backend::kCPU, call,
        {fromFloats({1, 6, 1, 4}, kBoxes, DataType::kHALF), fromFloats({1, 6, 2}, kScores, DataType::kHALF)}, true);
    ASSERT_EQ(out.size(), 4U);
    EXPECT_EQ(out[2].type, DataType::kHALF);
    EXPECT_EQ(out[0].ints(), (std::vector<int64_t>{5}));
    expectClose(out[2].floats(), {0.9F, 0.85F, 0.7F, 0.65F, 0.4F, 0.F, 0.F}, 1e-3F);
    expectClose(out[3].floats(), {0, 1, 1, 0, 1, -1, -1}, 0.F);
}

void expectCudaMatchesCpu(PluginCall& call, std::vector<HostTensor> const& inputs, bool half)
{
    std::vector<HostTensor> const cpu = runPlugin(kiln::Backend::kCPU, call, inputs, half);
    std::vector<HostTensor> const cuda = runPlugin(kiln::Backend::kCUDA, call, inputs, half);
    ASSERT_EQ(cuda.size(), 4U);
    EXPECT_EQ(cuda[0].ints(), cpu[0].ints());
    expectClose(cuda[1].floats(), cpu[1].floats(), 0.F);
    expectClose(cuda[2].floats(), cpu[2].floats(), 0.F);
    expectClose(cuda[3].floats(), cpu[3].floats(), 0.F);
}

TEST(BatchedNmsPlugin, CudaMatchesTheCpu)
{
    SKIP_WITHOUT_GPU();
    std::vector<float> boxes, scores;
    gridInputs(2, 3000, 4, 40, boxes, scores, 9U);
    for (DataType const type : {DataType::kFLOAT, DataType::kHALF})
    {
        PluginCall call = batchedNms(4, 1000, 500, 0.05F, 0.5F);
        expectCudaMatchesCpu(call, {fromFloats({2, 3000, 1, 4}, boxes, type), fromFloats({2, 3000, 4}, scores, type)},
            type == DataType::kHALF);
    }
    PluginCall legacy = batchedNms(4, 1000, 500, 0.05F, 0.5F, "BatchedNMS_TRT");
    expectCudaMatchesCpu(legacy, {fromFloats({2, 3000, 1, 4}, boxes), fromFloats({2, 3000, 4}, scores)}, false);

    gridInputs(1, 12'000, 2, 100, boxes, scores, 5U);
    PluginCall large = batchedNms(2, 10'000, 5'000, 0.05F, 0.5F);
    expectCudaMatchesCpu(large, {fromFloats({1, 12'000, 1, 4}, boxes), fromFloats({1, 12'000, 2}, scores)}, false);
}

TEST(BatchedNmsPlugin, BadFieldsAreErrorsNamingPluginFieldAndValue)
{
    PluginCall missing{"BatchedNMSDynamic_TRT", "1", {}};
    missing.fields.add("numClasses", 3);
    EXPECT_NE(
        creationErrors(missing).find("BatchedNMSDynamic_TRT: the required field 'topK' is missing"), std::string::npos);

    PluginCall keep = batchedNms(3, 100, 0, 0.1F, 0.5F, "BatchedNMS_TRT");
    EXPECT_NE(creationErrors(keep).find("BatchedNMS_TRT: field 'keepTopK' is 0; expected > 0"), std::string::npos);

    PluginCall background = batchedNms(3, 100, 10, 0.1F, 0.5F);
    background.fields.add("backgroundLabelId", 3);
    EXPECT_NE(creationErrors(background).find("field 'backgroundLabelId' is 3"), std::string::npos);

    PluginCall wrongType{"BatchedNMSDynamic_TRT", "1", {}};
    wrongType.fields.add("numClasses", 3).add("topK", 2.5F);
    EXPECT_NE(creationErrors(wrongType).find("field 'topK' holds kFLOAT32 data; expected integers"), std::string::npos);
}

} // namespace
} // namespace kiln::test
