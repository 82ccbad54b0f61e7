// TopkLastDim against torch.topk (values printed by PyTorch on the CPU, pasted here), against a stable sort
// written below (k = 10,000) and hand-ranked NaNs; with a GPU, CUDA against the CPU on every route of the shared
// radix top-k (device_common/radix_top_k.cuh).
#include "expect_close.h"
#include "plugin_harness.h"

#include <algorithm>
#include <limits>
#include <numeric>

namespace kiln::test
{
namespace
{

using nvinfer1::DataType;

PluginCall topk(DataType type, int32_t k, int32_t isLargest, int32_t axis = -1)
{
    PluginCall call{"TopkLastDim", "1", {}};
    call.fields.add("type_id", static_cast<int32_t>(type)).add("k", k).add("is_largest", isLargest);
    call.fields.add("axis", axis);
    return call;
}

std::vector<float> const kInput{0.5F, -1.25F, 3.F, 2.5F, -0.75F, 1.F, 4.F, -2.F, 0.25F, -3.5F, 1.5F, 2.F};

TEST(TopkLastDimPlugin, MatchesTorchTopkLargestAndSmallest)
{
    PluginCall largest = topk(DataType::kFLOAT, 3, 1);
    std::vector<HostTensor> out = runPlugin(kiln::Backend::kCPU, largest, {fromFloats({2, 6}, kInput)});
    ASSERT_EQ(out.size(), 2U);
    EXPECT_EQ(out[0].shape, (Shape{2, 3}));
    expectClose(out[0].floats(), {3.F, 2.5F, 1.F, 4.F, 2.F, 1.5F}, 0.F);
    EXPECT_EQ(out[1].ints(), (std::vector<int64_t>{2, 3, 5, 0, 5, 4}));

    PluginCall smallest = topk(DataType::kFLOAT, 2, 0);
    out = runPlugin(kiln::Backend::kCPU, smallest, {fromFloats({2, 6}, kInput)});
    ASSERT_EQ(out.size(), 2U);
    expectClose(out[0].floats(), {-1.25F, -0.75F, -3.5F, -2.F}, 0.F);
    EXPECT_EQ(out[1].ints(), (std::vector<int64_t>{1, 4, 3, 1}));
}

TEST(TopkLastDimPlugin, WorksAlongAnotherAxis)
{
    // torch.topk(x, 1, dim=0)
    PluginCall call = topk(DataType::kFLOAT, 1, 1, 0);
    std::vector<HostTensor> const out = runPlugin(kiln::Backend::kCPU, call, {fromFloats({2, 6}, kInput)});
    ASSERT_EQ(out.size(), 2U);
    EXPECT_EQ(out[0].shape, (Shape{1, 6}));
    expectClose(out[0].floats(), {4.F, -1.25F, 3.F, 2.5F, 1.5F, 2.F}, 0.F);
    EXPECT_EQ(out[1].ints(), (std::vector<int64_t>{1, 0, 0, 0, 1, 1}));
}

TEST(TopkLastDimPlugin, EqualValuesKeepTheLowerIndexFirst)
{
    PluginCall call = topk(DataType::kINT32, 4, 1);
    std::vector<HostTensor> const out
        = runPlugin(kiln::Backend::kCPU, call, {fromInts({6}, {7, 9, 7, -2, 9, 7}, DataType::kINT32)});
    ASSERT_EQ(out.size(), 2U);
    EXPECT_EQ(out[0].type, DataType::kINT32);
    EXPECT_EQ(out[0].ints(), (std::vector<int64_t>{9, 9, 7, 7}));
    EXPECT_EQ(out[1].ints(), (std::vector<int64_t>{1, 4, 0, 2}));
}

TEST(TopkLastDimPlugin, RunsInFp16)
{
    PluginCall call = topk(DataType::kHALF, 3, 1);
    std::vector<HostTensor> const out
        = runPlugin(kiln::Backend::kCPU, call, {fromFloats({2, 6}, kInput, DataType::kHALF)}, true);
    ASSERT_EQ(out.size(), 2U);
    EXPECT_EQ(out[0].type, DataType::kHALF);
    expectClose(out[0].floats(), {3.F, 2.5F, 1.F, 4.F, 2.F, 1.5F}, 0.F);
    EXPECT_EQ(out[1].ints(), (std::vector<int64_t>{2, 3, 5, 0, 5, 4}));
}

std::vector<float> manyValues(size_t count)
{
    std::vector<float> values(count);
    uint32_t state = 3U;
    for (float& v : values)
    {
        state = state * 1664525U + 1013904223U;
        v = static_cast<float>(state >> 20) / 64.F - 32.F; // 4096 distinct values: plenty of ties
    }
    return values;
}

TEST(TopkLastDimPlugin, HandlesKOf10000AgainstAStableSort)
{
    int32_t constexpr kRows = 2, kLength = 12'000, kK = 10'000;
    std::vector<float> const values = manyValues(kRows * kLength);
    PluginCall call = topk(DataType::kFLOAT, kK, 1);
    std::vector<HostTensor> const out = runPlugin(kiln::Backend::kCPU, call, {fromFloats({kRows, kLength}, values)});
    ASSERT_EQ(out.size(), 2U);
    std::vector<float> const outValues = out[0].floats();
    std::vector<int64_t> const outIndices = out[1].ints();
    for (int32_t row = 0; row < kRows; ++row)
    {
        std::vector<int32_t> order(kLength);
        std::iota(order.begin(), order.end(), 0);
        float const* rowValues = values.data() + row * kLength;
        std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) { return rowValues[a] > rowValues[b]; });
        for (int32_t rank = 0; rank < kK; ++rank)
        {
            ASSERT_EQ(outIndices[row * kK + rank], order[rank]) << "row " << row << " rank " << rank;
            ASSERT_EQ(outValues[row * kK + rank], rowValues[order[rank]]);
        }
    }
}

