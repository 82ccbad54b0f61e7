#include "backend/cpu/kernels/tensor/gather.h"

#include "tensor_test_utils.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace kiln::cpu
{
namespace
{

using nvinfer1::GatherMode;
using nvinfer1::DataType;
using test::Tensor;

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

template <typename T, typename I>
std::vector<T> run(
    Tensor<T> const& data, Tensor<I> const& indices, network::GatherParams const& params, Shape const& expectedShape)
{
    Shape const shape = gatherOutputShape(data.shape, indices.shape, params);
    EXPECT_EQ(shape, expectedShape);
    auto out = Tensor<T>::zeros(shape);
    gather(data.cview(), indices.cview(), out.view(), params);
    return out.values;
}

TEST(Gather, DefaultModeWithNegativeIndices)
{
    Tensor<float> const data({3, 2}, {1, 2, 3, 4, 5, 6});
    Tensor<int32_t> const rows({2, 2}, {0, -1, 1, 2});
    EXPECT_EQ(run(data, rows, defaultGather(0), {2, 2, 2}), (std::vector<float>{1, 2, 5, 6, 3, 4, 5, 6}));
    Tensor<int64_t> const columns({2}, {1, -2});
    EXPECT_EQ(run(data, columns, defaultGather(1), {3, 2}), (std::vector<float>{2, 1, 4, 3, 6, 5}));
    Tensor<int64_t> const scalar({}, {1});
    EXPECT_EQ(run(data, scalar, defaultGather(0), {2}), (std::vector<float>{3, 4}));
}

TEST(Gather, DefaultModeWithOneElementWiseDim)
{
    // Row b of the output gathers from row b of the data with row b of the indices.
    Tensor<int64_t> const data({2, 3}, {1, 2, 3, 4, 5, 6});
    Tensor<int32_t> const indices({2, 2}, {2, 0, -1, 1});
    EXPECT_EQ(run(data, indices, defaultGather(1, 1), {2, 2}), (std::vector<int64_t>{3, 1, 6, 5}));
}

TEST(Gather, ElementMode)
{
    Tensor<float> const data({2, 2}, {1, 2, 3, 4});
    Tensor<int64_t> const indices({2, 2}, {0, 0, 1, 0});
    EXPECT_EQ(run(data, indices, elementGather(1), {2, 2}), (std::vector<float>{1, 1, 4, 3}));
    Tensor<int32_t> const negative({2, 2}, {-1, 0, 1, -2});
    EXPECT_EQ(run(data, negative, elementGather(1), {2, 2}), (std::vector<float>{2, 1, 4, 3}));
    Tensor<int8_t> const bytes({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
    Tensor<int32_t> const rows({2, 3}, {1, 2, 0, 2, 0, 0});
    EXPECT_EQ(run(bytes, rows, elementGather(0), {2, 3}), (std::vector<int8_t>{4, 8, 3, 7, 2, 3}));
}

TEST(Gather, NdMode)
{
    Tensor<int32_t> const data({2, 2}, {0, 1, 2, 3});
    Tensor<int64_t> const points({2, 2}, {0, 0, 1, 1});
    EXPECT_EQ(run(data, points, ndGather(0), {2}), (std::vector<int32_t>{0, 3}));
    Tensor<int64_t> const rows({2, 1}, {1, 0});
    EXPECT_EQ(run(data, rows, ndGather(0), {2, 2}), (std::vector<int32_t>{2, 3, 0, 1}));
    Tensor<int32_t> const negative({1, 2}, {-1, -1});
    EXPECT_EQ(run(data, negative, ndGather(0), {1}), (std::vector<int32_t>{3}));
    // One batch dim: batch b picks row indices[b] of data[b].
    Tensor<float> const cube({2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
    EXPECT_EQ(run(cube, rows, ndGather(1), {2, 2}), (std::vector<float>{2, 3, 4, 5}));
}

TEST(Gather, OutOfRangeIndicesAreErrors)
{
    Tensor<float> const data({3}, {1, 2, 3});
    auto out = Tensor<float>::zeros({1});
    for (int64_t bad : {3, -4})
    {
        Tensor<int64_t> const indices({1}, {bad});
        EXPECT_THROW(gather(data.cview(), indices.cview(), out.view(), defaultGather(0)), std::invalid_argument);
        EXPECT_THROW(gather(data.cview(), indices.cview(), out.view(), elementGather(0)),
            std::invalid_argument);
    }
    Tensor<float> const wrongType({1}, {0});
    EXPECT_THROW(gather(data.cview(), wrongType.cview(), out.view(), defaultGather(0)), std::invalid_argument);
    EXPECT_THROW(gatherOutputShape({2, 2}, {2, 3}, ndGather(0)), std::invalid_argument);
}

TEST(Gather, EmptyIndicesGiveEmptyOutput)
{
    Tensor<float> const data({3, 2}, {1, 2, 3, 4, 5, 6});
    ConstTensorView const indices(DataType::kINT32, {0}, nullptr);
    EXPECT_EQ(gatherOutputShape(data.shape, indices.shape, defaultGather(0)), (Shape{0, 2}));
    gather(data.cview(), indices, test::emptyView({0, 2}), defaultGather(0));
}

} // namespace
} // namespace kiln::cpu
