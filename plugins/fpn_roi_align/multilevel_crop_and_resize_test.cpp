// MultilevelCropAndResize_TRT against torchvision.ops.roi_align (values pasted; each ROI on the level the plugin must
// pick), invalid ROIs giving zeros, FP16, and, with a GPU, CUDA against the CPU.
#include "expect_close.h"
#include "fpn_test_maps.h"
#include "plugin_harness.h"

namespace kiln::test
{
namespace
{

using fpn_maps::featureMap;
using nvinfer1::DataType;

PluginCall multilevel()
{
    PluginCall call{"MultilevelCropAndResize_TRT", "1", {}};
    call.fields.add("pooled_size", 2);
    call.fields.add("image_size", std::vector<int32_t>{3, 1024, 1024});
    return call;
}

// [y1, x1, y2, x2] in pixels of a 1024 x 1024 image. Areas against the fixed thresholds 224^2 / 4 = 12544 (P3),
// 50176 (P4), 200704 (P5), 802816 (P6): 80 x 80 = 6400 (P2), 150 x 150 = 22500 (P3), 300 x 300 = 90000 (P4),
// 500 x 600 = 300000 (P5), 1000 x 1024 = 1024000 (P6); then y1 > y2 and y1 < 0, both invalid.
std::vector<float> const kRois{10, 20, 90, 100, 100, 50, 250, 200, 0, 0, 300, 300, 100, 100, 600, 700, 0, 0, 1000, 1024,
    50, 50, 40, 60, -5, 0, 20, 20};

std::vector<HostTensor> inputs(DataType type = DataType::kFLOAT, int32_t channels = 2)
{
    std::vector<HostTensor> tensors{fromFloats({1, 7, 4}, kRois, type)};
    for (int32_t level = 0; level < 5; ++level)
    {
        tensors.push_back(featureMap(level, channels, 256 >> level, 256 >> level, type)); // strides 4 .. 64
    }
    return tensors;
}

// roi_align(P_l, [x1, y1, x2, y2], 2, spatial_scale = 1 / 2^(l + 2), sampling_ratio=1, aligned=False): one sample at
// each bin's centre; then 16 zeros for the two invalid ROIs.
std::vector<float> expected()
{
    std::vector<float> values{1.5F, 2.625F, 2.F, 3.125F, 2.75F, 1.75F, 1.125F, 2.25F, 2.03418F, 1.3125F, 2.1875F,
        1.99707F, 3.234375F, 2.313477F, 1.196289F, 1.96875F, 1.546875F, 2.817383F, 3.609375F, 2.389648F, 1.883789F,
        1.328125F, 0.875F, 3.141602F, 0.9140625F, 2.790527F, 1.960449F, 1.03125F, 2.164062F, 0.6953125F, 3.085938F,
        1.617188F, 3.835938F, 1.734375F, 1.703125F, 2.257812F, 1.234375F, 2.585938F, 1.757812F, 3.507812F};
    values.resize(values.size() + 16, 0.F);
    return values;
}

TEST(MultilevelCropAndResizePlugin, MatchesTorchvisionCentreSampledRoiAlignOnTheChosenLevel)
{
    PluginCall call = multilevel();
    std::vector<HostTensor> const out = runPlugin(kiln::Backend::kCPU, call, inputs());
    ASSERT_EQ(out.size(), 1U);
    EXPECT_EQ(out[0].shape, (Shape{1, 7, 2, 2, 2}));
    expectClose(out[0].floats(), expected(), {2e-6, 2e-6});
}

TEST(MultilevelCropAndResizePlugin, RunsInFp16)
{
    PluginCall call = multilevel();
    std::vector<HostTensor> const out = runPlugin(kiln::Backend::kCPU, call, inputs(DataType::kHALF), true);
    ASSERT_EQ(out.size(), 1U);
    EXPECT_EQ(out[0].type, DataType::kHALF);
    expectClose(out[0].floats(), expected(), {2e-3, 2e-3});
}

TEST(MultilevelCropAndResizePlugin, CudaMatchesTheCpu)
{
    SKIP_WITHOUT_GPU();
    for (DataType type : {DataType::kFLOAT, DataType::kHALF})
    {
        bool const half = type == DataType::kHALF;
        PluginCall call = multilevel();
        call.fields.add("pooled_size", 7);
        std::vector<HostTensor> const tensors = inputs(type, 32);
        std::vector<HostTensor> const cpu = runPlugin(kiln::Backend::kCPU, call, tensors, half);
        std::vector<HostTensor> const cuda = runPlugin(kiln::Backend::kCUDA, call, tensors, half);
        ASSERT_EQ(cuda.size(), 1U);
        expectClose(cuda[0].floats(), cpu[0].floats(), half ? Tolerance{2e-3, 2e-3} : Tolerance{1e-5, 1e-5});
    }
}

TEST(MultilevelCropAndResizePlugin, BadFieldsAreErrorsNamingPluginFieldAndValue)
{
    PluginCall missing{"MultilevelCropAndResize_TRT", "1", {}};
    EXPECT_NE(creationErrors(missing).find("MultilevelCropAndResize_TRT: the required field 'pooled_size' is missing"),
        std::string::npos);

    PluginCall zero{"MultilevelCropAndResize_TRT", "1", {}};
    zero.fields.add("pooled_size", 0);
    EXPECT_NE(creationErrors(zero).find("MultilevelCropAndResize_TRT: field 'pooled_size' is 0; expected 1 or more"),
        std::string::npos);

    PluginCall wrongType{"MultilevelCropAndResize_TRT", "1", {}};
    wrongType.fields.add("pooled_size", 7);
    wrongType.fields.add("image_size", std::vector<float>{3.F, 832.F, 1344.F});
    EXPECT_NE(creationErrors(wrongType).find("MultilevelCropAndResize_TRT: field 'image_size' holds kFLOAT32 data"),
        std::string::npos);
}

TEST(MultilevelCropAndResizePlugin, FourFeatureMapsAreAnErrorNamingThePlugin)
{
    PluginCall call = multilevel();
    std::vector<HostTensor> tensors = inputs();
    tensors.pop_back();
    std::string errors;
    EXPECT_TRUE(runPlugin(kiln::Backend::kCPU, call, tensors, false, &errors).empty());
    EXPECT_NE(errors.find("MultilevelCropAndResize_TRT: expected ROIs [R, 4] and 5 feature maps"), std::string::npos)
        << errors;
}

} // namespace
} // namespace kiln::test
