// DetectionLayer_TRT against hand-worked detections, against a plain reference on random inputs, and, with a GPU,
// CUDA against the CPU.
#include "expect_close.h"
#include "mask_rcnn_test_reference.h"
#include "plugin_harness.h"

#include <cmath>

namespace kiln::test
{
namespace
{

namespace ref = mrcnn_reference;
using ref::Box;

PluginCall detectionLayer(int32_t classes, int32_t keepTopK, float scoreThreshold, float iou)
{
    PluginCall call{"DetectionLayer_TRT", "1", {}};
    call.fields.add("num_classes", classes).add("keep_topk", keepTopK);
    call.fields.add("score_threshold", scoreThreshold).add("iou_threshold", iou);
    return call;
}

// Three classes (0 is the background), seven ROIs, score threshold 0.5, IoU 0.5:
// r0 class 1 (0.8), zero deltas: stays [0.1, 0.1, 0.3, 0.3].
// r1 class 1 (0.7), [0.12, 0.1, 0.32, 0.3]: IoU with r0 0.036 / 0.044 = 0.82, suppressed.
// r2 class 2 (0.7), the same box: another class, kept.
// r3's best class is the background (0.6): dropped.
// r4 class 1 at 0.45: below the threshold, dropped.
// r5 class 2 (0.6), [0.5, 0.5, 0.9, 0.9] with class 2's deltas (1, -1, 5 ln 0.5, 0): centre (0.7 + 0.1 * 0.4,
//    0.7 - 0.1 * 0.4), height 0.2, width 0.4: [0.64, 0.46, 0.84, 0.86] (class 1's deltas 5, 5, 5, 5 must not apply).
// r6 class 2 (0.9), [0.8, 0.8, 1, 1] with deltas (0, 0, 5 ln 2, 5 ln 2): [0.7, 0.7, 1.1, 1.1] clipped to 1.
std::vector<HostTensor> handInputs()
{
    std::vector<float> const rois{0.1F, 0.1F, 0.3F, 0.3F, 0.12F, 0.1F, 0.32F, 0.3F, 0.12F, 0.1F, 0.32F, 0.3F, 0.5F,
        0.5F, 0.7F, 0.9F, 0.6F, 0.6F, 0.8F, 0.8F, 0.5F, 0.5F, 0.9F, 0.9F, 0.8F, 0.8F, 1.F, 1.F};
    std::vector<float> const scores{0.1F, 0.8F, 0.1F, 0.05F, 0.7F, 0.25F, 0.1F, 0.2F, 0.7F, 0.6F, 0.3F, 0.1F, 0.2F,
        0.45F, 0.35F, 0.1F, 0.3F, 0.6F, 0.F, 0.F, 0.9F};
    std::vector<float> deltas(7 * 3 * 4, 0.F);
    float const half = 5.F * std::log(0.5F);
    float const twice = 5.F * std::log(2.F);
    std::vector<float> const r5{0, 0, 0, 0, 5, 5, 5, 5, 1, -1, half, 0};
    std::copy(r5.begin(), r5.end(), deltas.begin() + 5 * 12);
    std::vector<float> const r6{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, twice, twice};
    std::copy(r6.begin(), r6.end(), deltas.begin() + 6 * 12);
    return {fromFloats({1, 7, 12, 1, 1}, deltas), fromFloats({1, 7, 3, 1, 1}, scores), fromFloats({1, 7, 4}, rois)};
}

TEST(DetectionLayerPlugin, RefinesByTheBestClassAndKeepsPerClassNmsSurvivorsByScore)
{
    PluginCall call = detectionLayer(3, 6, 0.5F, 0.5F);
    std::vector<HostTensor> const out = runPlugin(kiln::Backend::kCPU, call, handInputs());
    ASSERT_EQ(out.size(), 1U);
    EXPECT_EQ(out[0].shape, (Shape{1, 6, 6}));
    expectClose(out[0].floats(),
        {0.7F, 0.7F, 1.F, 1.F, 2.F, 0.9F,          // r6
            0.1F, 0.1F, 0.3F, 0.3F, 1.F, 0.8F,     // r0
            0.12F, 0.1F, 0.32F, 0.3F, 2.F, 0.7F,   // r2
            0.64F, 0.46F, 0.84F, 0.86F, 2.F, 0.6F, // r5
            0.F, 0.F, 0.F, 0.F, -1.F, 0.F, 0.F, 0.F, 0.F, 0.F, -1.F, 0.F},
        1e-6F);
}

TEST(DetectionLayerPlugin, KeepTopKCutsTheLowestScores)
{
    PluginCall call = detectionLayer(3, 2, 0.5F, 0.5F);
    std::vector<HostTensor> const out = runPlugin(kiln::Backend::kCPU, call, handInputs());
    ASSERT_EQ(out.size(), 1U);
    expectClose(out[0].floats(), {0.7F, 0.7F, 1.F, 1.F, 2.F, 0.9F, 0.1F, 0.1F, 0.3F, 0.3F, 1.F, 0.8F}, 1e-6F);
}

struct RandomCase
{
    int32_t batch;
    int32_t rois;
    int32_t classes;
    std::vector<float> deltas;
    std::vector<float> scores;
    std::vector<float> boxes;

