#include "backend/cpu/kernels/tensor/concatenation.h"

#include "tensor_test_utils.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace kiln::cpu
{
namespace
{

using kiln::test::dataTypeOf;
using kiln::test::fromElements;
using kiln::test::fromFloats;
using kiln::test::HostTensor;
using kiln::test::zeros;
using nvinfer1::DataType;

network::ConcatenationParams alongAxis(int32_t axis)
{
    network::ConcatenationParams params;
    params.axis = axis;
    return params;
}

TEST(Concatenation, InnerAxisWithAnEmptyInput)
{
    HostTensor const a = fromFloats({2, 1}, {1, 2});
    HostTensor const empty = fromFloats({2, 0}, {});
    HostTensor const b = fromFloats({2, 2}, {3, 4, 5, 6});
    std::vector<ConstTensorView> const inputs{a.constView(), empty.constView(), b.constView()};
    std::vector<Shape> const shapes{a.shape, empty.shape, b.shape};
    EXPECT_EQ(concatenationOutputShape(shapes, alongAxis(1)), (Shape{2, 3}));
    EXPECT_EQ(concatenationOutputShape(shapes, alongAxis(-1)), (Shape{2, 3}));
    HostTensor out = zeros({2, 3});
    concatenation(inputs, out.view(), alongAxis(1));
    EXPECT_EQ(out.floats(), (std::vector<float>{1, 3, 4, 2, 5, 6}));
}

TEST(Concatenation, OuterAxisForEveryElementSize)
{
    auto check = [](auto sample) {
        using T = decltype(sample);
        HostTensor const a = fromElements<T>({1, 2}, {1, 2});
        HostTensor const b = fromElements<T>({2, 2}, {3, 4, 5, 6});
        std::vector<ConstTensorView> const inputs{a.constView(), b.constView()};
        HostTensor out = zeros({3, 2}, dataTypeOf<T>());
        concatenation(inputs, out.view(), alongAxis(0));
        EXPECT_EQ(out.elements<T>(), (std::vector<T>{1, 2, 3, 4, 5, 6}));
    };
    check(int8_t{});
    check(uint16_t{});
    check(int32_t{});
    check(int64_t{});
}

TEST(Concatenation, DefaultAxisAndErrors)
{
    EXPECT_EQ(defaultConcatenationAxis(4), 1);
    EXPECT_EQ(defaultConcatenationAxis(2), 0);
    std::vector<Shape> const mismatched{{2, 3}, {3, 3}};
    EXPECT_THROW(concatenationOutputShape(mismatched, alongAxis(1)), std::invalid_argument);
    EXPECT_THROW(concatenationOutputShape(mismatched, alongAxis(2)), std::invalid_argument);
    EXPECT_THROW(concatenationOutputShape(std::vector<Shape>{}, alongAxis(0)), std::invalid_argument);
    // All inputs empty: nothing touched.
    std::vector<ConstTensorView> const empties{ConstTensorView(DataType::kFLOAT, {0, 2}, nullptr)};
    concatenation(empties, test::emptyView({0, 2}), alongAxis(0));
}

} // namespace
} // namespace kiln::cpu
