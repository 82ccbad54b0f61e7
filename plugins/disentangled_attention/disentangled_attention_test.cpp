// DisentangledAttention_TRT 1 (V2) and 2 (V3) against a plain loop written here: the relative column from
// HuggingFace DeBERTa-V2's log-bucket position formula in double (an independent derivation of the index), the
// gather-add as NVIDIA's README and kernel define it. Plus hand-checked buckets and CUDA against the CPU.
#include "expect_close.h"
#include "plugin_harness.h"

#include <cmath>

namespace kiln::test
{
namespace
{

using nvinfer1::DataType;

PluginCall disentangled(char const* version, int32_t span, float factor)
{
    PluginCall call{"DisentangledAttention_TRT", version, {}};
    call.fields.add("span", span).add("factor", factor);
    return call;
}

// make_log_bucket_position(relative_pos, bucket_size = span, max_position = 2 span) + span, clamped to the width.
int64_t referenceColumn(int64_t r, int64_t span)
{
    int64_t const mid = span / 2;
    int64_t bucket = r;
    if (std::llabs(r) > mid)
    {
        double const ratio = std::log(static_cast<double>(std::llabs(r)) / static_cast<double>(mid))
            / std::log(static_cast<double>(2 * span - 1) / static_cast<double>(mid));
        int64_t const magnitude = static_cast<int64_t>(std::ceil(ratio * static_cast<double>(mid - 1))) + mid;
        bucket = r < 0 ? -magnitude : magnitude;
    }
    return std::clamp<int64_t>(bucket + span, 0, 2 * span - 1);
}

std::vector<float> pattern(size_t count, size_t salt)
{
    std::vector<float> values(count);
    for (size_t i = 0; i < values.size(); ++i)
    {
        values[i] = static_cast<float>(static_cast<int64_t>((i * salt) % 97) - 48) / 16.F;
    }
    return values;
}

TEST(DisentangledAttentionPlugin, LogBucketsMatchDebertaByHand)
{
    // span 8: mid 4, distances within 4 keep their value; 5 -> ceil(3 ln(5/4) / ln(15/4)) + 4 = 5, 8 -> 6, 11 -> 7.
    EXPECT_EQ(referenceColumn(3, 8), 11);
    EXPECT_EQ(referenceColumn(5, 8), 13);
    EXPECT_EQ(referenceColumn(8, 8), 14);
    EXPECT_EQ(referenceColumn(-11, 8), 1);
}

TEST(DisentangledAttentionPlugin, MatchesThePlainLoopBothVersions)
{
    int64_t constexpr kHeads = 2;
    int64_t constexpr kSequence = 12; // distances up to 11 reach the log buckets of span 8
    int32_t constexpr kSpan = 8;
    float constexpr kFactor = 0.25F;
    std::vector<float> const c2c = pattern(kHeads * kSequence * kSequence, 7);
    std::vector<float> const c2p = pattern(kHeads * kSequence * 2 * kSpan, 11);
    std::vector<float> const p2c = pattern(kHeads * kSequence * 2 * kSpan, 13);
    std::vector<float> expected(c2c.size());
    for (int64_t i = 0; i < kHeads; ++i)
    {
        for (int64_t q = 0; q < kSequence; ++q)
        {
            for (int64_t k = 0; k < kSequence; ++k)
            {
                int64_t const column = referenceColumn(q - k, kSpan);
                int64_t const at = (i * kSequence + q) * kSequence + k;
                expected[at] = kFactor
                    * (c2c[at] + c2p[(i * kSequence + q) * 2 * kSpan + column]
                        + p2c[(i * kSequence + k) * 2 * kSpan + column]);
            }
        }
    }
    for (char const* version : {"1", "2"})
    {
        SCOPED_TRACE(version);
        PluginCall call = disentangled(version, kSpan, kFactor);
        std::vector<HostTensor> const out = runPlugin(kiln::Backend::kCPU, call,
            {fromFloats({kHeads, kSequence, kSequence}, c2c), fromFloats({kHeads, kSequence, 2 * kSpan}, c2p),
                fromFloats({kHeads, kSequence, 2 * kSpan}, p2c)});
        ASSERT_EQ(out.size(), 1U);
        EXPECT_EQ(out[0].shape, (Shape{kHeads, kSequence, kSequence}));
        expectClose(out[0].floats(), expected, 1e-6F);
    }
}

TEST(DisentangledAttentionPlugin, CudaMatchesTheCpu)
{
    SKIP_WITHOUT_GPU();
    int64_t constexpr kHeads = 6;
    int64_t constexpr kSequence = 100;
    int32_t constexpr kSpan = 16;
    std::vector<float> const c2c = pattern(kHeads * kSequence * kSequence, 7);
    std::vector<float> const c2p = pattern(kHeads * kSequence * 2 * kSpan, 11);
    std::vector<float> const p2c = pattern(kHeads * kSequence * 2 * kSpan, 13);
    for (char const* version : {"1", "2"})
    {
        for (DataType type : {DataType::kFLOAT, DataType::kHALF})
        {
            bool const fp16 = type == DataType::kHALF;
            SCOPED_TRACE(std::string(version) + (fp16 ? " FP16" : " FP32"));
            PluginCall call = disentangled(version, kSpan, 0.1F);
            std::vector<HostTensor> const tensors{fromFloats({kHeads, kSequence, kSequence}, c2c, type),
                fromFloats({kHeads, kSequence, 2 * kSpan}, c2p, type),
                fromFloats({kHeads, kSequence, 2 * kSpan}, p2c, type)};
            std::vector<HostTensor> const cpu = runPlugin(kiln::Backend::kCPU, call, tensors, fp16);
            std::vector<HostTensor> const cuda = runPlugin(kiln::Backend::kCUDA, call, tensors, fp16);
            ASSERT_EQ(cuda.size(), 1U);
            expectClose(cuda[0].floats(), cpu[0].floats(), fp16 ? Tolerance{2e-3, 2e-3} : Tolerance{1e-6, 1e-6});
        }
    }
}

TEST(DisentangledAttentionPlugin, BadFieldsAreErrorsNamingPluginFieldAndValue)
{
    PluginCall missing{"DisentangledAttention_TRT", "1", {}};
    missing.fields.add("span", 4);
    EXPECT_NE(creationErrors(missing).find("DisentangledAttention_TRT: the required field 'factor' is missing"),
        std::string::npos);

    PluginCall zeroSpan = disentangled("2", 0, 0.1F);
    EXPECT_NE(creationErrors(zeroSpan).find("DisentangledAttention_TRT: field 'span' is 0; expected >= 1"),
        std::string::npos);

    PluginCall wrongType{"DisentangledAttention_TRT", "1", {}};
    wrongType.fields.add("span", 4.5F).add("factor", 0.1F);
    EXPECT_NE(creationErrors(wrongType).find("field 'span' holds kFLOAT32 data; expected integers"), std::string::npos);
}

TEST(DisentangledAttentionPlugin, RejectsRelativeInputsNotTwiceTheSpanWide)
{
    PluginCall call = disentangled("1", 4, 0.1F);
    std::string errors;
    std::vector<HostTensor> const out = runPlugin(kiln::Backend::kCPU, call,
        {fromFloats({1, 2, 2}, pattern(4, 3)), fromFloats({1, 2, 6}, pattern(12, 5)),
            fromFloats({1, 2, 6}, pattern(12, 7))},
        false, &errors);
    EXPECT_TRUE(out.empty());
    EXPECT_NE(errors.find("DisentangledAttention_TRT: input 1 (rank 3) is not [N, S, 2 span] with span = 4"),
        std::string::npos)
        << errors;
}

} // namespace
} // namespace kiln::test