    std::vector<HostTensor> inputs() const
    {
        return {fromFloats({batch, rois, classes * 4, 1, 1}, deltas), fromFloats({batch, rois, classes, 1, 1}, scores),
            fromFloats({batch, rois, 4}, boxes)};
    }
};

RandomCase randomCase(int32_t batch, int32_t rois, int32_t classes, uint32_t seed)
{
    size_t const n = size_t(batch) * rois;
    return RandomCase{batch, rois, classes, ref::uniform(n * classes * 4, -1.F, 1.F, seed),
        ref::uniform(n * classes, 0.F, 1.F, seed + 1), ref::randomBoxes(n, seed + 2)};
}

TEST(DetectionLayerPlugin, MatchesAPlainReferenceOnRandomInputs)
{
    RandomCase const c = randomCase(2, 400, 5, 21U);
    PluginCall call = detectionLayer(5, 60, 0.3F, 0.4F);
    std::vector<HostTensor> const out = runPlugin(kiln::Backend::kCPU, call, c.inputs());
    ASSERT_EQ(out.size(), 1U);
    expectClose(out[0].floats(),
        ref::detections(c.deltas, c.scores, c.boxes, c.batch, c.rois, c.classes, 60, 0.3, 0.4, 0, ref::refine), 1e-5F);
}

TEST(DetectionLayerPlugin, CudaMatchesTheCpu)
{
    SKIP_WITHOUT_GPU();
    // 3,000 ROIs (NVIDIA's caps them at 1,024) of 81 classes, keep_topk 1,500.
    RandomCase const c = randomCase(2, 3000, 81, 31U);
    PluginCall call = detectionLayer(81, 1500, 0.02F, 0.3F);
    std::vector<HostTensor> const cpu = runPlugin(kiln::Backend::kCPU, call, c.inputs());
    std::vector<HostTensor> const cuda = runPlugin(kiln::Backend::kCUDA, call, c.inputs());
    ASSERT_EQ(cuda.size(), 1U);
    expectClose(cuda[0].floats(), cpu[0].floats(), 1e-5F);
}

TEST(DetectionLayerPlugin, BadFieldsAreErrorsNamingPluginFieldAndValue)
{
    PluginCall missing{"DetectionLayer_TRT", "1", {}};
    missing.fields.add("num_classes", 3).add("keep_topk", 10).add("iou_threshold", 0.5F);
    EXPECT_NE(creationErrors(missing).find("DetectionLayer_TRT: the required field 'score_threshold' is missing"),
        std::string::npos);

    PluginCall wrongType{"DetectionLayer_TRT", "1", {}};
    wrongType.fields.add("num_classes", 2.5F).add("keep_topk", 10).add("score_threshold", 0.5F);
    wrongType.fields.add("iou_threshold", 0.5F);
    EXPECT_NE(creationErrors(wrongType).find("field 'num_classes' holds kFLOAT32 data; expected integers"),
        std::string::npos);

    PluginCall keep = detectionLayer(3, 0, 0.5F, 0.5F);
    EXPECT_NE(
        creationErrors(keep).find("DetectionLayer_TRT: field 'keep_topk' is 0; expected 1 or more"), std::string::npos);

    PluginCall score = detectionLayer(3, 10, -0.5F, 0.5F);
    EXPECT_NE(creationErrors(score).find("DetectionLayer_TRT: field 'score_threshold' is -0.5"), std::string::npos);
}

TEST(DetectionLayerPlugin, InputsOfTheWrongShapeAreAnError)
{
    PluginCall call = detectionLayer(4, 5, 0.5F, 0.5F); // the inputs hold 3 classes
    std::string errors;
    std::vector<HostTensor> const out = runPlugin(kiln::Backend::kCPU, call, handInputs(), false, &errors);
    EXPECT_TRUE(out.empty());
    EXPECT_NE(errors.find("DetectionLayer_TRT: input 'delta_bbox' is [7, 12, 1, 1]; expected [rois, 4 * 4, 1, 1]"),
        std::string::npos)
        << errors;
}

} // namespace
} // namespace kiln::test
