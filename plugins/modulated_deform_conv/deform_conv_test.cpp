// ModulatedDeformConv2d (versions 1 and 2) against torchvision.ops.deform_conv2d with a mask (computed in double
// and pasted here), on the CPU and, with a GPU, on CUDA against the CPU.
#include "expect_close.h"
#include "pattern_values.h"
#include "plugin_harness.h"

namespace kiln::test
{
namespace
{

using nvinfer1::DataType;

PluginCall deformConv(char const* version, std::vector<int32_t> const& stride, std::vector<int32_t> const& padding,
    std::vector<int32_t> const& dilation, int32_t group, int32_t deformableGroup)
{
    PluginCall call{"ModulatedDeformConv2d", version, {}};
    call.fields.add("stride", stride).add("padding", padding).add("dilation", dilation).add("group", group);
    call.fields.add("deformable_group", deformableGroup);
    return call;
}

//! x [1, 2, 4, 5], offset [1, 18, 4, 5], mask [1, 9, 4, 5], weight [3, 2, 3, 3], bias [3]; stride 1, padding 1.
std::vector<HostTensor> paddedCase(DataType type = DataType::kFLOAT)
{
    return {pattern({1, 2, 4, 5}, 7, 11, 0.25F, -1.F, type), pattern({1, 18, 4, 5}, 5, 13, 0.25F, -1.5F, type),
        pattern({1, 9, 4, 5}, 3, 7, 0.125F, 0.25F, type), pattern({3, 2, 3, 3}, 11, 7, 0.125F, -0.5F, type),
        fromFloats({3}, {0.5F, -0.25F, 1.F}, type)};
}

// torchvision.ops.deform_conv2d(x, offset, weight, bias, stride=1, padding=1, dilation=1, mask=mask) of paddedCase.
std::vector<float> const kTorchPadded{0.312011719F, 0.611816406F, -0.959960938F, 0.274414062F, 0.821044922F,
    0.189453125F, 0.605712891F, 0.459472656F, 0.356933594F, 1.01074219F, 0.126953125F, -0.174316406F, 0.751464844F,
    -0.600585938F, 0.6484375F, 0.45703125F, -0.0187988281F, 0.59765625F, 0.0537109375F, 0.732177734F, -0.190917969F,
    -0.137207031F, -1.05102539F, 0.107421875F, -0.4375F, 0.224609375F, -0.594726562F, -0.178222656F, -0.326171875F,
    -0.426513672F, -0.150390625F, -0.68359375F, -0.470703125F, -0.5546875F, -1.30273438F, -0.275390625F, -0.389892578F,
    -0.428222656F, -0.139648438F, -1.56494141F, 1.08740234F, 0.792480469F, 1.15527344F, 0.0263671875F, 0.717529297F,
    0.974609375F, 0.191162109F, 0.999511719F, 1.0625F, 0.348144531F, 1.26464844F, 0.805419922F, 0.341308594F,
    1.52539062F, 0.106445312F, 0.80078125F, 1.08691406F, 0.959472656F, 1.12353516F, 0.530517578F};

TEST(DeformConvPlugin, BothVersionsMatchTorchvisionWithPaddingAndBias)
{
    for (char const* version : {"1", "2"})
    {
        PluginCall call = deformConv(version, {1, 1}, {1, 1}, {1, 1}, 1, 1);
        std::vector<HostTensor> const out = runPlugin(kiln::Backend::kCPU, call, paddedCase());
        ASSERT_EQ(out.size(), 1U) << "version " << version;
        EXPECT_EQ(out[0].shape, (Shape{1, 3, 4, 5}));
        expectClose(out[0].floats(), kTorchPadded, 1e-5F, std::string("version ") + version);
    }
}

TEST(DeformConvPlugin, MatchesTorchvisionWithGroupsStrideDilationAndNoBias)
{
    // x [2, 4, 5, 6], weight [2, 2, 2, 3] (group 2), deformable_group 2, stride 2, padding 2, dilation 2: 4 x 3 out.
    std::vector<HostTensor> const inputs{pattern({2, 4, 5, 6}, 7, 11, 0.25F, -1.F),
        pattern({2, 24, 4, 3}, 5, 13, 0.25F, -1.5F), pattern({2, 12, 4, 3}, 3, 7, 0.125F, 0.25F),
        pattern({2, 2, 2, 3}, 11, 9, 0.125F, -0.5F)};
    for (char const* version : {"1", "2"})
    {
        PluginCall call = deformConv(version, {2, 2}, {2, 2}, {2, 2}, 2, 2);
        std::vector<HostTensor> const out = runPlugin(kiln::Backend::kCPU, call, inputs);
        ASSERT_EQ(out.size(), 1U) << "version " << version;
        EXPECT_EQ(out[0].shape, (Shape{2, 2, 4, 3}));
        expectClose(out[0].floats(),
            {0.09375F, -0.0654296875F, 0.0107421875F, 0.16796875F, 0.131347656F, -0.1328125F, -0.108398438F, 0.1015625F,
                0.201416016F, 0.001953125F, 0.0471191406F, 0.152099609F, 0.106445312F, 0.3359375F, 0.005859375F,
                0.177246094F, -0.1171875F, -0.2578125F, -0.483398438F, -0.252929688F, 0.299804688F, -0.037109375F,
                -0.0205078125F, -0.017578125F, -0.0610351562F, -0.0234375F, -0.0244140625F, 0.251953125F, 0.108398438F,
                -0.155273438F, 0.18359375F, -0.0283203125F, 0.0107421875F, -0.184570312F, -0.0859375F, 0.284667969F,
                -0.0234375F, 0.241455078F, -0.10546875F, -0.165771484F, 0.53125F, 0.0546875F, -0.102539062F,
                -0.1328125F, -0.228515625F, -0.220458984F, -0.083984375F, -0.0607910156F},
            1e-5F, std::string("version ") + version);
    }
}

TEST(DeformConvPlugin, RunsInFp16)
{
    PluginCall call = deformConv("2", {1, 1}, {1, 1}, {1, 1}, 1, 1);
    std::vector<HostTensor> const out = runPlugin(kiln::Backend::kCPU, call, paddedCase(DataType::kHALF), true);
    ASSERT_EQ(out.size(), 1U);
    EXPECT_EQ(out[0].type, DataType::kHALF);
    expectClose(out[0].floats(), kTorchPadded, {2e-3, 2e-3});
}

TEST(DeformConvPlugin, CudaMatchesTheCpu)
{
    SKIP_WITHOUT_GPU();
    for (char const* version : {"1", "2"})
    {
        for (DataType type : {DataType::kFLOAT, DataType::kHALF})
        {
            bool const half = type == DataType::kHALF;
            // x [2, 8, 13, 11], 3 x 3 kernel, group 2, deformable_group 2, stride 1, padding 1: 13 x 11 out.
            std::vector<HostTensor> const inputs{pattern({2, 8, 13, 11}, 7, 11, 0.25F, -1.F, type),
                pattern({2, 36, 13, 11}, 5, 13, 0.25F, -1.5F, type), pattern({2, 18, 13, 11}, 3, 7, 0.125F, 0.F, type),
                pattern({6, 4, 3, 3}, 11, 7, 0.125F, -0.5F, type), pattern({6}, 1, 6, 0.25F, -0.5F, type)};
            PluginCall call = deformConv(version, {1, 1}, {1, 1}, {1, 1}, 2, 2);
            std::vector<HostTensor> const cpu = runPlugin(kiln::Backend::kCPU, call, inputs, half);
            std::vector<HostTensor> const cuda = runPlugin(kiln::Backend::kCUDA, call, inputs, half);
            ASSERT_EQ(cuda.size(), 1U);
            expectClose(cuda[0].floats(), cpu[0].floats(), half ? Tolerance{4e-3, 4e-3} : Tolerance{1e-4, 1e-4},
                std::string("version ") + version + (half ? " FP16" : " FP32"));
        }
    }
}

TEST(DeformConvPlugin, CudaMatchesTheCpuWhenImagesTakeSeveralPasses)
{
    SKIP_WITHOUT_GPU();
    // Each image's columns matrix (64 * 9 rows of 96 * 128 values: 27 MiB in FP32, 13.5 MiB in FP16) leaves room
    // in the CUDA run's 64 MiB for two images per pass in FP32 and four in FP16: five images take three passes and
    // two, the last of one image. FP16 keeps its products in the workspace.
    for (DataType type : {DataType::kFLOAT, DataType::kHALF})
    {
        bool const half = type == DataType::kHALF;
        std::vector<HostTensor> const inputs{pattern({5, 64, 96, 128}, 7, 11, 0.25F, -1.F, type),
            pattern({5, 18, 96, 128}, 5, 13, 0.25F, -1.5F, type), pattern({5, 9, 96, 128}, 3, 7, 0.125F, 0.F, type),
            pattern({8, 64, 3, 3}, 11, 7, 0.03125F, -0.125F, type), pattern({8}, 1, 6, 0.25F, -0.5F, type)};
        PluginCall call = deformConv("2", {1, 1}, {1, 1}, {1, 1}, 1, 1);
        std::vector<HostTensor> const cpu = runPlugin(kiln::Backend::kCPU, call, inputs, half);
        std::vector<HostTensor> const cuda = runPlugin(kiln::Backend::kCUDA, call, inputs, half);
        ASSERT_EQ(cuda.size(), 1U);
        expectClose(cuda[0].floats(), cpu[0].floats(), half ? Tolerance{1e-2, 4e-3} : Tolerance{1e-4, 1e-4},
            half ? "FP16" : "FP32");
    }
}

TEST(DeformConvPlugin, BadFieldsAreErrorsNamingPluginFieldAndValue)
{
    PluginCall shortStride = deformConv("1", {1}, {0, 0}, {1, 1}, 1, 1);
    EXPECT_NE(creationErrors(shortStride).find("ModulatedDeformConv2d: field 'stride' holds 1 values; expected 2"),
        std::string::npos);

    PluginCall zeroGroup = deformConv("2", {1, 1}, {0, 0}, {1, 1}, 0, 1);
    EXPECT_NE(creationErrors(zeroGroup).find("ModulatedDeformConv2d: field 'group' is 0; expected a value >= 1"),
        std::string::npos);

    PluginCall negativePadding = deformConv("1", {1, 1}, {0, -2}, {1, 1}, 1, 1);
    EXPECT_NE(
        creationErrors(negativePadding).find("field 'padding' holds -2; expected values >= 0"), std::string::npos);

    PluginCall wrongType{"ModulatedDeformConv2d", "2", {}};
    wrongType.fields.add("deformable_group", 1.F);
    EXPECT_NE(creationErrors(wrongType).find("field 'deformable_group' holds kFLOAT32 data; expected integers"),
        std::string::npos);
}

TEST(DeformConvPlugin, AnOffsetOfTheWrongSizeIsABuildError)
{
    std::vector<HostTensor> inputs = paddedCase();
    inputs[1] = pattern({1, 16, 4, 5}, 5, 13, 0.25F, -1.5F);
    for (char const* version : {"1", "2"})
    {
        PluginCall call = deformConv(version, {1, 1}, {1, 1}, {1, 1}, 1, 1);
        std::string errors;
        std::vector<HostTensor> const out = runPlugin(kiln::Backend::kCPU, call, inputs, false, &errors);
        EXPECT_TRUE(out.empty());
        EXPECT_NE(errors.find("ModulatedDeformConv2d: offset must have 2 * deformable_group * KH * KW channels"),
            std::string::npos)
            << errors;
    }
}

} // namespace
} // namespace kiln::test
