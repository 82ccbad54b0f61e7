// MultiscaleDeformableAttnPlugin_TRT (versions 1 and 2) against the grid_sample-based PyTorch composite of
// Deformable-DETR's multi-scale deformable attention (computed in double and pasted here), on the CPU and, with a
// GPU, on CUDA against the CPU.
#include "expect_close.h"
#include "pattern_values.h"
#include "plugin_harness.h"

namespace kiln::test
{
namespace
{

using nvinfer1::DataType;

//! N 2, M 2 heads of D 3, levels 3 x 4 and 2 x 2 (S 16), Lq 2 queries, P 2 points; some locations outside [0, 1].
std::vector<HostTensor> smallCase(DataType type = DataType::kFLOAT)
{
    return {pattern({2, 16, 2, 3}, 7, 11, 0.25F, -1.F, type), fromInts({2, 2}, {3, 4, 2, 2}, DataType::kINT32),
        fromInts({2}, {0, 12}, DataType::kINT32), pattern({2, 2, 2, 2, 2, 2}, 5, 17, 0.078125F, -0.125F, type),
        pattern({2, 2, 2, 2, 2}, 3, 7, 0.125F, 0.F, type)};
}

// The sum over levels of grid_sample(level map, 2 * locations - 1, bilinear, zeros, align_corners=False) times the
// attention weights, as [N, Lq, M, D].
std::vector<float> const kTorchSmall{0.383239746F, 0.00701904297F, 0.202148438F, -0.348632812F, 0.820373535F,
    0.331054688F, -0.0624389648F, 0.331848145F, 0.926879883F, 0.0910644531F, 0.024597168F, 0.13067627F, 0.195678711F,
    -0.406616211F, 0.892456055F, 0.0706787109F, 0.159667969F, 0.574951172F, 0.251342773F, -0.153320312F, 0.110717773F,
    0.0154418945F, 0.313781738F, 0.20123291F};

PluginCall msDeformAttn(char const* version)
{
    return PluginCall{"MultiscaleDeformableAttnPlugin_TRT", version, {}};
}

TEST(MsDeformAttnPlugin, BothVersionsMatchTheGridSampleComposite)
{
    for (char const* version : {"1", "2"})
    {
        PluginCall call = msDeformAttn(version);
        std::vector<HostTensor> const out = runPlugin(kiln::Backend::kCPU, call, smallCase());
        ASSERT_EQ(out.size(), 1U) << "version " << version;
        EXPECT_EQ(out[0].shape, (Shape{2, 2, 2, 3}));
        expectClose(out[0].floats(), kTorchSmall, 1e-5F, std::string("version ") + version);
    }
}

TEST(MsDeformAttnPlugin, RunsInFp16)
{
    PluginCall call = msDeformAttn("2");
    std::vector<HostTensor> const out = runPlugin(kiln::Backend::kCPU, call, smallCase(DataType::kHALF), true);
    ASSERT_EQ(out.size(), 1U);
    EXPECT_EQ(out[0].type, DataType::kHALF);
    expectClose(out[0].floats(), kTorchSmall, {2e-3, 2e-3});
}

TEST(MsDeformAttnPlugin, CudaMatchesTheCpu)
{
    SKIP_WITHOUT_GPU();
    // Levels 20 x 24, 10 x 12, 5 x 6 (S 630), 8 heads of 32, 50 queries, 4 points.
    for (char const* version : {"1", "2"})
    {
        for (DataType type : {DataType::kFLOAT, DataType::kHALF})
        {
            bool const half = type == DataType::kHALF;
            std::vector<HostTensor> const inputs{pattern({2, 630, 8, 32}, 7, 101, 0.02F, -1.F, type),
                fromInts({3, 2}, {20, 24, 10, 12, 5, 6}, DataType::kINT32),
                fromInts({3}, {0, 480, 600}, DataType::kINT32),
                pattern({2, 50, 8, 3, 4, 2}, 13, 97, 0.0125F, -0.1F, type),
                pattern({2, 50, 8, 3, 4}, 3, 7, 0.05F, 0.F, type)};
            PluginCall call = msDeformAttn(version);
            std::vector<HostTensor> const cpu = runPlugin(kiln::Backend::kCPU, call, inputs, half);
            std::vector<HostTensor> const cuda = runPlugin(kiln::Backend::kCUDA, call, inputs, half);
            ASSERT_EQ(cuda.size(), 1U);
            expectClose(cuda[0].floats(), cpu[0].floats(), half ? Tolerance{4e-3, 4e-3} : Tolerance{1e-5, 1e-5},
                std::string("version ") + version + (half ? " FP16" : " FP32"));
        }
    }
}

TEST(MsDeformAttnPlugin, HasNoFieldsAndIgnoresUnknownOnes)
{
    PluginCall call = msDeformAttn("1");
    call.fields.add("im2col_step", 64);
    EXPECT_EQ(creationErrors(call), "");
    std::vector<HostTensor> const out = runPlugin(kiln::Backend::kCPU, call, smallCase());
    ASSERT_EQ(out.size(), 1U);
    expectClose(out[0].floats(), kTorchSmall, 1e-5F);
}

TEST(MsDeformAttnPlugin, MismatchedLevelsAreABuildError)
{
    std::vector<HostTensor> inputs = smallCase();
    inputs[2] = fromInts({3}, {0, 12, 14}, DataType::kINT32);
    for (char const* version : {"1", "2"})
    {
        PluginCall call = msDeformAttn(version);
        std::string errors;
        std::vector<HostTensor> const out = runPlugin(kiln::Backend::kCPU, call, inputs, false, &errors);
        EXPECT_TRUE(out.empty());
        EXPECT_NE(
            errors.find("MultiscaleDeformableAttnPlugin_TRT: spatial_shapes, level_start_index"), std::string::npos)
            << errors;
    }
}

TEST(MsDeformAttnPlugin, ALevelPastTheValueIsARunErrorNotACrash)
{
    std::vector<HostTensor> inputs = smallCase();
    inputs[1] = fromInts({2, 2}, {3, 4, 4, 4}, DataType::kINT32);
    PluginCall call = msDeformAttn("2");
    std::string errors;
    std::vector<HostTensor> const out = runPlugin(kiln::Backend::kCPU, call, inputs, false, &errors);
    EXPECT_TRUE(out.empty());
    EXPECT_NE(errors.find("MultiscaleDeformableAttnPlugin_TRT: level 1 (4 x 4 from 12) reaches past value's 16 pixels"),
        std::string::npos)
        << errors;
}

} // namespace
} // namespace kiln::test
