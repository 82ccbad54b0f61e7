#include "backend/cpu/kernels/tensor/gather.h"

#include "tensor_test_utils.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace kiln::cpu
{
namespace
{

using kiln::test::fromFloats;
using kiln::test::fromInts;
using kiln::test::HostTensor;
using kiln::test::zeros;
using nvinfer1::DataType;
using nvinfer1::GatherMode;

network::GatherParams gatherParams(GatherMode mode, int32_t gatherAxis, int32_t numElementWiseDims)
{
    network::GatherParams params;
    params.mode = mode;
    params.gatherAxis = gatherAxis;
    params.numElementWiseDims = numElementWiseDims;
    return params;
}

network::GatherParams defaultGather(int32_t gatherAxis, int32_t numElementWiseDims = 0)
{
    return gatherParams(GatherMode::kDEFAULT, gatherAxis, numElementWiseDims);
}

network::GatherParams elementGather(int32_t gatherAxis)
{
    return gatherParams(GatherMode::kELEMENT, gatherAxis, 0);
}

network::GatherParams ndGather(int32_t numElementWiseDims)
{
    return gatherParams(GatherMode::kND, 0, numElementWiseDims);
}

HostTensor run(
    HostTensor const& data, HostTensor const& indices, network::GatherParams const& params, Shape const& expectedShape)
{
    Shape const shape = gatherOutputShape(data.shape, indices.shape, params);
    EXPECT_EQ(shape, expectedShape);
    HostTensor out = zeros(shape, data.type);
    gather(data.constView(), indices.constView(), out.view(), params);
    return out;
}

TEST(Gather, DefaultModeWithNegativeIndices)
{
    HostTensor const data = fromFloats({3, 2}, {1, 2, 3, 4, 5, 6});
    HostTensor const rows = fromInts({2, 2}, {0, -1, 1, 2}, DataType::kINT32);
    EXPECT_EQ(run(data, rows, defaultGather(0), {2, 2, 2}).floats(), (std::vector<float>{1, 2, 5, 6, 3, 4, 5, 6}));
    HostTensor const columns = fromInts({2}, {1, -2}, DataType::kINT64);
    EXPECT_EQ(run(data, columns, defaultGather(1), {3, 2}).floats(), (std::vector<float>{2, 1, 4, 3, 6, 5}));
    HostTensor const scalar = fromInts({}, {1}, DataType::kINT64);
    EXPECT_EQ(run(data, scalar, defaultGather(0), {2}).floats(), (std::vector<float>{3, 4}));
}

TEST(Gather, DefaultModeWithOneElementWiseDim)
{
    // Row b of the output gathers from row b of the data with row b of the indices.
    HostTensor const data = fromInts({2, 3}, {1, 2, 3, 4, 5, 6}, DataType::kINT64);
    HostTensor const indices = fromInts({2, 2}, {2, 0, -1, 1}, DataType::kINT32);
    EXPECT_EQ(run(data, indices, defaultGather(1, 1), {2, 2}).elements<int64_t>(), (std::vector<int64_t>{3, 1, 6, 5}));
}

TEST(Gather, ElementMode)
{
    HostTensor const data = fromFloats({2, 2}, {1, 2, 3, 4});
    HostTensor const indices = fromInts({2, 2}, {0, 0, 1, 0}, DataType::kINT64);
    EXPECT_EQ(run(data, indices, elementGather(1), {2, 2}).floats(), (std::vector<float>{1, 1, 4, 3}));
    HostTensor const negative = fromInts({2, 2}, {-1, 0, 1, -2}, DataType::kINT32);
    EXPECT_EQ(run(data, negative, elementGather(1), {2, 2}).floats(), (std::vector<float>{2, 1, 4, 3}));
    HostTensor const bytes = fromInts({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9}, DataType::kINT8);
    HostTensor const rows = fromInts({2, 3}, {1, 2, 0, 2, 0, 0}, DataType::kINT32);
    EXPECT_EQ(run(bytes, rows, elementGather(0), {2, 3}).elements<int8_t>(), (std::vector<int8_t>{4, 8, 3, 7, 2, 3}));
}

TEST(Gather, NdMode)
{
    HostTensor const data = fromInts({2, 2}, {0, 1, 2, 3}, DataType::kINT32);
    HostTensor const points = fromInts({2, 2}, {0, 0, 1, 1}, DataType::kINT64);
    EXPECT_EQ(run(data, points, ndGather(0), {2}).elements<int32_t>(), (std::vector<int32_t>{0, 3}));
    HostTensor const rows = fromInts({2, 1}, {1, 0}, DataType::kINT64);
    EXPECT_EQ(run(data, rows, ndGather(0), {2, 2}).elements<int32_t>(), (std::vector<int32_t>{2, 3, 0, 1}));
    HostTensor const negative = fromInts({1, 2}, {-1, -1}, DataType::kINT32);
    EXPECT_EQ(run(data, negative, ndGather(0), {1}).elements<int32_t>(), (std::vector<int32_t>{3}));
    // One batch dim: batch b picks row indices[b] of data[b].
    HostTensor const cube = fromFloats({2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
    EXPECT_EQ(run(cube, rows, ndGather(1), {2, 2}).floats(), (std::vector<float>{2, 3, 4, 5}));
}

TEST(Gather, OutOfRangeIndicesAreErrors)
{
    HostTensor const data = fromFloats({3}, {1, 2, 3});
    HostTensor out = zeros({1});
    for (int64_t bad : {3, -4})
    {
        HostTensor const indices = fromInts({1}, {bad}, DataType::kINT64);
        EXPECT_THROW(
            gather(data.constView(), indices.constView(), out.view(), defaultGather(0)), std::invalid_argument);
        EXPECT_THROW(
            gather(data.constView(), indices.constView(), out.view(), elementGather(0)), std::invalid_argument);
    }
    HostTensor const wrongType = fromFloats({1}, {0});
    EXPECT_THROW(gather(data.constView(), wrongType.constView(), out.view(), defaultGather(0)), std::invalid_argument);
    EXPECT_THROW(gatherOutputShape({2, 2}, {2, 3}, ndGather(0)), std::invalid_argument);
}

TEST(Gather, EmptyIndicesGiveEmptyOutput)
{
    HostTensor const data = fromFloats({3, 2}, {1, 2, 3, 4, 5, 6});
    ConstTensorView const indices(DataType::kINT32, {0}, nullptr);
    EXPECT_EQ(gatherOutputShape(data.shape, indices.shape, defaultGather(0)), (Shape{0, 2}));
    gather(data.constView(), indices, test::emptyView({0, 2}), defaultGather(0));
}

} // namespace
} // namespace kiln::cpu
