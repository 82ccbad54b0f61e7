// InstanceNormalization_TRT (versions 1, 2 and 3) against torch.nn.functional.instance_norm (computed in double and
// pasted here), on the CPU and, with a GPU, on CUDA against the CPU.
#include "expect_close.h"
#include "pattern_values.h"
#include "plugin_harness.h"

namespace kiln::test
{
namespace
{

using nvinfer1::DataType;

//! The inputs the torch values were computed from: ((i * 37) mod 23) / 4 - 2.5.
std::vector<float> inputValues(size_t count)
{
    return patternValues(count, 37, 23, 0.25F, -2.5F);
}

PluginCall instanceNorm(
    char const* version, std::vector<float> const& scales, std::vector<float> const& bias, float epsilon)
{
    PluginCall call{"InstanceNormalization_TRT", version, {}};
    call.fields.add("epsilon", epsilon).add("scales", scales).add("bias", bias);
    return call;
}

// instance_norm of inputValues(24) as [2, 3, 2, 2], weight [1.5, -0.5, 2], bias [0.25, 1, -0.75], eps 1e-5.
std::vector<float> const kTorch4d{-1.66711469F, 1.15810696F, -0.658106957F, 2.16711469F, 0.805743414F, 1.67989805F,
    0.320101949F, 1.19425659F, 1.55580073F, -1.12190334F, -3.79960741F, 0.36571003F, -0.586782522F, 2.53720556F,
    0.528927507F, -1.47935055F, 0.805743414F, 1.67989805F, 0.320101949F, 1.19425659F, -1.86571003F, 2.29960741F,
    -0.378096657F, -3.05580073F};
// The same, then y < 0 ? 0.1 y : y.
std::vector<float> const kTorch4dLeakyRelu{-0.166711469F, 1.15810696F, -0.0658106957F, 2.16711469F, 0.805743414F,
    1.67989805F, 0.320101949F, 1.19425659F, 1.55580073F, -0.112190334F, -0.379960741F, 0.36571003F, -0.0586782522F,
    2.53720556F, 0.528927507F, -0.147935055F, 0.805743414F, 1.67989805F, 0.320101949F, 1.19425659F, -0.186571003F,
    2.29960741F, -0.0378096657F, -0.305580073F};
// instance_norm of inputValues(24) as [1, 2, 2, 2, 3], weight [0.5, 2], bias [-1, 0.5], eps 1e-3.
std::vector<float> const kTorch5d{-1.73567297F, -0.697075836F, -1.36474542F, -0.326148288F, -0.993817874F, -1.66148746F,
    -0.622890327F, -1.29055991F, -0.251962779F, -0.919632365F, -1.58730195F, -0.548704817F, -0.705055098F, 3.34393003F,
    0.74101102F, -1.86190799F, 2.18707714F, -0.415841875F, 3.63314326F, 1.03022424F, -1.57269477F, 2.47629036F,
    -0.126628651F, -2.72954766F};

std::vector<float> const kScales{1.5F, -0.5F, 2.F};
std::vector<float> const kBias{0.25F, 1.F, -0.75F};

TEST(InstanceNormPlugin, EveryVersionMatchesTorchOn4dInFp32)
{
    for (char const* version : {"1", "2", "3"})
    {
        PluginCall call = instanceNorm(version, kScales, kBias, 1e-5F);
        std::vector<HostTensor> const out
            = runPlugin(kiln::Backend::kCPU, call, {fromFloats({2, 3, 2, 2}, inputValues(24))});
        ASSERT_EQ(out.size(), 1U) << "version " << version;
        EXPECT_EQ(out[0].shape, (Shape{2, 3, 2, 2}));
        expectClose(out[0].floats(), kTorch4d, 1e-5F, std::string("version ") + version);
    }
}

TEST(InstanceNormPlugin, Matches5dInstanceNorm)
{
    for (char const* version : {"2", "3"})
    {
        PluginCall call = instanceNorm(version, {0.5F, 2.F}, {-1.F, 0.5F}, 1e-3F);
        std::vector<HostTensor> const out
            = runPlugin(kiln::Backend::kCPU, call, {fromFloats({1, 2, 2, 2, 3}, inputValues(24))});
        ASSERT_EQ(out.size(), 1U) << "version " << version;
        expectClose(out[0].floats(), kTorch5d, 1e-5F, std::string("version ") + version);
    }
}

TEST(InstanceNormPlugin, ReluAppliesTheLeakySlopeAlpha)
{
    for (char const* version : {"1", "3"})
    {
        PluginCall call = instanceNorm(version, kScales, kBias, 1e-5F);
        call.fields.add("relu", 1).add("alpha", 0.1F);
        std::vector<HostTensor> const out
            = runPlugin(kiln::Backend::kCPU, call, {fromFloats({2, 3, 2, 2}, inputValues(24))});
        ASSERT_EQ(out.size(), 1U);
        expectClose(out[0].floats(), kTorch4dLeakyRelu, 1e-5F, std::string("version ") + version);
    }
}

TEST(InstanceNormPlugin, RunsInFp16)
{
    for (char const* version : {"1", "3"})
    {
        PluginCall call = instanceNorm(version, kScales, kBias, 1e-5F);
        std::vector<HostTensor> const out
            = runPlugin(kiln::Backend::kCPU, call, {fromFloats({2, 3, 2, 2}, inputValues(24), DataType::kHALF)}, true);
        ASSERT_EQ(out.size(), 1U);
        EXPECT_EQ(out[0].type, DataType::kHALF);
        expectClose(out[0].floats(), kTorch4d, {4e-3, 2e-3}, std::string("version ") + version);
    }
}

TEST(InstanceNormPlugin, CudaMatchesTheCpu)
{
    SKIP_WITHOUT_GPU();
    int32_t constexpr kChannels = 5;
    std::vector<float> scales(kChannels);
    std::vector<float> bias(kChannels);
    for (int32_t c = 0; c < kChannels; ++c)
    {
        scales[c] = 0.5F + 0.25F * static_cast<float>(c);
        bias[c] = 0.1F * static_cast<float>(c) - 0.2F;
    }
    // Channels of an odd size take the two-pass kernels: ten channels of one block each; then five long channels,
    // which they split over blocks. Channels of a whole number of 16-byte vectors: ten of 384 values take the
    // one-pass kernel, a block each; five of 17408 would need clusters, which inputs this small do not get.
    for (Shape const& shape : {Shape{2, kChannels, 37, 41}, Shape{1, kChannels, 131, 127}, Shape{2, kChannels, 16, 24},
             Shape{1, kChannels, 128, 136}})
    {
        for (auto const& [version, type] : {std::pair{"1", DataType::kFLOAT}, std::pair{"1", DataType::kHALF},
                 std::pair{"3", DataType::kFLOAT}, std::pair{"3", DataType::kHALF}})
        {
            bool const half = type == DataType::kHALF;
            PluginCall call = instanceNorm(version, scales, bias, 1e-5F);
            call.fields.add("relu", 1).add("alpha", 0.2F);
            std::vector<HostTensor> const inputs{
                fromFloats(shape, inputValues(static_cast<size_t>(volume(shape))), type)};
            std::vector<HostTensor> const cpu = runPlugin(kiln::Backend::kCPU, call, inputs, half);
            std::vector<HostTensor> const cuda = runPlugin(kiln::Backend::kCUDA, call, inputs, half);
            ASSERT_EQ(cuda.size(), 1U);
            expectClose(cuda[0].floats(), cpu[0].floats(), half ? Tolerance{4e-3, 4e-3} : Tolerance{1e-5, 1e-5},
                std::string("version ") + version + (half ? " FP16" : " FP32") + " batch " + std::to_string(shape[0]));
        }
    }
}

// An input larger than half the L2 of an H100 or H200 in FP32 (42 MB): each channel of 16384 values is held by a
// cluster of 2 blocks (group_norm_on_chip.cu); in FP16 one block holds a channel.
TEST(InstanceNormPlugin, CudaMatchesTheCpuWithClusteredRowsOnALargeInput)
{
    SKIP_WITHOUT_GPU();
    int32_t constexpr kChannels = 160;
    std::vector<float> scales(kChannels);
    std::vector<float> bias(kChannels);
    for (int32_t c = 0; c < kChannels; ++c)
    {
        scales[c] = 0.5F + 0.01F * static_cast<float>(c);
        bias[c] = 0.2F - 0.003F * static_cast<float>(c);
    }
    Shape const shape{4, kChannels, 128, 128};
    for (DataType type : {DataType::kFLOAT, DataType::kHALF})
    {
        bool const half = type == DataType::kHALF;
        PluginCall call = instanceNorm("1", scales, bias, 1e-5F);
        std::vector<HostTensor> const inputs{fromFloats(shape, inputValues(static_cast<size_t>(volume(shape))), type)};
        std::vector<HostTensor> const cpu = runPlugin(kiln::Backend::kCPU, call, inputs, half);
        std::vector<HostTensor> const cuda = runPlugin(kiln::Backend::kCUDA, call, inputs, half);
        ASSERT_EQ(cuda.size(), 1U);
        expectClose(cuda[0].floats(), cpu[0].floats(), half ? Tolerance{4e-3, 4e-3} : Tolerance{1e-5, 1e-5},
            half ? "FP16" : "FP32");
    }
}

TEST(InstanceNormPlugin, BadFieldsAreErrorsNamingPluginFieldAndValue)
{
    PluginCall missing{"InstanceNormalization_TRT", "1", {}};
    missing.fields.add("bias", std::vector<float>{0.F});
    EXPECT_NE(creationErrors(missing).find("InstanceNormalization_TRT: the required field 'scales' is missing"),
        std::string::npos);

    PluginCall wrongType = instanceNorm("3", {1.F}, {0.F}, 1e-5F);
    wrongType.fields.add("relu", 1.5F);
    EXPECT_NE(creationErrors(wrongType).find("InstanceNormalization_TRT: field 'relu' holds kFLOAT32 data"),
        std::string::npos);

    PluginCall negative = instanceNorm("2", {1.F}, {0.F}, -1.F);
    EXPECT_NE(creationErrors(negative).find("InstanceNormalization_TRT: field 'epsilon' is -1; expected a value >= 0"),
        std::string::npos);

    PluginCall mismatched = instanceNorm("1", {1.F, 2.F}, {0.F}, 1e-5F);
    EXPECT_NE(creationErrors(mismatched).find("field 'bias' holds 1 values but 'scales' 2"), std::string::npos);
}

TEST(InstanceNormPlugin, ChannelsOtherThanTheScalesAreABuildError)
{
    for (char const* version : {"1", "3"})
    {
        PluginCall call = instanceNorm(version, kScales, kBias, 1e-5F);
        std::string errors;
        std::vector<HostTensor> const out
            = runPlugin(kiln::Backend::kCPU, call, {fromFloats({1, 2, 2, 2}, inputValues(8))}, false, &errors);
        EXPECT_TRUE(out.empty());
        EXPECT_NE(
            errors.find("InstanceNormalization_TRT: the input has 2 channels but the fields 'scales' and 'bias' 3"),
            std::string::npos)
            << errors;
    }
}

} // namespace
} // namespace kiln::test
