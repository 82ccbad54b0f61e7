#include "backend/cpu/kernels/nn/softmax.h"
#include "nn_test_utils.h"

#include <gtest/gtest.h>

#include <limits>
#include <stdexcept>

namespace kiln::cpu::test
{
namespace
{

network::SoftMaxParams alongAxes(uint32_t axes)
{
    network::SoftMaxParams params;
    params.axes = axes;
    return params;
}

std::vector<float> softmax(HostTensor const& input, uint32_t axes)
{
    HostTensor output = zeros(input.shape);
    runSoftmax(alongAxes(axes), input.constView(), output.view());
    return output.floats();
}

std::vector<float> const kOneTwoThree{0.0900305732F, 0.2447284711F, 0.6652409558F};

TEST(Softmax, LastAxisByHand)
{
    expectClose(softmax(fromFloats({1, 3}, {1, 2, 3}), 1U << 1), kOneTwoThree, 1e-5F);
    expectClose(softmax(fromFloats({2, 3}, {1, 2, 3, 5, 5, 5}), 1U << 1),
        {kOneTwoThree[0], kOneTwoThree[1], kOneTwoThree[2], 1.0F / 3, 1.0F / 3, 1.0F / 3}, 1e-5F);
}

TEST(Softmax, LargeInputsDoNotOverflow)
{
    expectClose(softmax(fromFloats({3}, {1000, 1001, 1002}), 1U), kOneTwoThree, 1e-5F);
    expectClose(softmax(fromFloats({3}, {-1000, -1001, -1002}), 1U),
        {kOneTwoThree[2], kOneTwoThree[1], kOneTwoThree[0]}, 1e-5F);
    float const inf = std::numeric_limits<float>::infinity();
    expectClose(softmax(fromFloats({2}, {-inf, 0}), 1U), {0, 1}, 0.0F);
}

TEST(Softmax, LeadingAndMiddleAxes)
{
    // Axis 0 of [[1, 2], [3, 4]]: each column is softmax([x, x + 2]) = [0.1192, 0.8808].
    float const low = 0.1192029220F;
    float const high = 0.8807970780F;
    expectClose(softmax(fromFloats({2, 2}, {1, 2, 3, 4}), 1U), {low, low, high, high}, 1e-5F);
    // Axis 1 of [1, 2, 2] is the same computation with an outer axis in front.
    expectClose(softmax(fromFloats({1, 2, 2}, {1, 2, 3, 4}), 1U << 1), {low, low, high, high}, 1e-5F);
}

TEST(Softmax, HalfInPlaceRoundsTheFloatResult)
{
    HostTensor half = fromFloats({2, 3}, {0.1F, 1.7F, -2.3F, 4.0F, 4.0F, 3.9F}, DataType::kHALF);
    HostTensor const reference = fromFloats({2, 3}, half.floats());
    HostTensor floatOutput = zeros({2, 3});
    runSoftmax(alongAxes(2U), reference.constView(), floatOutput.view());
    runSoftmax(alongAxes(2U), half.constView(), half.view());
    expectHalfRoundingOf(half, floatOutput);
}

TEST(Softmax, AxesMaskAndEmpty)
{
    HostTensor const input = fromFloats({2, 2}, {1, 2, 3, 4});
    HostTensor output = zeros({2, 2});
    EXPECT_THROW(runSoftmax(alongAxes(3U), input.constView(), output.view()), std::invalid_argument);
    EXPECT_THROW(runSoftmax(alongAxes(4U), input.constView(), output.view()), std::invalid_argument);
    EXPECT_THROW(runSoftmax(alongAxes(0U), input.constView(), output.view()), std::invalid_argument);
    HostTensor const empty = zeros({0, 3});
    HostTensor emptyOutput = zeros({0, 3});
    EXPECT_NO_THROW(runSoftmax(alongAxes(2U), empty.constView(), emptyOutput.view()));
}

} // namespace
} // namespace kiln::cpu::test
