// ScatterElements 1 and 2 against torch's scatter_reduce(include_self=True) and scatter (values computed in Python and
// pasted here), on the CPU; on CUDA against the CPU.
#include "expect_close.h"
#include "plugin_harness.h"

#include <limits>

namespace kiln::test
{
namespace
{

using nvinfer1::DataType;

PluginCall scatterElements(char const* version, std::string const& reduction, int32_t axis)
{
    PluginCall call{"ScatterElements", version, {}};
    call.fields.add("reduction", reduction).add("axis", axis);
    return call;
}

// data [3, 4]; indices [3, 3] along axis 1 (as -1 for the last axis), with repeats in rows 0 and 1 and negatives.
std::vector<float> const kData{1.5F, -2.F, 3.F, 0.5F, 4.F, -1.F, 2.5F, -3.F, 0.25F, 6.F, -0.5F, 1.F};
std::vector<int64_t> const kIndices{1, -1, 1, 0, 0, 2, 3, 2, -4};
std::vector<float> const kUpdates{2.F, -3.F, 0.5F, -1.5F, 4.F, 2.F, 5.F, -2.F, 3.F};

struct TorchCase
{
    char const* reduction;
    std::vector<float> expected; // torch: data.scatter_reduce(1, indices % 4, updates, reduce, include_self=True)
};

std::vector<TorchCase> const kTorchCases{
    {"add", {1.5F, 0.5F, 3.F, -2.5F, 6.5F, -1.F, 4.5F, -3.F, 3.25F, 6.F, -2.5F, 6.F}}, // "sum"
    {"mul", {1.5F, -2.F, 3.F, -1.5F, -24.F, -1.F, 5.F, -3.F, 0.75F, 6.F, 1.F, 5.F}},   // "prod"
    {"max", {1.5F, 2.F, 3.F, 0.5F, 4.F, -1.F, 2.5F, -3.F, 3.F, 6.F, -0.5F, 5.F}},      // "amax"
    {"min", {1.5F, -2.F, 3.F, -3.F, -1.5F, -1.F, 2.F, -3.F, 0.25F, 6.F, -2.F, 1.F}}};  // "amin"

class ScatterElementsVersions : public ::testing::TestWithParam<char const*>
{
};

TEST_P(ScatterElementsVersions, ReductionsMatchTorchScatterReduce)
{
    for (TorchCase const& c : kTorchCases)
    {
        for (DataType indexType : {DataType::kINT64, DataType::kINT32})
        {
            PluginCall call = scatterElements(GetParam(), c.reduction, -1);
            std::vector<HostTensor> const out = runPlugin(kiln::Backend::kCPU, call,
                {fromFloats({3, 4}, kData), fromInts({3, 3}, kIndices, indexType), fromFloats({3, 3}, kUpdates)});
            ASSERT_EQ(out.size(), 1U) << c.reduction;
            EXPECT_EQ(out[0].shape, (Shape{3, 4}));
            expectClose(out[0].floats(), c.expected, 1e-6F, c.reduction);
        }
    }
}

TEST_P(ScatterElementsVersions, NoneReplacesAlongAxisZeroWithSmallerIndicesAsTorchScatter)
{
    PluginCall call = scatterElements(GetParam(), "none", 0);
    std::vector<HostTensor> const out = runPlugin(kiln::Backend::kCPU, call,
        {fromFloats({3, 4}, kData), fromInts({2, 3}, {2, 0, 1, 0, -1, 2}, DataType::kINT64),
            fromFloats({2, 3}, {9.F, 8.F, 7.F, 6.F, 5.F, 4.F})});
    ASSERT_EQ(out.size(), 1U);
    // torch: data.scatter(0, indices % 3, updates)
    expectClose(out[0].floats(), {6.F, 8.F, 3.F, 0.5F, 4.F, -1.F, 7.F, -3.F, 9.F, 5.F, 4.F, 1.F}, 0.F);
}

TEST_P(ScatterElementsVersions, Int32DataAddsAndMultipliesAsTorch)
{
    std::vector<std::pair<char const*, std::vector<int64_t>>> const cases{
        {"add", {2, -4, 5, 7, 1, 7}}, {"mul", {-18, -4, 5, 7, 1, -40}}};
    for (auto const& [reduction, expected] : cases)
    {
        PluginCall call = scatterElements(GetParam(), reduction, 1);
        std::vector<HostTensor> const out = runPlugin(kiln::Backend::kCPU, call,
            {fromInts({2, 3}, {3, -4, 5, 7, 1, -2}, DataType::kINT32), fromInts({2, 2}, {0, 0, 2, 2}, DataType::kINT64),
                fromInts({2, 2}, {2, -3, 4, 5}, DataType::kINT32)});
        ASSERT_EQ(out.size(), 1U);
        EXPECT_EQ(out[0].type, DataType::kINT32);
        EXPECT_EQ(out[0].ints(), expected) << reduction;
    }
}

TEST_P(ScatterElementsVersions, Fp16AddsInFloatAndMaxLetsNanWin)
{
    PluginCall add = scatterElements(GetParam(), "add", 0);
    std::vector<HostTensor> const sum = runPlugin(kiln::Backend::kCPU, add,
        {fromFloats({2}, {1.F, 2.F}, DataType::kHALF), fromInts({3}, {1, 1, 0}, DataType::kINT64),
            fromFloats({3}, {0.5F, 0.25F, -3.F}, DataType::kHALF)},
        true);
    ASSERT_EQ(sum.size(), 1U);
    expectClose(sum[0].floats(), {-2.F, 2.75F}, 0.F);

    float const nan = std::numeric_limits<float>::quiet_NaN();
    PluginCall max = scatterElements(GetParam(), "max", 0);
    std::vector<HostTensor> const best = runPlugin(kiln::Backend::kCPU, max,
        {fromFloats({3}, {1.F, nan, 2.F}), fromInts({3}, {0, 1, 2}, DataType::kINT64),
            fromFloats({3}, {nan, 5.F, 1.F})});
    ASSERT_EQ(best.size(), 1U);
    expectClose(best[0].floats(), {nan, nan, 2.F}, 0.F);
}

TEST_P(ScatterElementsVersions, AnIndexOutOfRangeIsAnErrorOnTheCpu)
{
    PluginCall call = scatterElements(GetParam(), "add", 1);
    std::string errors;
    std::vector<HostTensor> const out = runPlugin(kiln::Backend::kCPU, call,
        {fromFloats({2, 3}, std::vector<float>(6, 0.F)), fromInts({2, 1}, {2, -4}, DataType::kINT64),
            fromFloats({2, 1}, {1.F, 1.F})},
        false, &errors);
    EXPECT_TRUE(out.empty());
    EXPECT_NE(errors.find("ScatterElements: indices[1] (linear position) is -4, outside [-3, 3) along axis 1"),
        std::string::npos)
        << errors;
}

TEST_P(ScatterElementsVersions, AnAxisOutsideTheRankFailsTheBuildNamingTheField)
{
    PluginCall call = scatterElements(GetParam(), "add", 2);
    std::string errors;
    EXPECT_TRUE(runPlugin(kiln::Backend::kCPU, call,
        {fromFloats({3, 4}, kData), fromInts({3, 3}, kIndices, DataType::kINT64), fromFloats({3, 3}, kUpdates)}, false,
        &errors)
                    .empty());
    EXPECT_NE(errors.find("ScatterElements: field 'axis' is 2; expected [-2, 1] for data of rank 2"), std::string::npos)
        << errors;
}

TEST_P(ScatterElementsVersions, UpdatesNotShapedAsIndicesFailTheBuild)
{
    PluginCall call = scatterElements(GetParam(), "add", 1);
    std::string errors;
    EXPECT_TRUE(runPlugin(kiln::Backend::kCPU, call,
        {fromFloats({3, 4}, kData), fromInts({3, 3}, kIndices, DataType::kINT64),
            fromFloats({3, 2}, std::vector<float>(6, 1.F))},
        false, &errors)
                    .empty());
    EXPECT_NE(errors.find("ScatterElements: size 1 does not fit"), std::string::npos) << errors;
}

TEST_P(ScatterElementsVersions, CudaMatchesTheCpu)
{
    SKIP_WITHOUT_GPU();
    // data [40, 300], indices [40, 1000] along axis 1: every element takes several updates. Integer sums, products
    // of small values, max and min are exact whatever the order; FP32 and FP16 sums compare within rounding.
    std::vector<int64_t> indices(40 * 1000);
    std::vector<float> updates(indices.size());
    for (size_t i = 0; i < indices.size(); ++i)
    {
        indices[i] = static_cast<int64_t>(i * 7919 % 600) - 300;
        updates[i] = static_cast<float>(static_cast<int64_t>(i * 31 % 17) - 8) / 8.F;
    }
    std::vector<float> data(40 * 300);
    for (size_t i = 0; i < data.size(); ++i)
    {
        data[i] = static_cast<float>(static_cast<int64_t>(i * 13 % 29) - 14) / 4.F;
    }
    for (char const* reduction : {"add", "max", "min", "mul"})
    {
        for (DataType type : {DataType::kFLOAT, DataType::kHALF, DataType::kINT32, DataType::kINT64})
        {
            bool const integers = type == DataType::kINT32 || type == DataType::kINT64;
            auto const tensor = [&](Shape shape, std::vector<float> const& values) {
                if (!integers)
                {
                    return fromFloats(std::move(shape), values, type);
                }
                std::vector<int64_t> whole;
                for (float v : values)
                {
                    whole.push_back(static_cast<int64_t>(v * 8.F) % 3); // products stay within range
                }
                return fromInts(std::move(shape), whole, type);
            };
            // products of a thousand FP values overflow or vanish; test mul on a short axis instead
            bool const mul = std::string(reduction) == "mul";
            Shape const indexShape = mul ? Shape{40, 4} : Shape{40, 1000};
            size_t const count = mul ? 160 : indices.size();
            std::vector<int64_t> const someIndices(indices.begin(), indices.begin() + static_cast<int64_t>(count));
            std::vector<float> const someUpdates(updates.begin(), updates.begin() + static_cast<int64_t>(count));
            PluginCall call = scatterElements(GetParam(), reduction, 1);
            std::vector<HostTensor> const in{tensor({40, 300}, data),
                fromInts(indexShape, someIndices, DataType::kINT64), tensor(indexShape, someUpdates)};
            bool const half = type == DataType::kHALF;
            std::vector<HostTensor> const cpu = runPlugin(kiln::Backend::kCPU, call, in, half);
            std::vector<HostTensor> const cuda = runPlugin(kiln::Backend::kCUDA, call, in, half);
            ASSERT_EQ(cuda.size(), 1U);
            expectClose(cuda[0], cpu[0], half ? Tolerance{2e-2, 1e-2} : Tolerance{1e-4, 1e-5},
                std::string(reduction) + " " + std::to_string(static_cast<int32_t>(type)));
        }
    }
}

INSTANTIATE_TEST_SUITE_P(ScatterElementsPlugin, ScatterElementsVersions, ::testing::Values("1", "2"),
    [](::testing::TestParamInfo<char const*> const& testInfo) { return std::string("Version") + testInfo.param; });

TEST(ScatterElementsPlugin, BadFieldsAreErrorsNamingPluginFieldAndValue)
{
    for (char const* version : {"1", "2"})
    {
        PluginCall missing{"ScatterElements", version, {}};
        missing.fields.add("axis", 0);
        EXPECT_NE(creationErrors(missing).find("ScatterElements: the required field 'reduction' is missing"),
            std::string::npos);
        PluginCall unknown = scatterElements(version, "mean", 0);
        EXPECT_NE(creationErrors(unknown).find("ScatterElements: field 'reduction' is \"mean\"; expected \"add\""),
            std::string::npos);
        PluginCall wrongType{"ScatterElements", version, {}};
        wrongType.fields.add("reduction", 1);
        EXPECT_NE(creationErrors(wrongType).find("field 'reduction' holds kINT32 data; expected text (kCHAR)"),
            std::string::npos);
        PluginCall axisType{"ScatterElements", version, {}};
        axisType.fields.add("reduction", std::string("add")).add("axis", 0.5F);
        EXPECT_NE(
            creationErrors(axisType).find("field 'axis' holds kFLOAT32 data; expected integers"), std::string::npos);
    }
}

} // namespace
} // namespace kiln::test
