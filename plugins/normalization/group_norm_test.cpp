// GroupNormalizationPlugin against torch.nn.functional.group_norm (computed in double and pasted here), on the CPU
// and, with a GPU, on CUDA against the CPU.
#include "expect_close.h"
#include "pattern_values.h"
#include "plugin_harness.h"

#include <cmath>

namespace kiln::test
{
namespace
{

PluginCall groupNorm(int32_t groups, float eps)
{
    PluginCall call{"GroupNormalizationPlugin", "1", {}};
    call.fields.add("eps", eps).add("num_groups", groups);
    return call;
}

//! ((i * 37) mod 23) / 4 - 2.5, the inputs of the torch values below.
std::vector<float> ramp(size_t count)
{
    return patternValues(count, 37, 23, 0.25F, -2.5F);
}

TEST(GroupNormPlugin, MatchesTorchGroupNorm)
{
    PluginCall call = groupNorm(2, 1e-5F);
    std::vector<HostTensor> const out = runPlugin(kiln::Backend::kCPU, call,
        {fromFloats({2, 4, 3}, ramp(24)), fromFloats({4}, {1.F, -2.F, 0.5F, 3.F}),
            fromFloats({4}, {0.F, 0.5F, -0.5F, 1.F})});
    ASSERT_EQ(out.size(), 1U);
    EXPECT_EQ(out[0].shape, (Shape{2, 4, 3}));
    // group_norm(x [2, 4, 3], 2, weight, bias, eps=1e-5)
    expectClose(out[0].floats(),
        {-1.18947254F, 0.849623246F, -0.461224048F, -2.65574348F, -0.0340488972F, 2.58764569F, -0.228036433F,
            -0.962338064F, 0.179908918F, 0.673643719F, -3.73216607F, 3.12131582F, -0.707105275F, 1.57738869F,
            0.108785427F, 3.21963567F, -1.34935226F, 1.58785427F, 0.222184385F, -0.368693748F, -0.959571881F,
            3.75743129F, 0.21216249F, -3.33310631F},
        1e-5F);
}

TEST(GroupNormPlugin, OneGroupPerChannelIsInstanceNorm)
{
    // Constant channels normalize to zero, leaving the bias.
    PluginCall call = groupNorm(2, 1e-5F);
    std::vector<HostTensor> const out = runPlugin(kiln::Backend::kCPU, call,
        {fromFloats({1, 2, 2, 2}, {3.F, 3.F, 3.F, 3.F, -1.F, 1.F, -1.F, 1.F}), fromFloats({2}, {2.F, 2.F}),
            fromFloats({2}, {0.5F, 0.F})});
    ASSERT_EQ(out.size(), 1U);
    float const one = 1.F / std::sqrt(1.F + 1e-5F);
    expectClose(out[0].floats(), {0.5F, 0.5F, 0.5F, 0.5F, -2 * one, 2 * one, -2 * one, 2 * one}, 1e-6F);
}

TEST(GroupNormPlugin, CudaMatchesTheCpu)
{
    SKIP_WITHOUT_GPU();
    int32_t constexpr kChannels = 32;
    std::vector<float> scale(kChannels);
    std::vector<float> bias(kChannels);
    for (int32_t c = 0; c < kChannels; ++c)
    {
        scale[c] = 1.F - 0.05F * static_cast<float>(c);
        bias[c] = 0.03F * static_cast<float>(c);
    }
    struct Case
    {
        Shape shape;
        int32_t groups;
    };
    // Channels of an odd size take the two-pass kernels: one block per group; then few long groups, which they split
    // over blocks (GroupNormSplit), with a last chunk shorter than the others. Channels of a whole number of 16-byte
    // vectors: 16 groups of 1024 values take the one-pass kernel (group_norm_on_chip.cu), a block each; 4 groups of
    // 32768 and one of 4608 would need clusters, which inputs this small do not get (the two-pass kernels again);
    // and one group of 147456 values is more than 8 blocks hold.
    for (Case const& c :
        {Case{{3, kChannels, 19, 23}, 8}, Case{{1, kChannels, 61, 67}, 4}, Case{{2, kChannels, 16, 16}, 8},
            Case{{1, kChannels, 64, 64}, 4}, Case{{1, kChannels, 12, 12}, 1}, Case{{1, kChannels, 72, 64}, 1}})
    {
        PluginCall call = groupNorm(c.groups, 1e-5F);
        std::vector<HostTensor> const inputs{fromFloats(c.shape, ramp(static_cast<size_t>(volume(c.shape)))),
            fromFloats({kChannels}, scale), fromFloats({kChannels}, bias)};
        std::vector<HostTensor> const cpu = runPlugin(kiln::Backend::kCPU, call, inputs);
        std::vector<HostTensor> const cuda = runPlugin(kiln::Backend::kCUDA, call, inputs);
        ASSERT_EQ(cuda.size(), 1U);
        expectClose(cuda[0].floats(), cpu[0].floats(), {1e-5, 1e-5}, std::to_string(c.groups) + " groups");
    }
}

// An input larger than half the L2 of an H100 or H200 (42 MB): its groups of 32768 values are each held by a cluster
// of 4 blocks that add up their sums through distributed shared memory (group_norm_on_chip.cu).
TEST(GroupNormPlugin, CudaMatchesTheCpuWithClusteredRowsOnALargeInput)
{
    SKIP_WITHOUT_GPU();
    int32_t constexpr kChannels = 64;
    std::vector<float> scale(kChannels);
    std::vector<float> bias(kChannels);
    for (int32_t c = 0; c < kChannels; ++c)
    {
        scale[c] = 1.5F - 0.02F * static_cast<float>(c);
        bias[c] = 0.01F * static_cast<float>(c) - 0.3F;
    }
    Shape const shape{10, kChannels, 128, 128};
    PluginCall call = groupNorm(32, 1e-5F);
    std::vector<HostTensor> const inputs{fromFloats(shape, ramp(static_cast<size_t>(volume(shape)))),
        fromFloats({kChannels}, scale), fromFloats({kChannels}, bias)};
    std::vector<HostTensor> const cpu = runPlugin(kiln::Backend::kCPU, call, inputs);
    std::vector<HostTensor> const cuda = runPlugin(kiln::Backend::kCUDA, call, inputs);
    ASSERT_EQ(cuda.size(), 1U);
    expectClose(cuda[0].floats(), cpu[0].floats(), {1e-5, 1e-5});
}

TEST(GroupNormPlugin, BadFieldsAreErrorsNamingPluginFieldAndValue)
{
    PluginCall zeroGroups = groupNorm(0, 1e-5F);
    EXPECT_NE(
        creationErrors(zeroGroups).find("GroupNormalizationPlugin: field 'num_groups' is 0; expected a value >= 1"),
        std::string::npos);

    PluginCall wrongType{"GroupNormalizationPlugin", "1", {}};
    wrongType.fields.add("num_groups", 2.F);
    EXPECT_NE(creationErrors(wrongType).find("GroupNormalizationPlugin: field 'num_groups' holds kFLOAT32 data"),
        std::string::npos);

    PluginCall negative = groupNorm(1, -0.5F);
    EXPECT_NE(creationErrors(negative).find("field 'eps' is -0.5; expected a value >= 0"), std::string::npos);
}

TEST(GroupNormPlugin, GroupsThatDoNotDivideTheChannelsAreABuildError)
{
    PluginCall call = groupNorm(3, 1e-5F);
    std::string errors;
    std::vector<HostTensor> const out = runPlugin(kiln::Backend::kCPU, call,
        {fromFloats({1, 4, 2}, ramp(8)), fromFloats({4}, std::vector<float>(4, 1.F)),
            fromFloats({4}, std::vector<float>(4, 0.F))},
        false, &errors);
    EXPECT_TRUE(out.empty());
    EXPECT_NE(errors.find("GroupNormalizationPlugin: input X has 4 channels, which 'num_groups' 3 does not divide"),
        std::string::npos)
        << errors;
}

} // namespace
} // namespace kiln::test
