// PriorBox_TRT against boxes worked out by hand; with a GPU, CUDA against the CPU.
#include "expect_close.h"
#include "plugin_harness.h"

namespace kiln::test
{
namespace
{

PluginCall priorBox(std::vector<float> const& minSize, bool flip, bool clip)
{
    PluginCall call{"PriorBox_TRT", "1", {}};
    call.fields.add("minSize", minSize)
        .add("flip", flip ? 1 : 0)
        .add("clip", clip ? 1 : 0)
        .add("variance", std::vector<float>{0.1F, 0.1F, 0.2F, 0.2F})
        .add("offset", 0.5F);
    return call;
}

TEST(PriorBoxPlugin, MatchesHandComputedBoxes)
{
    // Feature map 1 x 2, image 4 x 8 (imgH, imgW and steps from the inputs): stepH = 4 / 1 = 4, stepW = 8 / 2 = 4.
    // minSize 2, maxSize 8, aspectRatios [4] with flip: ratios 1, 4, 1/4, so four boxes a cell (width x height):
    // 2 x 2; sqrt(2 * 8) = 4 x 4; 2 sqrt(4) x 2 / sqrt(4) = 4 x 1; 2 / 2 x 2 * 2 = 1 x 4.
    // Cell 0 is centred at (x, y) = (0.5 * 4, 0.5 * 4) = (2, 2), cell 1 at (6, 2); x is divided by 8, y by 4:
    // 2 x 2 at (2, 2): [(2 - 1) / 8, (2 - 1) / 4, (2 + 1) / 8, (2 + 1) / 4] = [0.125, 0.25, 0.375, 0.75], and so on.
    PluginCall call = priorBox({2.F}, true, false);
    call.fields.add("maxSize", std::vector<float>{8.F}).add("aspectRatios", std::vector<float>{4.F});
    std::vector<HostTensor> const out = runPlugin(kiln::Backend::kCPU, call,
        {fromFloats({1, 3, 1, 2}, std::vector<float>(6, 0.F)), fromFloats({1, 3, 4, 8}, std::vector<float>(96, 0.F))});
    ASSERT_EQ(out.size(), 1U);
    EXPECT_EQ(out[0].shape, (Shape{1, 2, 32, 1}));
    std::vector<float> expected{0.125F, 0.25F, 0.375F, 0.75F, // cell 0: 2 x 2
        0.F, 0.F, 0.5F, 1.F,                                  // 4 x 4
        0.F, 0.375F, 0.5F, 0.625F,                            // 4 x 1
        0.1875F, 0.F, 0.3125F, 1.F,                           // 1 x 4
        0.625F, 0.25F, 0.875F, 0.75F,                         // cell 1: 2 x 2 at (6, 2)
        0.5F, 0.F, 1.F, 1.F,                                  // 4 x 4
        0.5F, 0.375F, 1.F, 0.625F,                            // 4 x 1
        0.6875F, 0.F, 0.8125F, 1.F};                          // 1 x 4
    for (int box = 0; box < 8; ++box)
    {
        expected.insert(expected.end(), {0.1F, 0.1F, 0.2F, 0.2F});
    }
    expectClose(out[0].floats(), expected, 1e-6F);
}

TEST(PriorBoxPlugin, ClipsToTheImageAndRepeatsForEachSample)
{
    // One cell, imgH = imgW = 4 and steps 4 given: centre (2, 2); a 6 x 6 box spans [-1, 5] -> [-0.25, 1.25] -> [0, 1].
    PluginCall call = priorBox({6.F}, false, true);
    call.fields.add("imgH", 4).add("imgW", 4).add("stepH", 4.F).add("stepW", 4.F);
    std::vector<HostTensor> const out = runPlugin(kiln::Backend::kCPU, call,
        {fromFloats({2, 1, 1, 1}, {0.F, 0.F}), fromFloats({2, 1, 2, 2}, std::vector<float>(8, 0.F))});
    ASSERT_EQ(out.size(), 1U);
    EXPECT_EQ(out[0].shape, (Shape{2, 2, 4, 1}));
    std::vector<float> const sample{0.F, 0.F, 1.F, 1.F, 0.1F, 0.1F, 0.2F, 0.2F};
    std::vector<float> expected = sample;
    expected.insert(expected.end(), sample.begin(), sample.end());
    expectClose(out[0].floats(), expected, 1e-6F);
}

TEST(PriorBoxPlugin, CudaMatchesTheCpu)
{
    SKIP_WITHOUT_GPU();
    // SSD300's conv4_3 priors: a 38 x 38 map of a 300 x 300 image, step 8.
    for (bool clip : {false, true})
    {
        PluginCall call = priorBox({30.F}, true, clip);
        call.fields.add("maxSize", std::vector<float>{60.F}).add("aspectRatios", std::vector<float>{2.F, 3.F});
        call.fields.add("imgH", 300).add("imgW", 300).add("stepH", 8.F).add("stepW", 8.F);
        std::vector<HostTensor> const inputs{fromFloats({2, 1, 38, 38}, std::vector<float>(2 * 38 * 38, 0.F)),
            fromFloats({2, 1, 3, 3}, std::vector<float>(18, 0.F))};
        std::vector<HostTensor> const cpu = runPlugin(kiln::Backend::kCPU, call, inputs);
        std::vector<HostTensor> const cuda = runPlugin(kiln::Backend::kCUDA, call, inputs);
        ASSERT_EQ(cuda.size(), 1U);
        expectClose(cuda[0].floats(), cpu[0].floats(), 1e-6F);
    }
}

TEST(PriorBoxPlugin, BadFieldsAreErrorsNamingPluginFieldAndValue)
{
    PluginCall missing{"PriorBox_TRT", "1", {}};
    missing.fields.add("minSize", std::vector<float>{30.F}).add("flip", 1).add("clip", 0).add("offset", 0.5F);
    EXPECT_NE(
        creationErrors(missing).find("PriorBox_TRT: the required field 'variance' is missing"), std::string::npos);

    PluginCall three{"PriorBox_TRT", "1", {}};
    three.fields.add("minSize", std::vector<float>{30.F}).add("flip", 1).add("clip", 0).add("offset", 0.5F);
    three.fields.add("variance", std::vector<float>{0.1F, 0.1F, 0.2F});
    EXPECT_NE(
        creationErrors(three).find("PriorBox_TRT: field 'variance' holds 3 values; expected 4"), std::string::npos);

    PluginCall negative = priorBox({-30.F}, true, false);
    EXPECT_NE(creationErrors(negative).find("PriorBox_TRT: field 'minSize' holds -30.000000; expected positive"),
        std::string::npos);

    PluginCall wrongType = priorBox({30.F}, true, false);
    wrongType.fields.add("imgH", 300.5F);
    EXPECT_NE(creationErrors(wrongType).find("PriorBox_TRT: field 'imgH' holds kFLOAT32 data; expected integers"),
        std::string::npos);
}

} // namespace
} // namespace kiln::test
