// MultilevelProposeROI_TRT against hand-placed proposals (deltas aimed from hand-computed anchors at chosen boxes),
// against a plain reference on random inputs, and, with a GPU, CUDA against the CPU (FP32 and FP16).
#include "expect_close.h"
#include "mask_rcnn_test_reference.h"
#include "plugin_harness.h"

#include <array>

namespace kiln::test
{
namespace
{

namespace ref = mrcnn_reference;
using nvinfer1::DataType;
using ref::Box;

constexpr int32_t kLevels = 5;
std::array<double, 4> const kUnitWeights{1, 1, 1, 1};

PluginCall multilevelProposeRoi(int32_t preNmsTopK, int32_t keepTopK, float fgThreshold, float iou)
{
    PluginCall call{"MultilevelProposeROI_TRT", "1", {}};
    call.fields.add("prenms_topk", preNmsTopK).add("keep_topk", keepTopK);
    call.fields.add("fg_threshold", fgThreshold).add("iou_threshold", iou);
    return call;
}

PluginCall multilevelProposeRoi(
    int32_t preNmsTopK, int32_t keepTopK, float fgThreshold, float iou, std::vector<int32_t> const& imageSize)
{
    PluginCall call = multilevelProposeRoi(preNmsTopK, keepTopK, fgThreshold, iou);
    call.fields.add("image_size", imageSize);
    return call;
}

//! TLT's anchors as NVIDIA's plugin describes them: levels of strides 4..64 and sides 8 * stride; centres at
//! stride / 2 + k * stride inside the image; (width, height) factors (1, 1), (1.4, 0.7), (0.7, 1.4).
std::vector<Box> tltAnchors(int32_t level, int32_t imageH, int32_t imageW)
{
    int32_t const stride = 4 << level;
    double const side = 8.0 * stride;
    std::vector<Box> anchors;
    for (int32_t y = stride / 2; y < imageH; y += stride)
    {
        for (int32_t x = stride / 2; x < imageW; x += stride)
        {
            for (auto const& [w, h] : {std::pair{1.0, 1.0}, std::pair{1.4, 0.7}, std::pair{0.7, 1.4}})
            {
                anchors.push_back(Box{y - side * h / 2, x - side * w / 2, y + side * h / 2, x + side * w / 2});
            }
        }
    }
    return anchors;
}

//! The deltas that refinePixels() with unit weights turns `from` into `to` (both unclipped, sizes with "+1").
std::vector<float> pixelDeltasFor(Box const& from, Box const& to)
{
    double const h = from.y2 - from.y1 + 1;
    double const w = from.x2 - from.x1 + 1;
    double const toH = to.y2 - to.y1 + 1;
    double const toW = to.x2 - to.x1 + 1;
    return {static_cast<float>((to.y1 + toH / 2 - from.y1 - h / 2) / h),
        static_cast<float>((to.x1 + toW / 2 - from.x1 - w / 2) / w), static_cast<float>(std::log(toH / h)),
        static_cast<float>(std::log(toW / w))};
}

//! The ten inputs (deltas, scores per level) of `batch` images of H x W from per-level values.
std::vector<HostTensor> levelInputs(std::array<std::vector<float>, kLevels> const& deltas,
    std::array<std::vector<float>, kLevels> const& scores, int32_t batch, DataType type = DataType::kFLOAT)
{
    std::vector<HostTensor> inputs;
    for (int32_t level = 0; level < kLevels; ++level)
    {
        auto const count = static_cast<int64_t>(scores[level].size()) / batch;
        inputs.push_back(fromFloats({batch, count, 4, 1}, deltas[level], type));
        inputs.push_back(fromFloats({batch, count, 1, 1}, scores[level], type));
    }
    return inputs;
}

// A 33 x 40 image: P2 8 x 10 centres, P3 4 x 5, P4 2 x 2, P5 and P6 one each; 3 anchors per centre (240, 60, 12,
// 3, 3). Anchors worked by hand: P2 0 is centre (2, 2) factor (1, 1), side 32; P2 3 and 6 the same at centres
// (2, 6) and (2, 10); P3 0 centre (4, 4) side 64, P3 1 factor (1.4, 0.7) there (h 44.8, w 89.6); P4 1 centre (8, 8)
// factor (1.4, 0.7) of side 128; P5 2 centre (16, 16) factor (0.7, 1.4) of side 256; P6 0 centre (32, 32), side 512.
constexpr int32_t kHandH = 33;
constexpr int32_t kHandW = 40;
std::array<int32_t, kLevels> const kHandCounts{240, 60, 12, 3, 3};
Box const kP2Anchor0{-14, -14, 18, 18};
Box const kP2Anchor3{-14, -10, 18, 22};
Box const kP2Anchor6{-14, -6, 18, 26};
Box const kP3Anchor0{-28, -28, 36, 36};
Box const kP3Anchor1{-18.4, -40.8, 26.4, 48.8};
Box const kP4Anchor1{-36.8, -81.6, 52.8, 97.6};
Box const kP5Anchor2{-163.2, -73.6, 195.2, 105.6};

// P2: A (0.9), B (0.8; IoU with A 110 / 130, suppressed), C (0.7). P3: D (0.85), the same box as A, kept: NMS runs
// per level; H (0.2). P4: E (0.95). P5: F (0.05). P6 anchor 0 keeps zero deltas (0.3): it clips to the image, G.
// Every other anchor scores 0 with zero deltas; NVIDIA's never propose a score of 0, even with fg_threshold 0.
Box const kA{2, 3, 12, 15};
Box const kB{2, 4, 12, 16};
Box const kC{20, 5, 30, 15};
Box const kD = kA;
Box const kH{1, 2, 30, 20};
Box const kE{20, 20, 30, 35};
Box const kF{5, 25, 25, 38};
Box const kG{0, 0, kHandH - 1, kHandW - 1};

std::vector<HostTensor> handInputs(DataType type = DataType::kFLOAT)
{
    std::array<std::vector<float>, kLevels> deltas;
    std::array<std::vector<float>, kLevels> scores;
    for (int32_t level = 0; level < kLevels; ++level)
    {
        deltas[level].assign(size_t(kHandCounts[level]) * 4, 0.F);
        scores[level].assign(size_t(kHandCounts[level]), 0.F);
    }
    auto const aim = [&](int32_t level, int32_t anchor, Box const& from, Box const& to, float score) {
        std::vector<float> const d = pixelDeltasFor(from, to);
        std::copy(d.begin(), d.end(), deltas[level].begin() + anchor * 4);
        scores[level][anchor] = score;
    };
    aim(0, 0, kP2Anchor0, kA, 0.9F);
    aim(0, 3, kP2Anchor3, kB, 0.8F);
    aim(0, 6, kP2Anchor6, kC, 0.7F);
    aim(1, 0, kP3Anchor0, kD, 0.85F);
    aim(1, 1, kP3Anchor1, kH, 0.2F);
    aim(2, 1, kP4Anchor1, kE, 0.95F);
    aim(3, 2, kP5Anchor2, kF, 0.05F);
    scores[4][0] = 0.3F;
    return levelInputs(deltas, scores, 1, type);
}

TEST(MultilevelProposeRoiPlugin, RanksEachLevelsSurvivorsTogether)
{
    // prenms_topk 2: C is P2's third and does not enter NMS; F is below fg_threshold 0.1.
    PluginCall call = multilevelProposeRoi(2, 6, 0.1F, 0.5F, {3, kHandH, kHandW});
    std::vector<HostTensor> const out = runPlugin(kiln::Backend::kCPU, call, handInputs());
    ASSERT_EQ(out.size(), 1U);
    EXPECT_EQ(out[0].shape, (Shape{1, 6, 4}));
    expectClose(out[0].floats(), ref::boxRows({kE, kA, kD, kG, kH}, 6), 1e-4F);
}

TEST(MultilevelProposeRoiPlugin, ProposesNoScoreOfZeroAndKeepsTheBestKeepTopK)
{
    // fg_threshold 0: F (0.05) and C come in, the 400 anchors of score 0 do not; keep_topk 8 leaves a row of zeros.
    PluginCall call = multilevelProposeRoi(3, 8, 0.F, 0.5F, {3, kHandH, kHandW});
    std::vector<HostTensor> const out = runPlugin(kiln::Backend::kCPU, call, handInputs());
    ASSERT_EQ(out.size(), 1U);
    expectClose(out[0].floats(), ref::boxRows({kE, kA, kD, kC, kG, kH, kF}, 8), 1e-4F);

    PluginCall three = multilevelProposeRoi(3, 3, 0.F, 0.5F, {3, kHandH, kHandW});
    std::vector<HostTensor> const best = runPlugin(kiln::Backend::kCPU, three, handInputs());
    ASSERT_EQ(best.size(), 1U);
    expectClose(best[0].floats(), ref::boxRows({kE, kA, kD}, 3), 1e-4F);
}

TEST(MultilevelProposeRoiPlugin, TakesAndGivesFp16)
{
    // FP16 inputs round the deltas (a few hundredths of a pixel here) and the output.
    PluginCall call = multilevelProposeRoi(2, 6, 0.1F, 0.5F, {3, kHandH, kHandW});
    std::vector<HostTensor> const out = runPlugin(kiln::Backend::kCPU, call, handInputs(DataType::kHALF), true);
    ASSERT_EQ(out.size(), 1U);
    EXPECT_EQ(out[0].type, DataType::kHALF);
    expectClose(out[0].floats(), ref::boxRows({kE, kA, kD, kG, kH}, 6), 0.1F);
}

//! The plain pipeline: per level, the candidates (score >= fgThreshold and > 0) ranked, the best preNmsTopK refined
//! and put through NMS; then all levels' survivors ranked by score, the best keepTopK written.
std::vector<float> referenceProposals(std::array<std::vector<float>, kLevels> const& deltas,
    std::array<std::vector<float>, kLevels> const& scores, int32_t batch, int32_t imageH, int32_t imageW,
    int32_t preNmsTopK, int32_t keepTopK, double fgThreshold, double iou)
{
    std::vector<float> out;
    for (int32_t b = 0; b < batch; ++b)
    {
        std::vector<ref::Scored> all;
        for (int32_t level = 0; level < kLevels; ++level)
        {
            std::vector<Box> const anchors = tltAnchors(level, imageH, imageW);
            size_t const count = anchors.size();
            std::vector<ref::Scored> candidates;
            for (size_t i = 0; i < count; ++i)
            {
                double const score = scores[level][b * count + i];
                if (score >= fgThreshold && score > 0)
                {
                    Box const box = ref::refinePixels(
                        anchors[i], &deltas[level][(b * count + i) * 4], imageH, imageW, kUnitWeights);
                    candidates.push_back(ref::Scored{box, score, level});
                }
            }
            std::stable_sort(candidates.begin(), candidates.end(),
                [](ref::Scored const& x, ref::Scored const& y) { return x.score > y.score; });
            candidates.resize(std::min<size_t>(candidates.size(), preNmsTopK));
            std::vector<ref::Scored> const kept = ref::nms(candidates, iou, keepTopK);
            all.insert(all.end(), kept.begin(), kept.end());
        }
        std::stable_sort(
            all.begin(), all.end(), [](ref::Scored const& x, ref::Scored const& y) { return x.score > y.score; });
        std::vector<Box> boxes;
        for (size_t k = 0; k < all.size() && k < size_t(keepTopK); ++k)
        {
            boxes.push_back(all[k].box);
        }
        std::vector<float> const image = ref::boxRows(boxes, keepTopK);
        out.insert(out.end(), image.begin(), image.end());
    }
    return out;
}

//! Random scores in [0, 1] and deltas in [-spread, spread] for `batch` images of H x W.
void randomInputs(int32_t batch, int32_t imageH, int32_t imageW, float spread, uint32_t seed,
    std::array<std::vector<float>, kLevels>& deltas, std::array<std::vector<float>, kLevels>& scores)
{
    for (int32_t level = 0; level < kLevels; ++level)
    {
        size_t const count = tltAnchors(level, imageH, imageW).size() * batch;
        scores[level] = ref::uniform(count, 0.F, 1.F, seed + 2 * level);
        deltas[level] = ref::uniform(count * 4, -spread, spread, seed + 2 * level + 1);
    }
}

TEST(MultilevelProposeRoiPlugin, MatchesAPlainReferenceOnRandomInputs)
{
    // 64 x 96: 1,152, 288, 72, 18 and 3 anchors.
    int32_t const batch = 2;
    std::array<std::vector<float>, kLevels> deltas;
    std::array<std::vector<float>, kLevels> scores;
    randomInputs(batch, 64, 96, 0.5F, 21U, deltas, scores);
    PluginCall call = multilevelProposeRoi(100, 60, 0.3F, 0.6F, {3, 64, 96});
    std::vector<HostTensor> const out = runPlugin(kiln::Backend::kCPU, call, levelInputs(deltas, scores, batch));
    ASSERT_EQ(out.size(), 1U);
    EXPECT_EQ(out[0].shape, (Shape{batch, 60, 4}));
    expectClose(out[0].floats(), referenceProposals(deltas, scores, batch, 64, 96, 100, 60, 0.3, 0.6), 1e-3F);
}

TEST(MultilevelProposeRoiPlugin, CudaMatchesTheCpu)
{
    SKIP_WITHOUT_GPU();
    // The default 832 x 1344 image: 279,279 anchors; prenms_topk 6,000 is beyond NVIDIA's cap of 4,096.
    int32_t const batch = 2;
    std::array<std::vector<float>, kLevels> deltas;
    std::array<std::vector<float>, kLevels> scores;
    randomInputs(batch, 832, 1344, 0.5F, 31U, deltas, scores);
    for (DataType const type : {DataType::kFLOAT, DataType::kHALF})
    {
        bool const half = type == DataType::kHALF;
        PluginCall call = multilevelProposeRoi(6000, 2000, 0.05F, 0.7F);
        std::vector<HostTensor> const inputs = levelInputs(deltas, scores, batch, type);
        std::vector<HostTensor> const cpu = runPlugin(kiln::Backend::kCPU, call, inputs, half);
        std::vector<HostTensor> const cuda = runPlugin(kiln::Backend::kCUDA, call, inputs, half);
        ASSERT_EQ(cuda.size(), 1U);
        ASSERT_EQ(cpu.size(), 1U);
        // Boxes up to 1,343 pixels: FP32 agrees to float rounding, FP16 to the output's rounding.
        expectClose(cuda[0].floats(), cpu[0].floats(), half ? Tolerance{0.5, 1e-3} : Tolerance{1e-3, 1e-6});
    }
}

TEST(MultilevelProposeRoiPlugin, BadFieldsAreErrorsNamingPluginFieldAndValue)
{
    PluginCall missing{"MultilevelProposeROI_TRT", "1", {}};
    missing.fields.add("prenms_topk", 10).add("keep_topk", 5).add("iou_threshold", 0.5F);
    EXPECT_NE(creationErrors(missing).find("MultilevelProposeROI_TRT: the required field 'fg_threshold' is missing"),
        std::string::npos);

    PluginCall wrongType{"MultilevelProposeROI_TRT", "1", {}};
    wrongType.fields.add("prenms_topk", 10).add("keep_topk", 2.5F).add("fg_threshold", 0.F);
    wrongType.fields.add("iou_threshold", 0.5F);
    EXPECT_NE(
        creationErrors(wrongType).find("field 'keep_topk' holds kFLOAT32 data; expected integers"), std::string::npos);

    PluginCall zero = multilevelProposeRoi(0, 5, 0.F, 0.5F);
    EXPECT_NE(creationErrors(zero).find("MultilevelProposeROI_TRT: field 'prenms_topk' is 0; expected 1 or more"),
        std::string::npos);

    PluginCall threshold = multilevelProposeRoi(10, 5, -0.5F, 0.5F);
    EXPECT_NE(
        creationErrors(threshold).find("MultilevelProposeROI_TRT: field 'fg_threshold' is -0.5"), std::string::npos);

    PluginCall iou = multilevelProposeRoi(10, 5, 0.F, -0.1F);
    EXPECT_NE(creationErrors(iou).find("MultilevelProposeROI_TRT: field 'iou_threshold' is -0.1"), std::string::npos);

    PluginCall image = multilevelProposeRoi(10, 5, 0.F, 0.5F, {3, 0, 64});
    EXPECT_NE(
        creationErrors(image).find("MultilevelProposeROI_TRT: field 'image_size' is [3, 0, 64]"), std::string::npos);

    PluginCall zeroThresholds = multilevelProposeRoi(10, 5, 0.F, 0.F);
    EXPECT_EQ(creationErrors(zeroThresholds), "");
}

TEST(MultilevelProposeRoiPlugin, AnAnchorCountThatDisagreesWithImageSizeIsAnError)
{
    // 33 x 40 makes 12 anchors on P4; give it 9.
    std::array<std::vector<float>, kLevels> deltas;
    std::array<std::vector<float>, kLevels> scores;
    for (int32_t level = 0; level < kLevels; ++level)
    {
        int32_t const count = level == 2 ? 9 : kHandCounts[level];
        deltas[level].assign(size_t(count) * 4, 0.F);
        scores[level].assign(size_t(count), 0.5F);
    }
    PluginCall call = multilevelProposeRoi(10, 5, 0.F, 0.5F, {3, kHandH, kHandW});
    std::string errors;
    std::vector<HostTensor> const out
        = runPlugin(kiln::Backend::kCPU, call, levelInputs(deltas, scores, 1), false, &errors);
    EXPECT_TRUE(out.empty());
    EXPECT_NE(errors.find("MultilevelProposeROI_TRT: the P4 inputs hold 9 and 9 anchors; image_size 33 x 40 makes 12"),
        std::string::npos)
        << errors;

    std::string shapeErrors;
    std::vector<HostTensor> inputs = handInputs();
    inputs[1] = fromFloats({1, 240, 2, 1}, std::vector<float>(480, 0.5F));
    EXPECT_TRUE(runPlugin(kiln::Backend::kCPU, call, inputs, false, &shapeErrors).empty());
    EXPECT_NE(shapeErrors.find("MultilevelProposeROI_TRT: input 'P2 scores' is"), std::string::npos) << shapeErrors;
}

} // namespace
} // namespace kiln::test
