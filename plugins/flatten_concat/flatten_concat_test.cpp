// FlattenConcat_TRT against the example in NVIDIA's README (A [2, 2, 2, 2] holding 0..15, B [2, 3, 2, 2] holding
// 16..39) and a per-image concatenation written out below; with a GPU, CUDA against the CPU.
#include "expect_close.h"
#include "plugin_harness.h"

#include <numeric>

namespace kiln::test
{
namespace
{

PluginCall flattenConcat(int32_t axis)
{
    PluginCall call{"FlattenConcat_TRT", "1", {}};
    call.fields.add("axis", axis).add("ignoreBatch", 0);
    return call;
}

std::vector<float> iota(size_t count, float first)
{
    std::vector<float> values(count);
    std::iota(values.begin(), values.end(), first);
    return values;
}

TEST(FlattenConcatPlugin, MatchesTheReadmeExample)
{
    PluginCall call = flattenConcat(1);
    std::vector<HostTensor> const out = runPlugin(
        kiln::Backend::kCPU, call, {fromFloats({2, 2, 2, 2}, iota(16, 0.F)), fromFloats({2, 3, 2, 2}, iota(24, 16.F))});
    ASSERT_EQ(out.size(), 1U);
    EXPECT_EQ(out[0].shape, (Shape{2, 20, 1, 1}));
    expectClose(out[0].floats(),
        {0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 8, 9, 10, 11, 12, 13, 14, 15, 28, 29,
            30, 31, 32, 33, 34, 35, 36, 37, 38, 39},
        0.F);
}

// Each image: input 0's values, then input 1's, then input 2's, each in its own (C, H, W) order.
std::vector<float> concatenated(std::vector<std::vector<float>> const& inputs, int64_t batch)
{
    std::vector<float> out;
    for (int64_t n = 0; n < batch; ++n)
    {
        for (std::vector<float> const& in : inputs)
        {
            auto const values = static_cast<int64_t>(in.size()) / batch;
            out.insert(out.end(), in.begin() + n * values, in.begin() + (n + 1) * values);
        }
    }
    return out;
}

TEST(FlattenConcatPlugin, ConcatenatesAlongTheLastAxisOfInputsThatDifferInWidth)
{
    // axis 3: the inputs share C and H; the output is [N, 1, 1, total].
    std::vector<std::vector<float>> const values{
        iota(3 * 4 * 2 * 5, 0.F), iota(3 * 4 * 2 * 1, 500.F), iota(3 * 4 * 2 * 3, 900.F)};
    PluginCall call = flattenConcat(3);
    std::vector<HostTensor> const out = runPlugin(kiln::Backend::kCPU, call,
        {fromFloats({3, 4, 2, 5}, values[0]), fromFloats({3, 4, 2, 1}, values[1]),
            fromFloats({3, 4, 2, 3}, values[2])});
    ASSERT_EQ(out.size(), 1U);
    EXPECT_EQ(out[0].shape, (Shape{3, 1, 1, 72}));
    expectClose(out[0].floats(), concatenated(values, 3), 0.F);
}

TEST(FlattenConcatPlugin, RefusesInputsThatDifferOffTheConcatenationAxis)
{
    PluginCall call = flattenConcat(1);
    std::string errors;
    std::vector<HostTensor> const out = runPlugin(kiln::Backend::kCPU, call,
        {fromFloats({1, 2, 2, 2}, iota(8, 0.F)), fromFloats({1, 2, 3, 2}, iota(12, 0.F))}, false, &errors);
    EXPECT_TRUE(out.empty());
    EXPECT_NE(errors.find("FlattenConcat_TRT: input 1 [2, 3, 2] and input 0 [2, 2, 2] differ on axis 2, not the "
                          "concatenation axis 1"),
        std::string::npos)
        << errors;
}

TEST(FlattenConcatPlugin, CudaMatchesTheCpu)
{
    SKIP_WITHOUT_GPU();
    PluginCall call = flattenConcat(1);
    std::vector<HostTensor> const inputs{fromFloats({4, 24, 19, 19}, iota(4 * 24 * 19 * 19, 0.F)),
        fromFloats({4, 6, 19, 19}, iota(4 * 6 * 19 * 19, -3000.F)),
        fromFloats({4, 16, 19, 19}, iota(4 * 16 * 19 * 19, 7.F))};
    std::vector<HostTensor> const cpu = runPlugin(kiln::Backend::kCPU, call, inputs);
    std::vector<HostTensor> const cuda = runPlugin(kiln::Backend::kCUDA, call, inputs);
    ASSERT_EQ(cuda.size(), 1U);
    EXPECT_EQ(cuda[0].shape, cpu[0].shape);
    expectClose(cuda[0].floats(), cpu[0].floats(), 0.F);
}

TEST(FlattenConcatPlugin, BadFieldsAreErrorsNamingPluginFieldAndValue)
{
    PluginCall missing{"FlattenConcat_TRT", "1", {}};
    EXPECT_NE(
        creationErrors(missing).find("FlattenConcat_TRT: the required field 'axis' is missing"), std::string::npos);

    PluginCall outOfRange = flattenConcat(4);
    EXPECT_NE(
        creationErrors(outOfRange).find("FlattenConcat_TRT: field 'axis' is 4; expected 1, 2 or 3"), std::string::npos);

    PluginCall wrongType{"FlattenConcat_TRT", "1", {}};
    wrongType.fields.add("axis", 1.F);
    EXPECT_NE(creationErrors(wrongType).find("FlattenConcat_TRT: field 'axis' holds kFLOAT32 data; expected integers"),
        std::string::npos);
}

} // namespace
} // namespace kiln::test
