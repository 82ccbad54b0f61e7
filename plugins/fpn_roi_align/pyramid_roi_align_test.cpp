// PyramidROIAlign_TRT against torchvision.ops.roi_align (values pasted; each ROI on the level the plugin must pick),
// against hand-worked values in the legacy mode, and, with a GPU, CUDA against the CPU.
#include "expect_close.h"
#include "fpn_test_maps.h"
#include "plugin_harness.h"

namespace kiln::test
{
namespace
{

using fpn_maps::featureMap;

PluginCall pyramid()
{
    PluginCall call{"PyramidROIAlign_TRT", "1", {}};
    call.fields.add("pooled_size", 2);
    call.fields.add("image_size", std::vector<int32_t>{64, 64});
    call.fields.add("fpn_scale", 16);
    return call;
}

// A 64 x 64 image with P2-P5 of 16, 8, 4, 2 pixels (two channels). fpn_scale 16 in normalized area: P3 above
// (16 / 2)^2 / 64^2, i.e. ROI areas above 64 pixels read P3, above 256 P4, above 1024 P5. The ROIs ([x1, y1, x2, y2])
// have areas 6 x 6 = 36 (P2), 12 x 12 = 144 (P3), 24 x 20 = 480 (P4), 60 x 48 = 2880 (P5).
std::vector<float> const kRois{4, 8, 10, 14, 10, 4, 22, 16, 8, 8, 32, 28, 0, 4, 60, 52};

std::vector<HostTensor> pyramidInputs(std::vector<float> const& rois, Shape const& roiShape)
{
    return {fromFloats(roiShape, rois), featureMap(0, 2, 16, 16), featureMap(1, 2, 8, 8), featureMap(2, 2, 4, 4),
        featureMap(3, 2, 2, 2)};
}

TEST(PyramidRoiAlignPlugin, DefaultModeMatchesTorchvisionAlignedRoiAlignOnTheChosenLevel)
{
    PluginCall call = pyramid();
    std::vector<HostTensor> const out = runPlugin(kiln::Backend::kCPU, call, pyramidInputs(kRois, {1, 4, 4}));
    ASSERT_EQ(out.size(), 1U);
    EXPECT_EQ(out[0].shape, (Shape{1, 4, 2, 2, 2}));
    // roi_align(P_l, box, 2, spatial_scale = size_l / 64, sampling_ratio=0, aligned=True) per ROI.
    expectClose(out[0].floats(),
        {0.6835938F, 0.78125F, 1.199219F, 1.5625F, 1.46875F, 1.699219F, 2.25F, 2.8125F, 2.324219F, 0.8945312F, 1.3125F,
            1.875F, 1.25F, 1.8125F, 2.496094F, 2.660156F, 2.078125F, 2.474609F, 3.171875F, 3.236328F, 2.F, 2.5625F,
            0.4375F, 1.F, 4.F, 0.828125F, 2.125F, 1.841797F, 1.F, 1.679688F, 2.3125F, 2.992188F},
        {2e-6, 2e-6});
}

TEST(PyramidRoiAlignPlugin, OutputHalfPixelWithTwoSamplesMatchesTorchvisionUnalignedRoiAlign)
{
    PluginCall call = pyramid();
    call.fields.add("roi_coords_transform", 1);
    call.fields.add("sampling_ratio", 2);
    std::vector<HostTensor> const out = runPlugin(kiln::Backend::kCPU, call, pyramidInputs(kRois, {1, 4, 4}));
    ASSERT_EQ(out.size(), 1U);
    // roi_align(..., sampling_ratio=2, aligned=False); every scaled ROI is over one pixel, so torchvision's
    // minimum size does not apply.
    expectClose(out[0].floats(),
        {0.9375F, 1.5F, 2.000977F, 2.169189F, 2.1875F, 2.500977F, 2.835938F, 2.858887F, 1.499023F, 1.762695F, 2.5625F,
            2.128906F, 2.416992F, 2.929688F, 2.152344F, 1.71875F, 3.220215F, 1.732422F, 2.487793F, 1.630859F, 1.125F,
            1.6875F, 1.421875F, 1.984375F, 2.105469F, 1.375F, 1.851562F, 2.25F, 2.226562F, 2.625F, 3.101562F, 3.5F},
        {2e-6, 2e-6});
}

TEST(PyramidRoiAlignPlugin, SwappedNormalizedRoisGiveTheSameResultAsAbsoluteOnes)
{
    // The same boxes as [y1, x1, y2, x2] / 64, in reversed corner order (the plugin takes min and max).
    std::vector<float> swapped;
    for (size_t i = 0; i < kRois.size(); i += 4)
    {
        for (size_t k : {3, 2, 1, 0})
        {
            swapped.push_back(kRois[i + k] / 64.F);
        }
    }
    PluginCall absolute = pyramid();
    PluginCall normalized = pyramid();
    normalized.fields.add("roi_coords_swap", 1);
    normalized.fields.add("roi_coords_absolute", 0);
    std::vector<HostTensor> const expected = runPlugin(kiln::Backend::kCPU, absolute, pyramidInputs(kRois, {1, 4, 4}));
    std::vector<HostTensor> const out = runPlugin(kiln::Backend::kCPU, normalized, pyramidInputs(swapped, {1, 4, 4}));
    ASSERT_EQ(out.size(), 1U);
    expectClose(out[0].floats(), expected[0].floats(), {1e-5, 1e-5});
}

TEST(PyramidRoiAlignPlugin, LegacyModeSamplesTheCornersOfNormalizedYxRois)
{
    PluginCall call{"PyramidROIAlign_TRT", "1", {}};
    call.fields.add("pooled_size", 2);
    call.fields.add("legacy", 1);
    // One channel; P2 is 21 x 21 holding 10y + x, P3 11 x 11 holding 1000 + 10y + x (linear, so bilinear samples
    // are exact). Legacy thresholds, normalized area: P3 above 224^2 * 2 / 1024^2 / 16 = 0.00598, P4 above 0.0239.
    auto plane = [](int32_t size, float base) {
        std::vector<float> values;
        for (int32_t y = 0; y < size; ++y)
        {
            for (int32_t x = 0; x < size; ++x)
            {
                values.push_back(base + static_cast<float>(10 * y + x));
            }
        }
        return fromFloats({1, 1, size, size}, values);
    };
    // ROI 0 [y1, x1, y2, x2] = [0.1, 0.25, 0.125, 0.3]: area 0.025 * 0.05 = 0.00125 -> P2; corners times (21 - 1):
    // y 2..2.5, x 5..6, so the 2 x 2 samples are (2, 5), (2, 6), (2.5, 5), (2.5, 6) -> 25, 26, 30, 31.
    // ROI 1 [0.5, 0.5, 0.6, 0.6]: area 0.01 -> P3; times (11 - 1): y 5..6, x 5..6 -> 1055, 1056, 1065, 1066.
    std::vector<HostTensor> const out = runPlugin(kiln::Backend::kCPU, call,
        {fromFloats({1, 2, 4}, {0.1F, 0.25F, 0.125F, 0.3F, 0.5F, 0.5F, 0.6F, 0.6F}), plane(21, 0.F), plane(11, 1000.F),
            plane(6, 0.F), plane(3, 0.F)});
    ASSERT_EQ(out.size(), 1U);
    EXPECT_EQ(out[0].shape, (Shape{1, 2, 1, 2, 2}));
    expectClose(out[0].floats(), {25.F, 26.F, 30.F, 31.F, 1055.F, 1056.F, 1065.F, 1066.F}, {1e-4, 1e-6});
}

TEST(PyramidRoiAlignPlugin, CudaMatchesTheCpu)
{
    SKIP_WITHOUT_GPU();
    // Two batch items, 300 ROIs of every size (some past the image), 7 x 7 bins, every coordinate mode.
    std::vector<float> rois;
    for (int32_t i = 0; i < 600; ++i)
    {
        auto const x = static_cast<float>((i * 37) % 70) - 3.F;
        auto const y = static_cast<float>((i * 53) % 66) - 2.F;
        auto const size = static_cast<float>(1 + (i * 29) % 63);
        rois.insert(rois.end(), {x, y, x + size, y + size * 0.75F});
    }
    std::vector<HostTensor> inputs{fromFloats({2, 300, 4}, rois)};
    for (int32_t level = 0; level < 4; ++level)
    {
        HostTensor map = featureMap(level, 16, 16 >> level, 16 >> level);
        HostTensor twice = map;
        twice.shape[0] = 2;
        twice.bytes.insert(twice.bytes.end(), map.bytes.begin(), map.bytes.end());
        inputs.push_back(twice);
    }
    for (int32_t transform : {-1, 0, 1, 2})
    {
        for (int32_t ratio : {0, 2})
        {
            PluginCall call = pyramid();
            call.fields.add("pooled_size", 7);
            call.fields.add("roi_coords_transform", transform);
            call.fields.add("sampling_ratio", ratio);
            call.fields.add("roi_coords_plusone", transform == 1 ? 1 : 0);
            std::vector<HostTensor> const cpu = runPlugin(kiln::Backend::kCPU, call, inputs);
            std::vector<HostTensor> const cuda = runPlugin(kiln::Backend::kCUDA, call, inputs);
            ASSERT_EQ(cuda.size(), 1U);
            expectClose(cuda[0].floats(), cpu[0].floats(), {1e-5, 1e-5},
                "transform " + std::to_string(transform) + ", sampling_ratio " + std::to_string(ratio));
        }
    }
}

TEST(PyramidRoiAlignPlugin, BadFieldsAreErrorsNamingPluginFieldAndValue)
{
    PluginCall outOfRange{"PyramidROIAlign_TRT", "1", {}};
    outOfRange.fields.add("roi_coords_transform", 3);
    EXPECT_NE(creationErrors(outOfRange)
                  .find("PyramidROIAlign_TRT: field 'roi_coords_transform' is 3; expected -1, 0, 1 or 2"),
        std::string::npos);

    PluginCall badSize{"PyramidROIAlign_TRT", "1", {}};
    badSize.fields.add("image_size", std::vector<int32_t>{3, 1024, 1024});
    EXPECT_NE(creationErrors(badSize).find("PyramidROIAlign_TRT: field 'image_size' holds 3 values; expected 2"),
        std::string::npos);

    PluginCall wrongType{"PyramidROIAlign_TRT", "1", {}};
    wrongType.fields.add("pooled_size", 7.5F);
    EXPECT_NE(creationErrors(wrongType).find("PyramidROIAlign_TRT: field 'pooled_size' holds kFLOAT32 data"),
        std::string::npos);

    PluginCall negative{"PyramidROIAlign_TRT", "1", {}};
    negative.fields.add("sampling_ratio", -1);
    EXPECT_NE(creationErrors(negative).find("PyramidROIAlign_TRT: field 'sampling_ratio' is -1; expected 0 or more"),
        std::string::npos);
}

TEST(PyramidRoiAlignPlugin, RoisWithoutFourCoordinatesAreAnErrorNamingThePlugin)
{
    PluginCall call = pyramid();
    std::string errors;
    std::vector<HostTensor> const out = runPlugin(kiln::Backend::kCPU, call,
        {fromFloats({1, 2, 3}, {0, 0, 1, 1, 2, 2}), featureMap(0, 2, 16, 16), featureMap(1, 2, 8, 8),
            featureMap(2, 2, 4, 4), featureMap(3, 2, 2, 2)},
        false, &errors);
    EXPECT_TRUE(out.empty());
    EXPECT_NE(errors.find("PyramidROIAlign_TRT: expected ROIs [R, 4] and 4 feature maps"), std::string::npos) << errors;
}

} // namespace
} // namespace kiln::test
