// The LRN reference kernel on values worked out by hand: TensorRT's worked example, a window of one channel, the
// channel axis of rank-3 and rank-5 inputs, a negative base, FP16 and BF16 tensors, empty tensors, and every check
// it makes before touching data (which the layer's shape inference makes unreachable through the network API).
#include "backend/cpu/kernels/nn/lrn.h"
#include "core/dims_text.h"
#include "nn_test_utils.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>

namespace kiln::cpu::test
{
namespace
{

network::LRNParams lrnParams(int64_t window, float alpha, float beta, float k)
{
    network::LRNParams params;
    params.window = window;
    params.alpha = alpha;
    params.beta = beta;
    params.k = k;
    return params;
}

std::vector<float> lrn(network::LRNParams const& params, HostTensor const& input)
{
    HostTensor output = zeros(input.shape);
    runLrn(params, input.constView(), output.view());
    return output.floats();
}

//! The message of the std::invalid_argument that runLrn throws, or "" where it throws none.
std::string errorOf(network::LRNParams const& params, HostTensor const& input, HostTensor output)
{
    try
    {
        runLrn(params, input.constView(), output.view());
    }
    catch (std::invalid_argument const& error)
    {
        return error.what();
    }
    return "";
}

TEST(Lrn, TensorRtsWorkedExample)
{
    // [1, 5, 2, 2], channel c holding c; window 3, alpha 1, beta 1, k 0.1. Channel c sums the squares of channels
    // c - 1 to c + 1 that exist: 1, 5, 14, 29, 25; y = c / (0.1 + sum / 3).
    std::vector<float> values;
    for (int c = 0; c < 5; ++c)
    {
        values.insert(values.end(), 4, static_cast<float>(c));
    }
    std::vector<float> expected;
    double const sums[] = {1, 5, 14, 29, 25};
    for (int c = 0; c < 5; ++c)
    {
        expected.insert(expected.end(), 4, static_cast<float>(c / (0.1 + sums[c] / 3.0)));
    }
    expectClose(lrn(lrnParams(3, 1.0F, 1.0F, 0.1F), fromFloats({1, 5, 2, 2}, values)), expected, {0.0, 1e-6});
    // TensorRT's documentation gives 0.56603765, 0.4195804, 0.3071672, 0.47430828 for channels 1 to 4.
    expectClose({expected[4], expected[8], expected[12], expected[16]},
        {0.56603765F, 0.4195804F, 0.3071672F, 0.47430828F}, {0.0, 1e-6});
}

TEST(Lrn, AWindowOfOneLeavesTheNeighboursOut)
{
    // alpha / window = 1, beta 0.5, k 1: y = x / sqrt(1 + x^2), exact for these.
    HostTensor const x = fromFloats({1, 3, 1, 1}, {0.75F, -2.4F, 0.0F});
    expectClose(lrn(lrnParams(1, 1.0F, 0.5F, 1.0F), x), {0.6F, -12.0F / 13.0F, 0.0F}, {0.0, 1e-6});
}

TEST(Lrn, TheChannelsAreTheThirdAxisFromTheEnd)
{
    // Channels 1, 2, 3 with alpha / window = 1, beta 1, k 1: sums 5, 14, 13, so y = 1/6, 2/15, 3/14. Across the
    // extent-1 axis before them each value would stand alone instead: 1/2, 2/5, 3/10.
    network::LRNParams const params = lrnParams(3, 3.0F, 1.0F, 1.0F);
    std::vector<float> const expected{1.0F / 6, 2.0F / 15, 3.0F / 14};
    expectClose(lrn(params, fromFloats({3, 1, 1}, {1, 2, 3})), expected, {0.0, 1e-6}, "rank 3");
    expectClose(lrn(params, fromFloats({1, 1, 3, 1, 1}, {1, 2, 3})), expected, {0.0, 1e-6}, "rank 5");
    // [2, 3, 1, 2]: each batch and position on its own; the second batch holds the first's values negated.
    HostTensor const x = fromFloats({2, 3, 1, 2}, {1, -2, 2, -4, 3, -6, -1, 2, -2, 4, -3, 6});
    expectClose(lrn(params, x),
        {1.0F / 6, -2.0F / 21, 2.0F / 15, -4.0F / 57, 3.0F / 14, -6.0F / 53, -1.0F / 6, 2.0F / 21, -2.0F / 15,
            4.0F / 57, -3.0F / 14, 6.0F / 53},
        {0.0, 1e-6}, "batches and positions");
}

TEST(Lrn, ANegativeBaseGivesWhatPowGives)
{
    // alpha -1 makes the base 1 - x^2 = -3 for x = 2: a fractional beta gives NaN, beta 1 gives 2 / -3.
    HostTensor const x = fromFloats({1, 1, 1, 1}, {2.0F});
    EXPECT_TRUE(std::isnan(lrn(lrnParams(1, -1.0F, 0.5F, 1.0F), x)[0]));
    expectClose(lrn(lrnParams(1, -1.0F, 1.0F, 1.0F), x), {-2.0F / 3.0F}, {0.0, 1e-6});
}

TEST(Lrn, SixteenBitTensorsRoundTheResultOnce)
{
    std::vector<float> const values{0.5F, -1.25F, 3.0F, 2.0F, -0.75F, 1.5F};
    network::LRNParams const params = lrnParams(3, 1.0e-1F, 0.75F, 2.0F);
    for (DataType type : {DataType::kHALF, DataType::kBF16})
    {
        SCOPED_TRACE(dataTypeName(type));
        HostTensor const x = fromFloats({1, 3, 1, 2}, values, type);
        // The FP32 result of the same (representable) inputs, rounded to the type once.
        HostTensor const expected = fromFloats({1, 3, 1, 2}, lrn(params, fromFloats({1, 3, 1, 2}, x.floats())), type);
        HostTensor output = zeros({1, 3, 1, 2}, type);
        runLrn(params, x.constView(), output.view());
        EXPECT_EQ(output.bytes, expected.bytes);
    }
}

TEST(Lrn, EmptyTensorsTouchNoData)
{
    network::LRNParams const params = lrnParams(5, 1.0e-4F, 0.75F, 1.0F);
    for (Shape const& shape : {Shape{0, 3, 2, 2}, Shape{1, 0, 2, 2}, Shape{1, 3, 0, 2}})
    {
        HostTensor const x = zeros(shape);
        EXPECT_EQ(errorOf(params, x, zeros(shape)), "") << shapeText(shape);
    }
}

TEST(Lrn, ChecksShapesTypesAndParametersFirst)
{
    network::LRNParams const params = lrnParams(3, 1.0F, 0.75F, 1.0F);
    HostTensor const x = zeros({1, 3, 2, 2});
    EXPECT_EQ(errorOf(params, zeros({3, 4}), zeros({3, 4})), "LRN: the input must have rank 3 or more, not 2");
    EXPECT_EQ(errorOf(params, x, zeros({1, 3, 2, 1})), "LRN output: shape [1, 3, 2, 1], expected [1, 3, 2, 2]");
    EXPECT_EQ(errorOf(params, zeros({1, 3, 2, 2}, DataType::kINT32), zeros({1, 3, 2, 2})),
        "LRN input: expected kFLOAT, kHALF or kBF16, got INT32");
    EXPECT_EQ(errorOf(lrnParams(4, 1.0F, 0.75F, 1.0F), x, zeros({1, 3, 2, 2})),
        "LRN: the window must be odd and in [1, 15], not 4");
    EXPECT_EQ(errorOf(lrnParams(3, 1.0F, 0.75F, 0.0F), x, zeros({1, 3, 2, 2})).rfind("LRN: the k must lie in", 0), 0U);
}

} // namespace
} // namespace kiln::cpu::test
