// Normalize_TRT against hand-computed values and a plain loop written below, in both modes; with a GPU, CUDA against
// the CPU.
#include "expect_close.h"
#include "plugin_harness.h"

#include <cmath>

namespace kiln::test
{
namespace
{

PluginCall normalize(std::vector<float> const& weights, bool acrossSpatial, bool channelShared, float eps)
{
    PluginCall call{"Normalize_TRT", "1", {}};
    call.fields.add("weights", weights)
        .add("acrossSpatial", acrossSpatial ? 1 : 0)
        .add("channelShared", channelShared ? 1 : 0)
        .add("nbWeights", 1)
        .add("eps", eps);
    return call;
}

std::vector<float> pattern(size_t count)
{
    std::vector<float> values(count);
    for (size_t i = 0; i < count; ++i)
    {
        values[i] = static_cast<float>(static_cast<int64_t>((i * 53) % 97) - 48) / 16.F;
    }
    return values;
}

TEST(NormalizePlugin, NormalizesEachPositionAcrossChannelsByHand)
{
    // Channel 0 = [3, 0], channel 1 = [4, 1], scales [2, 10], eps 0.
    // Position 0: norm sqrt(9 + 16) = 5 -> [3/5 * 2, 4/5 * 10] = [1.2, 8].
    // Position 1: norm sqrt(0 + 1) = 1 -> [0 * 2, 1 * 10] = [0, 10].
    PluginCall call = normalize({2.F, 10.F}, false, false, 0.F);
    std::vector<HostTensor> const out
        = runPlugin(kiln::Backend::kCPU, call, {fromFloats({1, 2, 1, 2}, {3.F, 0.F, 4.F, 1.F})});
    ASSERT_EQ(out.size(), 1U);
    EXPECT_EQ(out[0].shape, (Shape{1, 2, 1, 2}));
    expectClose(out[0].floats(), {1.2F, 0.F, 8.F, 10.F}, 1e-6F);
}

TEST(NormalizePlugin, NormalizesEachSampleAcrossSpatialByHand)
{
    // Sample 0 = [3, 0, 0, 4]: norm 5; sample 1 = [1, 1, 1, 1]: norm 2; one shared scale 2, eps 0.
    PluginCall call = normalize({2.F}, true, true, 0.F);
    std::vector<HostTensor> const out
        = runPlugin(kiln::Backend::kCPU, call, {fromFloats({2, 2, 2, 1}, {3.F, 0.F, 0.F, 4.F, 1.F, 1.F, 1.F, 1.F})});
    ASSERT_EQ(out.size(), 1U);
    expectClose(out[0].floats(), {1.2F, 0.F, 0.F, 1.6F, 1.F, 1.F, 1.F, 1.F}, 1e-6F);
}

// y[n, c, p] = x[n, c, p] / sqrt(sum of squares + eps) * scale[c], the sum over channels of position p, or over
// the whole sample.
std::vector<float> reference(std::vector<float> const& x, std::vector<float> const& scales, bool acrossSpatial,
    float eps, int batch, int channels, int spatial)
{
    std::vector<float> y(x.size());
    for (int n = 0; n < batch; ++n)
    {
        auto at = [&](int c, int p) { return static_cast<size_t>((n * channels + c) * spatial + p); };
        for (int p = 0; p < spatial; ++p)
        {
            double sum = 0.0;
            for (int c = 0; c < channels; ++c)
            {
                for (int q = 0; q < spatial; ++q)
                {
                    if (acrossSpatial || q == p)
                    {
                        sum += double{x[at(c, q)]} * x[at(c, q)];
                    }
                }
            }
            for (int c = 0; c < channels; ++c)
            {
                float const scale = scales[scales.size() == 1 ? 0 : c];
                y[at(c, p)] = static_cast<float>(x[at(c, p)] / std::sqrt(sum + eps) * scale);
            }
        }
    }
    return y;
}

TEST(NormalizePlugin, MatchesAPlainLoopInBothModes)
{
    int const batch = 2, channels = 5, h = 3, w = 4;
    std::vector<float> const x = pattern(static_cast<size_t>(batch * channels * h * w));
    std::vector<float> const scales{1.F, 2.F, 0.5F, -1.F, 3.F};
    for (bool acrossSpatial : {false, true})
    {
        PluginCall call = normalize(scales, acrossSpatial, false, 0.25F);
        std::vector<HostTensor> const out
            = runPlugin(kiln::Backend::kCPU, call, {fromFloats({batch, channels, h, w}, x)});
        ASSERT_EQ(out.size(), 1U);
        expectClose(out[0].floats(), reference(x, scales, acrossSpatial, 0.25F, batch, channels, h * w), {1e-6, 1e-6},
            acrossSpatial ? "across spatial" : "per position");
    }
}

TEST(NormalizePlugin, RefusesWeightsThatDoNotMatchTheChannels)
{
    PluginCall call = normalize({1.F, 2.F}, false, false, 0.F);
    std::string errors;
    std::vector<HostTensor> const out
        = runPlugin(kiln::Backend::kCPU, call, {fromFloats({1, 3, 1, 1}, {1.F, 2.F, 3.F})}, false, &errors);
    EXPECT_TRUE(out.empty());
    EXPECT_NE(
        errors.find("Normalize_TRT: field 'weights' holds 2 values, but the input has 3 channels"), std::string::npos)
        << errors;
}

TEST(NormalizePlugin, CudaMatchesTheCpu)
{
    SKIP_WITHOUT_GPU();
    int const batch = 2, channels = 64, h = 19, w = 19;
    std::vector<HostTensor> const inputs{fromFloats({batch, channels, h, w}, pattern(batch * channels * h * w))};
    std::vector<float> scales(channels);
    for (int c = 0; c < channels; ++c)
    {
        scales[c] = 10.F + static_cast<float>(c);
    }
    for (bool acrossSpatial : {false, true})
    {
        for (bool channelShared : {false, true})
        {
            PluginCall call
                = normalize(channelShared ? std::vector<float>{20.F} : scales, acrossSpatial, channelShared, 1e-10F);
            std::vector<HostTensor> const cpu = runPlugin(kiln::Backend::kCPU, call, inputs);
            std::vector<HostTensor> const cuda = runPlugin(kiln::Backend::kCUDA, call, inputs);
            ASSERT_EQ(cuda.size(), 1U);
            expectClose(cuda[0].floats(), cpu[0].floats(), {1e-5, 1e-5});
        }
    }
}

TEST(NormalizePlugin, BadFieldsAreErrorsNamingPluginFieldAndValue)
{
    PluginCall missing{"Normalize_TRT", "1", {}};
    missing.fields.add("weights", std::vector<float>{1.F}).add("acrossSpatial", 0).add("channelShared", 1);
    EXPECT_NE(creationErrors(missing).find("Normalize_TRT: the required field 'eps' is missing"), std::string::npos);

    PluginCall two{"Normalize_TRT", "1", {}};
    two.fields.add("weights", std::vector<float>{1.F}).add("acrossSpatial", 0).add("channelShared", 1);
    two.fields.add("nbWeights", 2).add("eps", 0.F);
    EXPECT_NE(creationErrors(two).find("Normalize_TRT: field 'nbWeights' is 2; expected 1"), std::string::npos);

    PluginCall wrongType{"Normalize_TRT", "1", {}};
    wrongType.fields.add("weights", std::vector<float>{1.F}).add("acrossSpatial", 0.F).add("channelShared", 1);
    wrongType.fields.add("eps", 0.F);
    EXPECT_NE(
        creationErrors(wrongType).find("Normalize_TRT: field 'acrossSpatial' holds kFLOAT32 data"), std::string::npos);

    PluginCall shared = normalize({1.F, 2.F}, false, true, 0.F);
    EXPECT_NE(creationErrors(shared).find("Normalize_TRT: field 'weights' holds 2 values; with channelShared it holds "
                                          "one"),
        std::string::npos);
}

} // namespace
} // namespace kiln::test
