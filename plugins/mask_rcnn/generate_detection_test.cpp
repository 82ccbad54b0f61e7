// GenerateDetection_TRT against hand-worked detections in pixels, against a plain reference on random inputs, and,
// with a GPU, CUDA against the CPU.
#include "expect_close.h"
#include "mask_rcnn_test_reference.h"
#include "plugin_harness.h"

#include <cmath>

namespace kiln::test
{
namespace
{

namespace ref = mrcnn_reference;

PluginCall generateDetection(
    int32_t classes, int32_t keepTopK, float scoreThreshold, float iou, int32_t imageH, int32_t imageW)
{
    PluginCall call{"GenerateDetection_TRT", "1", {}};
    call.fields.add("num_classes", classes).add("keep_topk", keepTopK);
    call.fields.add("score_threshold", scoreThreshold).add("iou_threshold", iou);
    call.fields.add("image_size", std::vector<int32_t>{3, imageH, imageW});
    return call;
}

// A 100 x 200 image, three classes (0 the background), score threshold 0.4, IoU 0.5; sizes count the end pixel and
// the deltas are divided by (10, 10, 5, 5):
// r0 [10, 10, 29, 29]: the background scores highest (0.9) but the argmax skips it: class 1 (0.8), zero deltas
//    give the same box (h = 20, centre 20).
// r1 [12, 10, 31, 29], class 1 (0.7): IoU with r0 (plain areas) 17 * 19 / (2 * 361 - 323) = 0.81, suppressed.
// r2 [50, 50, 69, 89], class 2 (0.6), deltas (5, 0, 5 ln 2, 0): centre y 50 + 10 + 0.5 * 20 = 70, h 40 -> y 50..89;
//    w 40, centre x 70 -> x 50..89.
// r3 class 2 at 0.3: below the threshold.
// r4 [90, 180, 99, 199], class 1 (0.95), deltas (0, 0, 5 ln 2, 5 ln 2): [85, 170, 104, 209] clipped to 99, 199.
// r5 [0, 0, 9, 9], class 2 (0.5), dh 50: 50 / 5 = 10 is capped at ln(62.5), h = 625 around centre 5: y clipped to
//    0..99; x unchanged.
std::vector<HostTensor> handInputs()
{
    std::vector<float> const rois{
        10, 10, 29, 29, 12, 10, 31, 29, 50, 50, 69, 89, 80, 150, 99, 199, 90, 180, 99, 199, 0, 0, 9, 9};
    std::vector<float> const scores{
        0.9F, 0.8F, 0.05F, 0.1F, 0.7F, 0.2F, 0.1F, 0.2F, 0.6F, 0.F, 0.1F, 0.3F, 0.F, 0.95F, 0.F, 0.F, 0.F, 0.5F};
    std::vector<float> deltas(6 * 3 * 4, 0.F);
    float const twice = 5.F * std::log(2.F);
    std::vector<float> const r2{0, 0, 0, 0, 9, 9, 9, 9, 5, 0, twice, 0};
    std::copy(r2.begin(), r2.end(), deltas.begin() + 2 * 12);
    std::vector<float> const r4{0, 0, 0, 0, 0, 0, twice, twice, 0, 0, 0, 0};
    std::copy(r4.begin(), r4.end(), deltas.begin() + 4 * 12);
    std::vector<float> const r5{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 50, 0};
    std::copy(r5.begin(), r5.end(), deltas.begin() + 5 * 12);
    return {fromFloats({1, 6, 12, 1, 1}, deltas), fromFloats({1, 6, 3, 1, 1}, scores), fromFloats({1, 6, 4}, rois)};
}

TEST(GenerateDetectionPlugin, RefinesInPixelsByTheBestForegroundClass)
{
    PluginCall call = generateDetection(3, 6, 0.4F, 0.5F, 100, 200);
    std::vector<HostTensor> const out = runPlugin(kiln::Backend::kCPU, call, handInputs());
    ASSERT_EQ(out.size(), 1U);
    EXPECT_EQ(out[0].shape, (Shape{1, 6, 6}));
    expectClose(out[0].floats(),
        {85, 170, 99, 199, 1, 0.95F, // r4
            10, 10, 29, 29, 1, 0.8F, // r0
            50, 50, 89, 89, 2, 0.6F, // r2
            0, 0, 99, 9, 2, 0.5F,    // r5
            0, 0, 0, 0, -1, 0, 0, 0, 0, 0, -1, 0},
        {1e-4, 1e-6});
}

TEST(GenerateDetectionPlugin, MatchesAPlainReferenceOnRandomInputs)
{
    int32_t const batch = 2;
    int32_t const rois = 400;
    int32_t const classes = 6;
    size_t const n = size_t(batch) * rois;
    std::vector<float> const deltas = ref::uniform(n * classes * 4, -2.F, 2.F, 41U);
    std::vector<float> const scores = ref::uniform(n * classes, 0.F, 1.F, 42U);
    std::vector<float> const boxes = ref::randomBoxes(n, 43U, 300.F);
    PluginCall call = generateDetection(classes, 80, 0.2F, 0.45F, 300, 320);
    std::vector<HostTensor> const out = runPlugin(kiln::Backend::kCPU, call,
        {fromFloats({batch, rois, classes * 4, 1, 1}, deltas), fromFloats({batch, rois, classes, 1, 1}, scores),
            fromFloats({batch, rois, 4}, boxes)});
    ASSERT_EQ(out.size(), 1U);
    auto const pixels = [](ref::Box const& box, float const* delta) { return ref::refinePixels(box, delta, 300, 320); };
    expectClose(out[0].floats(), ref::detections(deltas, scores, boxes, batch, rois, classes, 80, 0.2, 0.45, 1, pixels),
        {2e-4, 1e-6});
}

TEST(GenerateDetectionPlugin, CudaMatchesTheCpu)
{
    SKIP_WITHOUT_GPU();
    // 4,000 ROIs (NVIDIA's caps them at 2,048) of 91 classes.
    int32_t const batch = 2;
    int32_t const rois = 4000;
    int32_t const classes = 91;
    size_t const n = size_t(batch) * rois;
    std::vector<HostTensor> const inputs{
        fromFloats({batch, rois, classes * 4, 1, 1}, ref::uniform(n * classes * 4, -1.F, 1.F, 51U)),
        fromFloats({batch, rois, classes, 1, 1}, ref::uniform(n * classes, 0.F, 1.F, 52U)),
        fromFloats({batch, rois, 4}, ref::randomBoxes(n, 53U, 800.F))};
    PluginCall call = generateDetection(classes, 1000, 0.05F, 0.5F, 832, 1344);
    std::vector<HostTensor> const cpu = runPlugin(kiln::Backend::kCPU, call, inputs);
    std::vector<HostTensor> const cuda = runPlugin(kiln::Backend::kCUDA, call, inputs);
    ASSERT_EQ(cuda.size(), 1U);
    expectClose(cuda[0].floats(), cpu[0].floats(), {1e-3, 1e-6});
}

TEST(GenerateDetectionPlugin, BadFieldsAreErrorsNamingPluginFieldAndValue)
{
    PluginCall missing{"GenerateDetection_TRT", "1", {}};
    missing.fields.add("num_classes", 3).add("score_threshold", 0.5F).add("iou_threshold", 0.5F);
    EXPECT_NE(creationErrors(missing).find("GenerateDetection_TRT: the required field 'keep_topk' is missing"),
        std::string::npos);

    PluginCall wrongType{"GenerateDetection_TRT", "1", {}};
    wrongType.fields.add("num_classes", 3).add("keep_topk", 10).add("score_threshold", 0.5F);
    wrongType.fields.add("iou_threshold", std::string("high"));
    EXPECT_NE(creationErrors(wrongType).find("GenerateDetection_TRT: field 'iou_threshold'"), std::string::npos);

    PluginCall iou = generateDetection(3, 10, 0.5F, -1.F, 100, 100);
    EXPECT_NE(creationErrors(iou).find("GenerateDetection_TRT: field 'iou_threshold' is -1"), std::string::npos);

    PluginCall image = generateDetection(3, 10, 0.5F, 0.5F, 0, 100);
    EXPECT_NE(
        creationErrors(image).find("GenerateDetection_TRT: field 'image_size' is [3, 0, 100]"), std::string::npos);
}

} // namespace
} // namespace kiln::test
