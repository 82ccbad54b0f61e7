// ProposalLayer_TRT against hand-placed proposals (deltas aimed from hand-computed anchors at chosen boxes), against
// a plain reference on random inputs, and, with a GPU, CUDA against the CPU.
#include "expect_close.h"
#include "mask_rcnn_test_reference.h"
#include "plugin_harness.h"

namespace kiln::test
{
namespace
{

namespace ref = mrcnn_reference;
using ref::Box;

PluginCall proposalLayer(int32_t preNmsTopK, int32_t keepTopK, float iou, int32_t imageSize)
{
    PluginCall call{"ProposalLayer_TRT", "1", {}};
    call.fields.add("prenms_topk", preNmsTopK).add("keep_topk", keepTopK).add("iou_threshold", iou);
    call.fields.add("image_size", std::vector<int32_t>{3, imageSize, imageSize});
    return call;
}

// An 8 x 8 image has 24 anchors: P2 2 x 2 cells, P3-P6 one cell each, 3 ratios per cell. Normalized by 7:
// anchor 0 is P2 cell (0, 0) ratio 0.5 (h = 32 / sqrt(0.5), w = 32 sqrt(0.5)), 1 the square of side 32 there,
// 4 the square at cell (0, 4 px), 13 P3's square (side 64), 23 P6's ratio 2 (h = 512 / sqrt 2, w = 512 sqrt 2).
Box const kAnchor1{-16. / 7, -16. / 7, 15. / 7, 15. / 7};
Box const kAnchor4{-16. / 7, -12. / 7, 15. / 7, 19. / 7};
Box const kAnchor13{-32. / 7, -32. / 7, 31. / 7, 31. / 7};
double const kRoot2 = std::sqrt(2.0);
Box const kAnchor0{-16 * kRoot2 / 7, -8 * kRoot2 / 7, (16 * kRoot2 - 1) / 7, (8 * kRoot2 - 1) / 7};
Box const kAnchor2{-8 * kRoot2 / 7, -16 * kRoot2 / 7, (8 * kRoot2 - 1) / 7, (16 * kRoot2 - 1) / 7};

// Anchor 1 aims at A (score 0.9); anchor 4 at B (0.8), IoU(A, B) = 0.152 / 0.168 = 0.905, suppressed; anchor 13 at C
// (0.7); anchor 23 keeps zero deltas (0.6): larger than the image, it clips to [0, 0, 1, 1]; anchor 0 aims at E (0.5)
// and anchor 2 at F (0.005). Every other anchor scores 0 with zero deltas: [0, 0, 1, 1] after clipping.
Box const kA{0.1, 0.1, 0.5, 0.5};
Box const kB{0.12, 0.1, 0.52, 0.5};
Box const kC{0.6, 0.6, 0.9, 0.8};
Box const kE{0.7, 0.0, 0.8, 0.1};
Box const kF{0.0, 0.7, 0.1, 0.8};

std::vector<HostTensor> handInputs()
{
    std::vector<float> scores(24 * 2, 0.F);
    std::vector<float> deltas(24 * 4, 0.F);
    auto const aim = [&](int32_t anchor, Box const& from, Box const& to, float score) {
        std::vector<float> const d = ref::deltasFor(from, to);
        std::copy(d.begin(), d.end(), deltas.begin() + anchor * 4);
        scores[anchor * 2] = 1.F - score; // the background column is ignored
        scores[anchor * 2 + 1] = score;
    };
    aim(1, kAnchor1, kA, 0.9F);
    aim(4, kAnchor4, kB, 0.8F);
    aim(13, kAnchor13, kC, 0.7F);
    scores[23 * 2 + 1] = 0.6F;
    aim(0, kAnchor0, kE, 0.5F);
    aim(2, kAnchor2, kF, 0.005F);
    return {fromFloats({1, 24, 2, 1}, scores), fromFloats({1, 24, 4, 1}, deltas)};
}

TEST(ProposalLayerPlugin, KeepsTheBestPreNmsTopKThroughNmsWithClippedBoxes)
{
    // prenms_topk 4: anchors 1, 4, 13, 23 enter NMS; anchor 0 (E, 0.5) is fifth and does not.
    PluginCall call = proposalLayer(4, 5, 0.5F, 8);
    std::vector<HostTensor> const out = runPlugin(kiln::Backend::kCPU, call, handInputs());
    ASSERT_EQ(out.size(), 1U);
    EXPECT_EQ(out[0].shape, (Shape{1, 5, 4}));
    expectClose(out[0].floats(), ref::boxRows({kA, kC, Box{0, 0, 1, 1}}, 5), 1e-5F);
}

TEST(ProposalLayerPlugin, WritesKeptProposalsOfScoreAtMost001AsZeros)
{
    // All 24 anchors enter NMS: the score-0 anchors clip to [0, 0, 1, 1] and anchor 23 suppresses them; F (0.005)
    // survives NMS but is written as zeros, as NVIDIA's plugin does.
    PluginCall call = proposalLayer(100, 6, 0.5F, 8);
    std::vector<HostTensor> const out = runPlugin(kiln::Backend::kCPU, call, handInputs());
    ASSERT_EQ(out.size(), 1U);
    expectClose(out[0].floats(), ref::boxRows({kA, kC, Box{0, 0, 1, 1}, kE}, 6), 1e-5F);
}

//! The plain pipeline: foreground scores ranked, the best preNmsTopK refined and put through NMS.
std::vector<float> referenceProposals(std::vector<float> const& scores, std::vector<float> const& deltas, int32_t batch,
    int32_t imageSize, int32_t preNmsTopK, int32_t keepTopK, double iou)
{
    std::vector<Box> const anchors = ref::pyramidAnchors(imageSize, imageSize);
    size_t const count = anchors.size();
    std::vector<float> out;
    for (int32_t b = 0; b < batch; ++b)
    {
        std::vector<ref::Scored> candidates;
        for (size_t i = 0; i < count; ++i)
        {
            candidates.push_back(
                ref::Scored{ref::refine(anchors[i], &deltas[(b * count + i) * 4]), scores[(b * count + i) * 2 + 1], 0});
        }
        std::stable_sort(candidates.begin(), candidates.end(),
            [](ref::Scored const& x, ref::Scored const& y) { return x.score > y.score; });
        candidates.resize(std::min<size_t>(candidates.size(), preNmsTopK));
        std::vector<Box> boxes;
        for (ref::Scored const& k : ref::nms(candidates, iou, keepTopK))
        {
            boxes.push_back(k.score > 0.01 ? k.box : Box{0, 0, 0, 0});
        }
        std::vector<float> const image = ref::boxRows(boxes, keepTopK);
        out.insert(out.end(), image.begin(), image.end());
    }
    return out;
}

// 64 x 64: 16 x 16, 8 x 8, 4 x 4, 2 x 2 and 1 x 1 cells, 3 anchors each.
constexpr int32_t kRandomAnchors = (256 + 64 + 16 + 4 + 1) * 3;

TEST(ProposalLayerPlugin, MatchesAPlainReferenceOnRandomInputs)
{
    int32_t const batch = 2;
    std::vector<float> const scores = ref::uniform(batch * kRandomAnchors * 2, 0.F, 1.F, 7U);
    std::vector<float> const deltas = ref::uniform(batch * kRandomAnchors * 4, -2.F, 2.F, 8U);
    PluginCall call = proposalLayer(300, 120, 0.6F, 64);
    std::vector<HostTensor> const out = runPlugin(kiln::Backend::kCPU, call,
        {fromFloats({batch, kRandomAnchors, 2, 1}, scores), fromFloats({batch, kRandomAnchors, 4, 1}, deltas)});
    ASSERT_EQ(out.size(), 1U);
    expectClose(out[0].floats(), referenceProposals(scores, deltas, batch, 64, 300, 120, 0.6), 1e-5F);
}

TEST(ProposalLayerPlugin, CudaMatchesTheCpu)
{
    SKIP_WITHOUT_GPU();
    // 256 x 256: 16,368 anchors; prenms_topk 6,000 and keep_topk 2,000 are beyond NVIDIA's caps.
    int32_t const anchors = (4096 + 1024 + 256 + 64 + 16) * 3;
    int32_t const batch = 2;
    std::vector<HostTensor> const inputs{
        fromFloats({batch, anchors, 2, 1}, ref::uniform(size_t{batch} * anchors * 2, 0.F, 1.F, 11U)),
        fromFloats({batch, anchors, 4, 1}, ref::uniform(size_t{batch} * anchors * 4, -1.F, 1.F, 12U))};
    PluginCall call = proposalLayer(6000, 2000, 0.7F, 256);
    std::vector<HostTensor> const cpu = runPlugin(kiln::Backend::kCPU, call, inputs);
    std::vector<HostTensor> const cuda = runPlugin(kiln::Backend::kCUDA, call, inputs);
    ASSERT_EQ(cuda.size(), 1U);
    expectClose(cuda[0].floats(), cpu[0].floats(), 1e-5F);
}

TEST(ProposalLayerPlugin, BadFieldsAreErrorsNamingPluginFieldAndValue)
{
    PluginCall missing{"ProposalLayer_TRT", "1", {}};
    missing.fields.add("prenms_topk", 10).add("iou_threshold", 0.5F);
    EXPECT_NE(creationErrors(missing).find("ProposalLayer_TRT: the required field 'keep_topk' is missing"),
        std::string::npos);

    PluginCall wrongType{"ProposalLayer_TRT", "1", {}};
    wrongType.fields.add("prenms_topk", 10).add("keep_topk", 2.5F).add("iou_threshold", 0.5F);
    EXPECT_NE(
        creationErrors(wrongType).find("field 'keep_topk' holds kFLOAT32 data; expected integers"), std::string::npos);

    PluginCall zero = proposalLayer(0, 5, 0.5F, 64);
    EXPECT_NE(creationErrors(zero).find("ProposalLayer_TRT: field 'prenms_topk' is 0; expected 1 or more"),
        std::string::npos);

    PluginCall iou = proposalLayer(10, 5, 0.F, 64);
    EXPECT_NE(creationErrors(iou).find("ProposalLayer_TRT: field 'iou_threshold' is 0"), std::string::npos);

    PluginCall image{"ProposalLayer_TRT", "1", {}};
    image.fields.add("prenms_topk", 10).add("keep_topk", 5).add("iou_threshold", 0.5F);
    image.fields.add("image_size", std::vector<int32_t>{1, 64, 64});
    EXPECT_NE(creationErrors(image).find("ProposalLayer_TRT: field 'image_size' is [1, 64, 64]"), std::string::npos);
}

TEST(ProposalLayerPlugin, AnAnchorCountThatDisagreesWithImageSizeIsAnError)
{
    PluginCall call = proposalLayer(10, 5, 0.5F, 16);
    std::string errors;
    std::vector<HostTensor> const out = runPlugin(kiln::Backend::kCPU, call,
        {fromFloats({1, 24, 2, 1}, std::vector<float>(48, 0.5F)), fromFloats({1, 24, 4, 1}, std::vector<float>(96))},
        false, &errors);
    EXPECT_TRUE(out.empty());
    EXPECT_NE(errors.find("ProposalLayer_TRT: the inputs hold 24 and 24 anchors; image_size 16 x 16 makes"),
        std::string::npos)
        << errors;
}

} // namespace
} // namespace kiln::test
