// TopkLastDim against torch.topk (values printed by PyTorch on the CPU, pasted here) and against a stable sort
// written below (k = 10,000); with a GPU, CUDA against the CPU.
#include "expect_close.h"
#include "plugin_harness.h"

#include <algorithm>
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
    std::vector<HostTensor> const out = runPlugin(
        kiln::Backend::kCPU, call, {fromInts({6}, {7, 9, 7, -2, 9, 7}, DataType::kINT32)});
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
        std::stable_sort(
            order.begin(), order.end(), [&](int32_t a, int32_t b) { return rowValues[a] > rowValues[b]; });
        for (int32_t rank = 0; rank < kK; ++rank)
        {
            ASSERT_EQ(outIndices[row * kK + rank], order[rank]) << "row " << row << " rank " << rank;
            ASSERT_EQ(outValues[row * kK + rank], rowValues[order[rank]]);
        }
    }
}

TEST(TopkLastDimPlugin, CudaMatchesTheCpu)
{
    SKIP_WITHOUT_GPU();
    std::vector<float> const values = manyValues(3 * 12'000);
    for (DataType const type : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16})
    {
        for (int32_t largest : {0, 1})
        {
            PluginCall call = topk(type, 10'000, largest);
            std::vector<HostTensor> const inputs{fromFloats({3, 12'000}, values, type)};
            bool const half = type != DataType::kFLOAT;
            std::vector<HostTensor> const cpu = runPlugin(kiln::Backend::kCPU, call, inputs, half);
            std::vector<HostTensor> const cuda = runPlugin(kiln::Backend::kCUDA, call, inputs, half);
            ASSERT_EQ(cuda.size(), 2U);
            expectClose(cuda[0].floats(), cpu[0].floats(), 0.F);
            EXPECT_EQ(cuda[1].ints(), cpu[1].ints());
        }
    }
    PluginCall axis0 = topk(DataType::kFLOAT, 5, 1, 0);
    std::vector<HostTensor> const inputs{fromFloats({12, 3000}, values)};
    std::vector<HostTensor> const cpu = runPlugin(kiln::Backend::kCPU, axis0, inputs);
    std::vector<HostTensor> const cuda = runPlugin(kiln::Backend::kCUDA, axis0, inputs);
    ASSERT_EQ(cuda.size(), 2U);
    expectClose(cuda[0].floats(), cpu[0].floats(), 0.F);
    EXPECT_EQ(cuda[1].ints(), cpu[1].ints());
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
