// NMS_TRT and NMSDynamic_TRT against hand-computed detections and decodings, and against a plain decode + per-class
// NMS + merge written below (also with topK 10,000 and keepTopK 5,000); with a GPU, CUDA against the CPU.
#include "box_reference.h"
#include "expect_close.h"
#include "plugin_harness.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <tuple>

namespace kiln::test
{
namespace
{

using nvinfer1::DataType;

char const* const kBothPlugins[] = {"NMS_TRT", "NMSDynamic_TRT"};

PluginCall ssdNms(
    char const* name, int32_t numClasses, int32_t topK, int32_t keepTopK, float confidenceThreshold, float nmsThreshold)
{
    PluginCall call{name, "1", {}};
    call.fields.add("numClasses", numClasses)
        .add("topK", topK)
        .add("keepTopK", keepTopK)
        .add("confidenceThreshold", confidenceThreshold)
        .add("nmsThreshold", nmsThreshold)
        .add("isNormalized", 1);
    return call;
}

//! Prior data [1, 2, P * 4, 1]: the boxes, then every prior's `variance`.
HostTensor priorData(std::vector<float> const& boxes, std::vector<float> const& variance, int64_t batch = 1,
    DataType type = DataType::kFLOAT)
{
    size_t const priors = boxes.size() / 4;
    std::vector<float> values;
    for (int64_t image = 0; image < batch; ++image)
    {
        values.insert(values.end(), boxes.begin(), boxes.end());
        for (size_t p = 0; p < priors; ++p)
        {
            values.insert(values.end(), variance.begin(), variance.end());
        }
    }
    return fromFloats({batch, 2, static_cast<int64_t>(priors) * 4, 1}, values, type);
}

//! keepCount's int32 values (the tensor is typed FP32, as NVIDIA's).
std::vector<int32_t> keepCounts(HostTensor const& tensor)
{
    return tensor.elements<int32_t>();
}

// Four priors; 0 and 1 overlap (IoU 0.818), 2 and 3 less so once decoded (IoU 0.47).
std::vector<float> const kPriors{.1F, .1F, .3F, .3F, .12F, .1F, .32F, .3F, .5F, .5F, .7F, .7F, .6F, .5F, .8F, .7F};
// CENTER_SIZE targets: prior 2 moves right by 0.1 * 0.5 * 0.2 = 0.01; prior 3 grows to width 0.2 * exp(0.2 * l).
float const kWiden = 5.F * std::log(1.5F);
std::vector<float> const kLoc{0, 0, 0, 0, 0, 0, 0, 0, .5F, 0, 0, 0, 0, 0, kWiden, 0};
// Class 0 is the background.
std::vector<float> const kConf{.1F, .9F, .05F, .1F, .8F, .7F, .9F, .6F, .02F, .2F, .3F, .65F};

TEST(DetectionOutputPlugin, HandComputedDetectionsWithSuppressionAndBackground)
{
    // Class 1 (> 0.25): priors 0 (.9), 1 (.8, suppressed by 0), 2 (.6), 3 (.3); class 2: 1 (.7), 3 (.65); the
    // background's 0.9 is ignored. Merged by score, then padded: image, label -1, zeros.
    std::vector<float> const expected{0, 1, .9F, .1F, .1F, .3F, .3F, 0, 2, .7F, .12F, .1F, .32F, .3F, 0, 2, .65F, .55F,
        .5F, .85F, .7F, 0, 1, .6F, .51F, .5F, .71F, .7F, 0, 1, .3F, .55F, .5F, .85F, .7F, 0, -1, 0, 0, 0, 0, 0};
    for (char const* name : kBothPlugins)
    {
        PluginCall call = ssdNms(name, 3, 10, 6, 0.25F, 0.5F);
        call.fields.add("shareLocation", 1).add("backgroundLabelId", 0).add("codeType", 1);
        // The default inputOrder [0, 2, 1]: loc, prior, conf.
        std::vector<HostTensor> const out = runPlugin(kiln::Backend::kCPU, call,
            {fromFloats({1, 16, 1, 1}, kLoc), priorData(kPriors, {.1F, .1F, .2F, .2F}),
                fromFloats({1, 12, 1, 1}, kConf)});
        ASSERT_EQ(out.size(), 2U) << name;
        EXPECT_EQ(out[0].shape, (Shape{1, 1, 6, 7})) << name;
        EXPECT_EQ(out[1].shape, (Shape{1, 1, 1, 1})) << name;
        expectClose(out[0].floats(), expected, 1e-6F, name);
        EXPECT_EQ(keepCounts(out[1]), (std::vector<int32_t>{5})) << name;

        // FP16 tensors: the same detections, within FP16's rounding.
        std::vector<HostTensor> const half = runPlugin(kiln::Backend::kCPU, call,
            {fromFloats({1, 16, 1, 1}, kLoc, DataType::kHALF),
                priorData(kPriors, {.1F, .1F, .2F, .2F}, 1, DataType::kHALF),
                fromFloats({1, 12, 1, 1}, kConf, DataType::kHALF)},
            true);
        ASSERT_EQ(half.size(), 2U) << name;
        EXPECT_EQ(half[0].type, DataType::kHALF) << name;
        expectClose(half[0].floats(), expected, 2e-3F, name);
        EXPECT_EQ(keepCounts(half[1]), (std::vector<int32_t>{5})) << name;
    }
}

//! One detection of one prior [.2, .2, .6, .4] with variances [.1, .2, .3, .4] and target [.5, -.5, 1, -1].
std::vector<float> decodeOne(int32_t codeType, int32_t varianceEncodedInTarget)
{
    PluginCall call = ssdNms("NMSDynamic_TRT", 1, 1, 1, 0.F, 0.5F);
    call.fields.add("backgroundLabelId", -1)
        .add("codeType", codeType)
        .add("varianceEncodedInTarget", varianceEncodedInTarget)
        .add("inputOrder", std::vector<int32_t>{0, 1, 2});
    std::vector<HostTensor> const out = runPlugin(kiln::Backend::kCPU, call,
        {fromFloats({1, 4, 1, 1}, {.5F, -.5F, 1.F, -1.F}), fromFloats({1, 1, 1, 1}, {.5F}),
            priorData({.2F, .2F, .6F, .4F}, {.1F, .2F, .3F, .4F})});
    if (out.size() != 2)
    {
        return {};
    }
    std::vector<float> const row = out[0].floats();
    return std::vector<float>(row.begin() + 3, row.end());
}

TEST(DetectionOutputPlugin, DecodesEveryCodeTypeAsTheReadmeWritesIt)
{
    // Prior: width .4, height .2, centre (.4, .3).
    expectClose(decodeOne(0, 0), {.2F + .5F * .1F, .2F - .5F * .2F, .6F + .3F, .4F - .4F}, 1e-6F, "CORNER");
    // Variance in the target: the plain offsets, clipped to [0, 1] on output.
    expectClose(decodeOne(0, 1), {.7F, 0.F, 1.F, 0.F}, 1e-6F, "CORNER, variance in target");
    expectClose(decodeOne(2, 0), {.2F + .5F * .1F * .4F, .2F - .5F * .2F * .2F, .6F + .3F * .4F, .4F - .4F * .2F},
        1e-6F, "CORNER_SIZE");
    float const cx = .4F + .5F * .1F * .4F;
    float const cy = .3F - .5F * .2F * .2F;
    float const w = .4F * std::exp(.3F);
    float const h = .2F * std::exp(-.4F);
    expectClose(decodeOne(1, 0), {cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2}, 1e-6F, "CENTER_SIZE");
    // TF_CENTER: targets [y, x, h, w]; variance 0 and 2 scale x and w, 1 and 3 y and h (NVIDIA's kernel).
    float const tx = .4F - .5F * .1F * .4F;
    float const ty = .3F + .5F * .2F * .2F;
    float const tw = .4F * std::exp(-1.F * .3F);
    float const th = .2F * std::exp(1.F * .4F);
    expectClose(decodeOne(3, 0), {tx - tw / 2, ty - th / 2, tx + tw / 2, ty + th / 2}, 1e-6F, "TF_CENTER");
    // TF_CENTER uses the variances even when varianceEncodedInTarget says they are in the target, as NVIDIA's.
    expectClose(decodeOne(3, 1), {tx - tw / 2, ty - th / 2, tx + tw / 2, ty + th / 2}, 1e-6F, "TF_CENTER, 1");
}

TEST(DetectionOutputPlugin, EqualScoresKeepClassThenPriorOrder)
{
    // Three disjoint priors, three classes, no background, every score 0.5: both sorts are stable, so the rows run
    // class 0's priors 0, 1, 2, then class 1's, then class 2's.
    for (char const* name : kBothPlugins)
    {
        PluginCall call = ssdNms(name, 3, 3, 9, 0.1F, 0.5F);
        call.fields.add("shareLocation", 1).add("backgroundLabelId", -1).add("codeType", 1);
        std::vector<HostTensor> const out = runPlugin(kiln::Backend::kCPU, call,
            {fromFloats({1, 12, 1, 1}, std::vector<float>(12, 0.F)),
                priorData({0, 0, .1F, .1F, .3F, .3F, .4F, .4F, .6F, .6F, .7F, .7F}, {.1F, .1F, .2F, .2F}),
                fromFloats({1, 9, 1, 1}, std::vector<float>(9, .5F))});
        ASSERT_EQ(out.size(), 2U) << name;
        std::vector<float> const rows = out[0].floats();
        for (int32_t k = 0; k < 9; ++k)
        {
            EXPECT_EQ(rows[k * 7 + 1], static_cast<float>(k / 3)) << name << " row " << k;
            EXPECT_NEAR(rows[k * 7 + 3], .3F * static_cast<float>(k % 3), 1e-6F) << name << " row " << k;
        }
    }
}

// The plain reference: CENTER_SIZE decoding, then per image and class (not the background) the scores > threshold
// by descending score (equal scores: lower prior first), the first topK, greedy NMS (IoU > threshold suppresses);
// the survivors ordered by descending score, then class, then prior; the first keepTopK; boxes clipped to [0, 1].
struct Case
{
    int32_t batch;
    int32_t priors;
    int32_t classes;
    bool shareLocation;
    int32_t background;
    int32_t topK;
    int32_t keepTopK;
    float threshold;
    float iou;
    bool sigmoid;
    std::vector<float> loc;   // [B, P, L, 4]
    std::vector<float> conf;  // [B, P, C]
    std::vector<float> prior; // [B, 2, P * 4]: per image
};

std::vector<float> referenceDetections(Case const& c, std::vector<int32_t>& counts)
{
    int32_t const locClasses = c.shareLocation ? 1 : c.classes;
    std::vector<float> out;
    counts.clear();
    for (int32_t image = 0; image < c.batch; ++image)
    {
        auto box = [&](int32_t p, int32_t cls) {
            int32_t const l = c.shareLocation ? 0 : cls;
            float const* t = &c.loc[((image * c.priors + p) * locClasses + l) * 4];
            float const* pr = &c.prior[(image * 2 * c.priors + p) * 4];
            float const* v = &c.prior[(image * 2 * c.priors + c.priors + p) * 4];
            float const pw = pr[2] - pr[0];
            float const ph = pr[3] - pr[1];
            float const x = v[0] * t[0] * pw + (pr[0] + pr[2]) / 2;
            float const y = v[1] * t[1] * ph + (pr[1] + pr[3]) / 2;
            float const w = std::exp(v[2] * t[2]) * pw;
            float const h = std::exp(v[3] * t[3]) * ph;
            return std::vector<float>{x - w / 2, y - h / 2, x + w / 2, y + h / 2};
        };
        auto score = [&](int32_t p, int32_t cls) {
            float const s = c.conf[(image * c.priors + p) * c.classes + cls];
            return c.sigmoid ? 1.F / (1.F + std::exp(-s)) : s;
        };
        std::vector<std::tuple<float, int32_t, int32_t>> kept; // (score, class, prior)
        for (int32_t cls = 0; cls < c.classes; ++cls)
        {
            if (cls == c.background)
            {
                continue;
            }
            std::vector<int32_t> order;
            for (int32_t p = 0; p < c.priors; ++p)
            {
                if (score(p, cls) > c.threshold)
                {
                    order.push_back(p);
                }
            }
            std::stable_sort(
                order.begin(), order.end(), [&](int32_t a, int32_t b) { return score(a, cls) > score(b, cls); });
            order.resize(std::min<size_t>(order.size(), static_cast<size_t>(c.topK)));
            std::vector<int32_t> survivors;
            for (int32_t const p : order)
            {
                std::vector<float> const b = box(p, cls);
                bool suppressed = false;
                for (int32_t const s : survivors)
                {
                    suppressed = suppressed || plainIou(box(s, cls).data(), b.data()) > c.iou;
                }
                if (!suppressed)
                {
                    survivors.push_back(p);
                    kept.emplace_back(score(p, cls), cls, p);
                }
            }
        }
        std::sort(kept.begin(), kept.end(), [](auto const& a, auto const& b) {
            return std::get<0>(a) != std::get<0>(b) ? std::get<0>(a) > std::get<0>(b) : a < b;
        });
        kept.resize(std::min<size_t>(kept.size(), static_cast<size_t>(c.keepTopK)));
        counts.push_back(static_cast<int32_t>(kept.size()));
        for (int32_t k = 0; k < c.keepTopK; ++k)
        {
            if (k >= static_cast<int32_t>(kept.size()))
            {
                out.insert(out.end(), {static_cast<float>(image), -1, 0, 0, 0, 0, 0});
                continue;
            }
            auto const [s, cls, p] = kept[static_cast<size_t>(k)];
            out.insert(out.end(), {static_cast<float>(image), static_cast<float>(cls), s});
            for (float const v : box(p, cls))
            {
                out.push_back(std::clamp(v, 0.F, 1.F));
            }
        }
    }
    return out;
}

//! Random priors of side `side` around the unit square, targets in [-1, 1], scores from `scoreLevels` levels (so
//! equal scores occur), variances [.1, .1, .2, .2].
Case randomCase(
    int32_t batch, int32_t priors, int32_t classes, bool shareLocation, float side, int32_t scoreLevels, uint32_t seed)
{
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> unit(0.F, 1.F);
    Case c{batch, priors, classes, shareLocation, 0, priors, priors, 0.3F, 0.45F, false, {}, {}, {}};
    int32_t const locClasses = shareLocation ? 1 : classes;
    for (int64_t i = 0; i < int64_t{batch} * priors * locClasses * 4; ++i)
    {
        c.loc.push_back(unit(rng) * 2.F - 1.F);
    }
    for (int64_t i = 0; i < int64_t{batch} * priors * classes; ++i)
    {
        c.conf.push_back(static_cast<float>(static_cast<int32_t>(unit(rng) * scoreLevels)) / scoreLevels);
    }
    for (int32_t image = 0; image < batch; ++image)
    {
        for (int32_t p = 0; p < priors; ++p)
        {
            float const x = unit(rng) * (1.F - side);
            float const y = unit(rng) * (1.F - side);
            c.prior.insert(c.prior.end(), {x, y, x + side, y + side});
        }
        for (int32_t p = 0; p < priors; ++p)
        {
            c.prior.insert(c.prior.end(), {.1F, .1F, .2F, .2F});
        }
    }
    return c;
}

PluginCall callFor(char const* name, Case const& c, int32_t isBatchAgnostic = 0)
{
    PluginCall call = ssdNms(name, c.classes, c.topK, c.keepTopK, c.threshold, c.iou);
    call.fields.add("shareLocation", c.shareLocation ? 1 : 0)
        .add("backgroundLabelId", c.background)
        .add("codeType", 1)
        .add("confSigmoid", c.sigmoid ? 1 : 0)
        .add("isBatchAgnostic", isBatchAgnostic)
        .add("inputOrder", std::vector<int32_t>{0, 1, 2});
    return call;
}

std::vector<HostTensor> inputsFor(Case const& c, DataType type = DataType::kFLOAT)
{
    int32_t const locClasses = c.shareLocation ? 1 : c.classes;
    return {fromFloats({c.batch, int64_t{c.priors} * locClasses * 4, 1, 1}, c.loc, type),
        fromFloats({c.batch, int64_t{c.priors} * c.classes, 1, 1}, c.conf, type),
        fromFloats({c.batch, 2, int64_t{c.priors} * 4, 1}, c.prior, type)};
}

void expectMatchesReference(char const* name, Case const& c)
{
    std::vector<int32_t> counts;
    std::vector<float> const expected = referenceDetections(c, counts);
    ASSERT_GT(counts[0], 0);
    PluginCall call = callFor(name, c);
    std::vector<HostTensor> const out = runPlugin(kiln::Backend::kCPU, call, inputsFor(c));
    ASSERT_EQ(out.size(), 2U) << name;
    EXPECT_EQ(keepCounts(out[1]), counts) << name;
    expectClose(out[0].floats(), expected, 1e-6F, name);
}

TEST(DetectionOutputPlugin, MatchesThePlainReferenceWithPerClassBoxesSigmoidAndTwoImages)
{
    Case c = randomCase(2, 60, 4, false, 0.2F, 8, 7U);
    c.topK = 12;
    c.keepTopK = 40; // more than the 3 classes * topK that can survive: padded rows follow
    c.sigmoid = true;
    c.threshold = 0.6F;
    for (float& s : c.conf)
    {
        s = s * 4.F - 1.F; // logits; sigmoid(-1 .. 3)
    }
    for (char const* name : kBothPlugins)
    {
        expectMatchesReference(name, c);
    }
}

TEST(DetectionOutputPlugin, MatchesThePlainReferenceWithSharedBoxesAndABackground)
{
    Case c = randomCase(2, 80, 3, true, 0.25F, 16, 11U);
    c.topK = 30;
    c.keepTopK = 40; // fewer than survive: keepTopK decides
    for (char const* name : kBothPlugins)
    {
        expectMatchesReference(name, c);
    }
}

TEST(DetectionOutputPlugin, TopK10000AndKeepTopK5000)
{
    // 12,000 small priors, two classes without a background: 10,000 candidates per class enter NMS, and more than
    // 5,000 survive, so keepTopK decides.
    Case c = randomCase(1, 12000, 2, true, 0.01F, 1 << 20, 3U);
    c.background = -1;
    c.topK = 10000;
    c.keepTopK = 5000;
    c.threshold = 0.05F;
    std::vector<int32_t> counts;
    std::vector<float> const expected = referenceDetections(c, counts);
    ASSERT_EQ(counts, (std::vector<int32_t>{5000}));
    PluginCall call = callFor("NMSDynamic_TRT", c);
    std::vector<HostTensor> const out = runPlugin(kiln::Backend::kCPU, call, inputsFor(c));
    ASSERT_EQ(out.size(), 2U);
    EXPECT_EQ(out[0].shape, (Shape{1, 1, 5000, 7}));
    EXPECT_EQ(keepCounts(out[1]), counts);
    expectClose(out[0].floats(), expected, 1e-6F);
}

TEST(DetectionOutputPlugin, SharesTheFirstImagesPriorsWhenBatchAgnosticOrOfBatchOne)
{
    // NMS_TRT's isBatchAgnostic (default 1): image 1 is decoded with image 0's priors.
    Case c = randomCase(2, 20, 2, true, 0.2F, 8, 5U);
    c.background = -1;
    Case shared = c;
    std::copy(c.prior.begin(), c.prior.begin() + 2 * 20 * 4, shared.prior.begin() + 2 * 20 * 4);
    std::vector<int32_t> counts;
    std::vector<float> const expected = referenceDetections(shared, counts);
    PluginCall call = callFor("NMS_TRT", c, 1);
    std::vector<HostTensor> const out = runPlugin(kiln::Backend::kCPU, call, inputsFor(c));
    ASSERT_EQ(out.size(), 2U);
    EXPECT_EQ(keepCounts(out[1]), counts);
    expectClose(out[0].floats(), expected, 1e-6F);

    // NMSDynamic_TRT: prior data of batch 1 serves every image.
    std::vector<HostTensor> inputs = inputsFor(c);
    inputs[2] = fromFloats({1, 2, 20 * 4, 1}, std::vector<float>(c.prior.begin(), c.prior.begin() + 2 * 20 * 4));
    PluginCall dynamic = callFor("NMSDynamic_TRT", c);
    std::vector<HostTensor> const broadcast = runPlugin(kiln::Backend::kCPU, dynamic, inputs);
    ASSERT_EQ(broadcast.size(), 2U);
    EXPECT_EQ(keepCounts(broadcast[1]), counts);
    expectClose(broadcast[0].floats(), expected, 1e-6F);

    // NMS_TRT with isBatchAgnostic 0 wants every image's priors: one image's are an error, not a guess.
    PluginCall perImage = callFor("NMS_TRT", c, 0);
    std::string errors;
    EXPECT_TRUE(runPlugin(kiln::Backend::kCPU, perImage, inputs, false, &errors).empty());
    EXPECT_NE(errors.find("NMS_TRT: prior data [1, 2, 80, 1] holds one image's priors, and isBatchAgnostic 0 asks"),
        std::string::npos)
        << errors;
}

TEST(DetectionOutputPlugin, RefusesConfDataThatDoesNotFitThePriors)
{
    for (char const* name : kBothPlugins)
    {
        PluginCall call = ssdNms(name, 3, 10, 6, 0.25F, 0.5F);
        call.fields.add("shareLocation", 1);
        std::string errors;
        std::vector<HostTensor> const out = runPlugin(kiln::Backend::kCPU, call,
            {fromFloats({1, 16, 1, 1}, kLoc), priorData(kPriors, {.1F, .1F, .2F, .2F}),
                fromFloats({1, 10, 1, 1}, std::vector<float>(10, .5F))},
            false, &errors);
        EXPECT_TRUE(out.empty()) << name;
        EXPECT_NE(errors.find(std::string(name) + ": conf data [1, 10, 1, 1] must hold priors (4) * numClasses (3)"),
            std::string::npos)
            << errors;
    }
}

TEST(DetectionOutputPlugin, CudaMatchesTheCpu)
{
    SKIP_WITHOUT_GPU();
    Case c = randomCase(3, 3000, 5, false, 0.1F, 1 << 20, 17U);
    c.topK = 400;
    c.keepTopK = 300;
    for (char const* name : kBothPlugins)
    {
        for (bool const fp16 : {false, true})
        {
            DataType const type = fp16 ? DataType::kHALF : DataType::kFLOAT;
            PluginCall call = callFor(name, c);
            std::vector<HostTensor> const cpu = runPlugin(kiln::Backend::kCPU, call, inputsFor(c, type), fp16);
            std::vector<HostTensor> const cuda = runPlugin(kiln::Backend::kCUDA, call, inputsFor(c, type), fp16);
            ASSERT_EQ(cuda.size(), 2U) << name;
            std::string const what = std::string(name) + (fp16 ? " FP16" : " FP32");
            EXPECT_EQ(keepCounts(cuda[1]), keepCounts(cpu[1])) << what;
            expectClose(cuda[0].floats(), cpu[0].floats(), fp16 ? Tolerance{1e-3, 1e-3} : Tolerance{1e-5}, what);
        }
    }
}

TEST(DetectionOutputPlugin, BadFieldsAreErrorsNamingPluginFieldAndValue)
{
    for (char const* name : kBothPlugins)
    {
        std::string const plugin(name);
        PluginCall missing{name, "1", {}};
        missing.fields.add("topK", 10).add("keepTopK", 5);
        EXPECT_NE(
            creationErrors(missing).find(plugin + ": the required field 'numClasses' is missing"), std::string::npos);

        PluginCall wrongType = ssdNms(name, 3, 10, 5, 0.1F, 0.5F);
        wrongType.fields.add("codeType", 1.5F);
        EXPECT_NE(creationErrors(wrongType).find(plugin + ": field 'codeType' holds kFLOAT32 data; expected integers"),
            std::string::npos);

        PluginCall badCode = ssdNms(name, 3, 10, 5, 0.1F, 0.5F);
        badCode.fields.add("codeType", 7);
        EXPECT_NE(
            creationErrors(badCode).find(plugin + ": field 'codeType' is 7; expected 0 (CORNER)"), std::string::npos);

        PluginCall badOrder = ssdNms(name, 3, 10, 5, 0.1F, 0.5F);
        badOrder.fields.add("inputOrder", std::vector<int32_t>{0, 0, 1});
        EXPECT_NE(creationErrors(badOrder).find(
                      plugin + ": field 'inputOrder' is [0, 0, 1]; expected a permutation of [0, 1, 2]"),
            std::string::npos);

        PluginCall badBackground = ssdNms(name, 3, 10, 5, 0.1F, 0.5F);
        badBackground.fields.add("backgroundLabelId", 3);
        EXPECT_NE(creationErrors(badBackground).find(plugin + ": field 'backgroundLabelId' is 3; expected -1"),
            std::string::npos);

        PluginCall badTopK = ssdNms(name, 3, 0, 5, 0.1F, 0.5F);
        EXPECT_NE(creationErrors(badTopK).find(plugin + ": field 'topK' is 0; expected > 0"), std::string::npos);
    }
}

} // namespace
} // namespace kiln::test
