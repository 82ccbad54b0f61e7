// CropAndResizeDynamic 1 and 2 against TensorFlow's crop_and_resize as torch's grid_sample(align_corners=True)
// computes it for boxes inside the image (values computed in Python and pasted here), hand-worked values for
// extrapolation and one-sample crops, on the CPU; on CUDA against the CPU.
#include "expect_close.h"
#include "plugin_harness.h"

namespace kiln::test
{
namespace
{

PluginCall cropAndResize(char const* version, int32_t cropWidth, int32_t cropHeight)
{
    PluginCall call{"CropAndResizeDynamic", version, {}};
    call.fields.add("crop_width", cropWidth).add("crop_height", cropHeight);
    return call;
}

std::vector<float> patterned(size_t count)
{
    std::vector<float> values(count);
    for (size_t i = 0; i < values.size(); ++i)
    {
        values[i] = static_cast<float>(static_cast<double>(i * 37 % 23) / 7.0 - 1.5);
    }
    return values;
}

// features [2, 2, 4, 5]; boxes (y1, x1, y2, x2) per image, the last one flipped vertically.
std::vector<float> const kBoxes{
    0.1F, 0.2F, 0.9F, 0.7F, 0.F, 0.F, 1.F, 1.F, 0.25F, 0.5F, 0.75F, 1.F, 0.6F, 0.1F, 0.3F, 0.8F};

// torch grid_sample(x[n], grid of the crop's sample points, bilinear, align_corners=True), crops 3 x 4
std::vector<float> const kTorchCrops{0.14285704F, -0.057142901F, -0.47619026F, 0.85714276F, 0.31428562F, 0.11428567F,
    -0.30476168F, 1.0285713F, 0.48571421F, 0.28571426F, -0.1333331F, 1.1999999F, 0.71428562F, 0.51428567F, -0.34285729F,
    -1.1999999F, 0.88571419F, 0.68571424F, -0.17142871F, -1.0285714F, 1.0571428F, 0.85714283F, -1.2772424e-07F,
    -0.85714278F, -1.5F, 0.07142852F, 0.54761921F, -0.071428571F, -1.2857143F, 0.28571423F, 0.76190492F, 0.14285714F,
    -1.0714286F, 0.49999995F, 0.97619064F, 0.35714286F, -0.92857143F, 0.64285709F, -1.0714287F, 0.5F, -0.71428571F,
    0.85714281F, -0.85714296F, 0.71428571F, -0.5F, 1.0714285F, -0.64285725F, 0.92857143F, 0.46428571F, -0.39285725F,
    -0.15476206F, 1.1785714F, 0.57142857F, -0.28571439F, -0.047619207F, 1.2857143F, 0.67857143F, -0.17857153F,
    0.059523651F, 1.3928571F, 1.0357143F, 0.17857133F, -0.40476187F, -0.71428571F, 1.1428571F, 0.28571418F,
    -0.57142847F, -1.4285714F, 1.25F, 0.39285704F, -0.46428561F, -1.3214286F, -0.6142857F, -0.71904755F, 0.27142858F,
    -0.27142849F, -0.67857139F, -0.78333325F, 0.20714289F, -0.33571418F, -0.61142849F, -0.62857125F, 0.14285716F,
    -0.39999991F, -0.042857128F, -0.14761898F, 0.84285715F, -0.35714293F, -0.10714282F, -0.21190467F, 0.77857146F,
    -0.42142863F, -0.17142855F, -0.2761904F, 0.71428573F, -0.42000002F};

class CropAndResizeVersions : public ::testing::TestWithParam<char const*>
{
};

TEST_P(CropAndResizeVersions, MatchesBilinearSamplingAtTheCropPoints)
{
    PluginCall call = cropAndResize(GetParam(), 4, 3);
    std::vector<HostTensor> const out = runPlugin(
        kiln::Backend::kCPU, call, {fromFloats({2, 2, 4, 5}, patterned(80)), fromFloats({2, 2, 4, 1}, kBoxes)});
    ASSERT_EQ(out.size(), 1U);
    EXPECT_EQ(out[0].shape, (Shape{2, 2, 2, 3, 4}));
    expectClose(out[0].floats(), kTorchCrops, 1e-5F);
}

TEST_P(CropAndResizeVersions, SamplesOutsideTheImageAreZeroAndOneSampleTakesTheCentre)
{
    // features [[1, 2], [3, 4]]. Box (-1, 0, 1, 1) in 3 x 2: rows sample y = -1 (outside), 0 and 1.
    PluginCall tall = cropAndResize(GetParam(), 2, 3);
    std::vector<HostTensor> const out = runPlugin(kiln::Backend::kCPU, tall,
        {fromFloats({1, 1, 2, 2}, {1.F, 2.F, 3.F, 4.F}), fromFloats({1, 1, 4}, {-1.F, 0.F, 1.F, 1.F})});
    ASSERT_EQ(out.size(), 1U);
    expectClose(out[0].floats(), {0.F, 0.F, 1.F, 2.F, 3.F, 4.F}, 0.F);

    PluginCall single = cropAndResize(GetParam(), 1, 1);
    std::vector<HostTensor> const centre = runPlugin(kiln::Backend::kCPU, single,
        {fromFloats({1, 1, 2, 2}, {1.F, 2.F, 3.F, 4.F}), fromFloats({1, 1, 4}, {0.F, 0.F, 1.F, 1.F})});
    ASSERT_EQ(centre.size(), 1U);
    expectClose(centre[0].floats(), {2.5F}, 0.F); // the mean of the four pixels, sampled at (0.5, 0.5)
}

TEST_P(CropAndResizeVersions, RoisOfAnotherBatchFailTheBuild)
{
    PluginCall call = cropAndResize(GetParam(), 2, 2);
    std::string errors;
    EXPECT_TRUE(runPlugin(kiln::Backend::kCPU, call,
        {fromFloats({2, 1, 2, 2}, std::vector<float>(8, 1.F)), fromFloats({1, 1, 4, 1}, {0.F, 0.F, 1.F, 1.F})}, false,
        &errors)
                    .empty());
    EXPECT_NE(errors.find("CropAndResizeDynamic: expected 2 inputs"), std::string::npos) << errors;
}

TEST_P(CropAndResizeVersions, CudaMatchesTheCpu)
{
    SKIP_WITHOUT_GPU();
    std::vector<float> boxes;
    for (int32_t b = 0; b < 3 * 50; ++b)
    {
        float const y = static_cast<float>(b * 17 % 100) / 80.F - 0.1F;
        float const x = static_cast<float>(b * 29 % 100) / 80.F - 0.1F;
        boxes.insert(boxes.end(), {y, x, y + static_cast<float>(b % 7) / 10.F, x + static_cast<float>(b % 5) / 8.F});
    }
    PluginCall call = cropAndResize(GetParam(), 7, 9);
    std::vector<HostTensor> const in{
        fromFloats({3, 8, 37, 45}, patterned(3 * 8 * 37 * 45)), fromFloats({3, 50, 4, 1}, boxes)};
    std::vector<HostTensor> const cpu = runPlugin(kiln::Backend::kCPU, call, in);
    std::vector<HostTensor> const cuda = runPlugin(kiln::Backend::kCUDA, call, in);
    ASSERT_EQ(cuda.size(), 1U);
    expectClose(cuda[0].floats(), cpu[0].floats(), {1e-5, 1e-5});
}

INSTANTIATE_TEST_SUITE_P(CropAndResizePlugin, CropAndResizeVersions, ::testing::Values("1", "2"),
    [](::testing::TestParamInfo<char const*> const& testInfo) { return std::string("Version") + testInfo.param; });

TEST(CropAndResizePlugin, BadFieldsAreErrorsNamingPluginFieldAndValue)
{
    for (char const* version : {"1", "2"})
    {
        PluginCall missing{"CropAndResizeDynamic", version, {}};
        missing.fields.add("crop_width", 3);
        EXPECT_NE(creationErrors(missing).find("CropAndResizeDynamic: the required field 'crop_height' is missing"),
            std::string::npos);
        PluginCall zero = cropAndResize(version, 0, 3);
        EXPECT_NE(creationErrors(zero).find("CropAndResizeDynamic: field 'crop_width' is 0; expected > 0"),
            std::string::npos);
        PluginCall wrongType{"CropAndResizeDynamic", version, {}};
        wrongType.fields.add("crop_width", 3).add("crop_height", 2.5F);
        EXPECT_NE(creationErrors(wrongType).find("field 'crop_height' holds kFLOAT32 data; expected integers"),
            std::string::npos);
    }
}

} // namespace
} // namespace kiln::test
