// ScatterND against ONNX's documented example and a plain loop written here, on the CPU; on CUDA against the CPU.
#include "expect_close.h"
#include "plugin_harness.h"

namespace kiln::test
{
namespace
{

using nvinfer1::DataType;

PluginCall scatterNd()
{
    return PluginCall{"ScatterND", "1", {}};
}

std::vector<float> ramp(size_t count, float scale)
{
    std::vector<float> values(count);
    for (size_t i = 0; i < count; ++i)
    {
        values[i] = static_cast<float>(static_cast<int64_t>(i * 37 % 101) - 50) * scale;
    }
    return values;
}

//! The most direct reading of ONNX ScatterND: data [3, 4, 5], indices [..., 2], slices of 5 elements.
std::vector<float> scatterByLoop(
    std::vector<float> data, std::vector<int64_t> const& indices, std::vector<float> const& updates)
{
    for (size_t tuple = 0; tuple < indices.size() / 2; ++tuple)
    {
        int64_t i0 = indices[2 * tuple];
        int64_t i1 = indices[2 * tuple + 1];
        i0 += i0 < 0 ? 3 : 0;
        i1 += i1 < 0 ? 4 : 0;
        for (int64_t j = 0; j < 5; ++j)
        {
            data[static_cast<size_t>((i0 * 4 + i1) * 5 + j)] = updates[tuple * 5 + static_cast<size_t>(j)];
        }
    }
    return data;
}

TEST(ScatterNdPlugin, WritesSingleElementsAsOnnxsFirstExample)
{
    PluginCall call = scatterNd();
    std::vector<HostTensor> const out = runPlugin(kiln::Backend::kCPU, call,
        {fromFloats({8}, {1, 2, 3, 4, 5, 6, 7, 8}), fromInts({4, 1}, {4, 3, 1, 7}, DataType::kINT32),
            fromFloats({4}, {9, 10, 11, 12})});
    ASSERT_EQ(out.size(), 1U);
    expectClose(out[0].floats(), {1, 11, 3, 10, 9, 6, 7, 12}, 0.F);
}

TEST(ScatterNdPlugin, WritesSlicesWithNegativeIndicesAsAPlainLoop)
{
    std::vector<float> const data = ramp(60, 0.25F);
    std::vector<float> const updates = ramp(20, -1.5F);
    std::vector<int64_t> const indices{0, 1, 2, -1, -1, 0, 1, 2}; // indices [2, 2, 2]: four tuples of depth 2
    for (DataType indexType : {DataType::kINT32, DataType::kINT64})
    {
        PluginCall call = scatterNd();
        std::vector<HostTensor> const out = runPlugin(kiln::Backend::kCPU, call,
            {fromFloats({3, 4, 5}, data), fromInts({2, 2, 2}, indices, indexType), fromFloats({2, 2, 5}, updates)});
        ASSERT_EQ(out.size(), 1U);
        EXPECT_EQ(out[0].shape, (Shape{3, 4, 5}));
        expectClose(out[0].floats(), scatterByLoop(data, indices, updates), 0.F);
    }
}

TEST(ScatterNdPlugin, CopiesFp16AndInt32ElementsExactly)
{
    PluginCall call = scatterNd();
    std::vector<HostTensor> const half = runPlugin(kiln::Backend::kCPU, call,
        {fromFloats({2, 3}, {0.5F, 1.5F, -2.F, 3.25F, 4.F, -5.5F}, DataType::kHALF),
            fromInts({1, 1}, {1}, DataType::kINT32), fromFloats({1, 3}, {7.F, -8.F, 0.125F}, DataType::kHALF)},
        true);
    ASSERT_EQ(half.size(), 1U);
    EXPECT_EQ(half[0].type, DataType::kHALF);
    expectClose(half[0].floats(), {0.5F, 1.5F, -2.F, 7.F, -8.F, 0.125F}, 0.F);

    PluginCall intCall = scatterNd();
    std::vector<HostTensor> const ints = runPlugin(kiln::Backend::kCPU, intCall,
        {fromInts({2, 2}, {1, 2, 3, 4}, DataType::kINT32), fromInts({2, 2}, {1, 0, 0, 1}, DataType::kINT32),
            fromInts({2}, {-7, 2147483647}, DataType::kINT32)});
    ASSERT_EQ(ints.size(), 1U);
    EXPECT_EQ(ints[0].ints(), (std::vector<int64_t>{1, 2147483647, -7, 4}));
}

TEST(ScatterNdPlugin, AnIndexOutOfRangeIsAnErrorOnTheCpu)
{
    PluginCall call = scatterNd();
    std::string errors;
    std::vector<HostTensor> const out = runPlugin(kiln::Backend::kCPU, call,
        {fromFloats({3, 2}, std::vector<float>(6, 0.F)), fromInts({2, 1}, {1, 3}, DataType::kINT32),
            fromFloats({2, 2}, std::vector<float>(4, 1.F))},
        false, &errors);
    EXPECT_TRUE(out.empty());
    EXPECT_NE(errors.find("ScatterND: index 3 (tuple 1, position 0) is outside [-3, 3)"), std::string::npos) << errors;
}

TEST(ScatterNdPlugin, UpdatesOfTheWrongShapeFailTheBuild)
{
    PluginCall call = scatterNd();
    std::string errors;
    std::vector<HostTensor> const out = runPlugin(kiln::Backend::kCPU, call,
        {fromFloats({3, 2}, std::vector<float>(6, 0.F)), fromInts({2, 1}, {1, 2}, DataType::kINT32),
            fromFloats({2, 3}, std::vector<float>(6, 1.F))},
        false, &errors);
    EXPECT_TRUE(out.empty());
    EXPECT_NE(errors.find("ScatterND: updates' size 1 differs"), std::string::npos) << errors;
}

TEST(ScatterNdPlugin, CudaMatchesTheCpu)
{
    SKIP_WITHOUT_GPU();
    // data [64, 50, 33], 1500 distinct tuples of depth 2 (a permutation, so no two write one slice).
    std::vector<int64_t> indices;
    for (int64_t t = 0; t < 1500; ++t)
    {
        int64_t const cell = t * 1109 % 3200;
        indices.insert(indices.end(), {cell / 50, cell % 50 - (t % 3 == 0 ? 50 : 0)});
    }
    std::vector<float> const data = ramp(64 * 50 * 33, 0.125F);
    std::vector<float> const updates = ramp(1500 * 33, -0.5F);
    for (DataType type : {DataType::kFLOAT, DataType::kHALF, DataType::kINT32})
    {
        auto const tensor = [type](Shape shape, std::vector<float> const& values) {
            if (type != DataType::kINT32)
            {
                return fromFloats(std::move(shape), values, type);
            }
            return fromInts(std::move(shape), std::vector<int64_t>(values.begin(), values.end()), type);
        };
        PluginCall call = scatterNd();
        std::vector<HostTensor> const in{tensor({64, 50, 33}, data), fromInts({30, 50, 2}, indices, DataType::kINT32),
            tensor({30, 50, 33}, updates)};
        std::vector<HostTensor> const cpu = runPlugin(kiln::Backend::kCPU, call, in, type == DataType::kHALF);
        std::vector<HostTensor> const cuda = runPlugin(kiln::Backend::kCUDA, call, in, type == DataType::kHALF);
        ASSERT_EQ(cuda.size(), 1U);
        expectClose(cuda[0], cpu[0], 0.0);
    }
}

// The gather path of the CUDA kernels (slices of whole 16-byte vectors, at least 8 of them, into a new output):
// data [16, 40, 64], 300 distinct tuples of depth 2 with negative indices among them, INT32 and INT64 indices; FP32
// and INT32 slices of 16 vectors, FP16 slices of 8.
TEST(ScatterNdPlugin, CudaGathersWholeSlicesAsTheCpuScatters)
{
    SKIP_WITHOUT_GPU();
    std::vector<int64_t> indices;
    for (int64_t t = 0; t < 300; ++t)
    {
        int64_t const cell = t * 263 % 640;
        indices.insert(indices.end(), {cell / 40 - (t % 5 == 0 ? 16 : 0), cell % 40});
    }
    std::vector<float> const data = ramp(16 * 40 * 64, 0.25F);
    std::vector<float> const updates = ramp(300 * 64, -0.75F);
    for (DataType indexType : {DataType::kINT32, DataType::kINT64})
    {
        for (DataType type : {DataType::kFLOAT, DataType::kHALF, DataType::kINT32})
        {
            auto const tensor = [type](Shape shape, std::vector<float> const& values) {
                if (type != DataType::kINT32)
                {
                    return fromFloats(std::move(shape), values, type);
                }
                return fromInts(std::move(shape), std::vector<int64_t>(values.begin(), values.end()), type);
            };
            std::vector<HostTensor> const in{
                tensor({16, 40, 64}, data), fromInts({3, 100, 2}, indices, indexType), tensor({3, 100, 64}, updates)};
            PluginCall call = scatterNd();
            std::vector<HostTensor> const cpu = runPlugin(kiln::Backend::kCPU, call, in, type == DataType::kHALF);
            std::vector<HostTensor> const cuda = runPlugin(kiln::Backend::kCUDA, call, in, type == DataType::kHALF);
            ASSERT_EQ(cuda.size(), 1U);
            expectClose(cuda[0], cpu[0], 0.0);
        }
    }
}

// ScatterND has no fields, so there is no bad field to test; fields it does not know are ignored, as TensorRT's are.

} // namespace
} // namespace kiln::test