TEST(TopkLastDimPlugin, EveryNanRanksAboveInfinity)
{
    // A negative NaN too: its bits alone would put it below -inf. NaNs are equal: lower index first.
    float const nan = std::numeric_limits<float>::quiet_NaN();
    float const inf = std::numeric_limits<float>::infinity();
    std::vector<float> const input{1.F, -nan, inf, nan, -inf, -0.F, 0.F};
    PluginCall largest = topk(DataType::kFLOAT, 7, 1);
    std::vector<HostTensor> out = runPlugin(kiln::Backend::kCPU, largest, {fromFloats({7}, input)});
    ASSERT_EQ(out.size(), 2U);
    EXPECT_EQ(out[1].ints(), (std::vector<int64_t>{1, 3, 2, 0, 5, 6, 4})); // -0 equals +0: index order
    PluginCall smallest = topk(DataType::kFLOAT, 3, 0);
    out = runPlugin(kiln::Backend::kCPU, smallest, {fromFloats({7}, input)});
    ASSERT_EQ(out.size(), 2U);
    EXPECT_EQ(out[1].ints(), (std::vector<int64_t>{4, 5, 6}));
}

//! manyValues with NaNs of both signs, infinities and both zeros mixed in.
std::vector<float> specialValues(size_t count)
{
    std::vector<float> values = manyValues(count);
    float const nan = std::numeric_limits<float>::quiet_NaN();
    float const inf = std::numeric_limits<float>::infinity();
    float const special[] = {nan, -nan, inf, -inf, 0.F, -0.F};
    for (size_t i = 0; i < count; i += 37)
    {
        values[i] = special[(i / 37) % 6];
    }
    return values;
}

void expectCudaMatchesCpu(PluginCall& call, HostTensor const& input, std::string const& what)
{
    bool const half = input.type == DataType::kHALF || input.type == DataType::kBF16;
    std::vector<HostTensor> const cpu = runPlugin(kiln::Backend::kCPU, call, {input}, half);
    std::vector<HostTensor> const cuda = runPlugin(kiln::Backend::kCUDA, call, {input}, half);
    ASSERT_EQ(cpu.size(), 2U) << what;
    ASSERT_EQ(cuda.size(), 2U) << what;
    // Bit for bit: the values are copied, and NaNs must sit where the CPU put them.
    EXPECT_EQ(cuda[0].bytes, cpu[0].bytes) << what;
    EXPECT_EQ(cuda[1].ints(), cpu[1].ints()) << what;
}

// Each shape goes down one route of radix_top_k.cuh: the comment says which.
TEST(TopkLastDimPlugin, CudaMatchesTheCpu)
{
    SKIP_WITHOUT_GPU();
    struct Case
    {
        Shape shape;
        int32_t k;
        int32_t axis;
        char const* route;
    };
    Case const cases[] = {
        {{3, 12'000}, 10'000, -1, "whole rows, CUB segmented sort"},
        {{1, 100'000}, 10'000, -1, "selection in slices, CUB sort of the kept"},
        {{1, 100'000}, 1, -1, "few picks over a long row"},
        {{1, 100'000}, 100'000, -1, "whole row, k = length, CUB sort of one row"},
        {{4, 32'000}, 50, -1, "selection in slices, block sort"},
        {{2, 20'000}, 3'000, -1, "selection in slices, the largest block sort"},
        {{3000, 100}, 20, -1, "many short rows, a block each"},
        {{3000, 40}, 1, -1, "many short rows, few picks"},
        {{200, 5000}, 300, -1, "many rows, a block each, block sort"},
        {{130, 20'000}, 5'000, -1, "many rows, a block each, CUB segmented sort of the kept"},
        {{50, 1000}, 1000, -1, "k = length, block sort of whole rows"},
        {{12, 3000}, 5, 0, "another axis, few picks"},
        {{20'000, 3}, 5'000, 0, "another axis, selection in slices"},
        {{1}, 1, -1, "one element"},
    };
    for (Case const& c : cases)
    {
        int64_t count = 1;
        for (int64_t d : c.shape)
        {
            count *= d;
        }
        std::vector<float> const values = specialValues(static_cast<size_t>(count));
        for (DataType const type : {DataType::kFLOAT, DataType::kHALF})
        {
            for (int32_t largest : {1, 0})
            {
                std::string const what = std::string(c.route) + (largest == 1 ? ", largest" : ", smallest")
                    + (type == DataType::kHALF ? ", FP16" : ", FP32");
                PluginCall call = topk(type, c.k, largest, c.axis);
                expectCudaMatchesCpu(call, fromFloats(c.shape, values, type), what);
            }
        }
    }
    // BF16 and INT32 on one selection and one whole-row sort each.
    std::vector<float> const values = specialValues(3 * 12'000);
    std::vector<int64_t> ints(values.size());
    for (size_t i = 0; i < ints.size(); ++i)
    {
        ints[i] = static_cast<int64_t>(i * 7919 % 1001) - 500; // many ties
    }
    for (int32_t k : {100, 10'000})
    {
        for (int32_t largest : {1, 0})
        {
            PluginCall bf16 = topk(DataType::kBF16, k, largest);
            std::string const what = " k " + std::to_string(k) + (largest == 1 ? ", largest" : ", smallest");
            expectCudaMatchesCpu(bf16, fromFloats({3, 12'000}, values, DataType::kBF16), "BF16" + what);
            PluginCall int32 = topk(DataType::kINT32, k, largest);
            expectCudaMatchesCpu(int32, fromInts({3, 12'000}, ints, DataType::kINT32), "INT32" + what);
        }
    }
}

TEST(TopkLastDimPlugin, BadFieldsAreErrorsNamingPluginFieldAndValue)
{
    PluginCall missing{"TopkLastDim", "1", {}};
    missing.fields.add("type_id", 0).add("is_largest", 1);
    EXPECT_NE(creationErrors(missing).find("TopkLastDim: the required field 'k' is missing"), std::string::npos);

    PluginCall type = topk(static_cast<DataType>(5), 3, 1);
    EXPECT_NE(creationErrors(type).find("TopkLastDim: field 'type_id' is 5"), std::string::npos);

    PluginCall k = topk(DataType::kFLOAT, 0, 1);
    EXPECT_NE(creationErrors(k).find("field 'k' is 0; expected > 0"), std::string::npos);

    PluginCall wrongType{"TopkLastDim", "1", {}};
    wrongType.fields.add("type_id", 0).add("k", 2.F).add("is_largest", 1);
    EXPECT_NE(creationErrors(wrongType).find("field 'k' holds kFLOAT32 data; expected integers"), std::string::npos);
}

TEST(TopkLastDimPlugin, KLargerThanTheAxisIsABuildError)
{
    PluginCall call = topk(DataType::kFLOAT, 7, 1);
    std::string errors;
    std::vector<HostTensor> const out
        = runPlugin(kiln::Backend::kCPU, call, {fromFloats({2, 6}, kInput)}, false, &errors);
    EXPECT_TRUE(out.empty());
    EXPECT_NE(errors.find("TopkLastDim: k (7) exceeds the length 6 of axis 1"), std::string::npos) << errors;
}

} // namespace
} // namespace kiln::test
