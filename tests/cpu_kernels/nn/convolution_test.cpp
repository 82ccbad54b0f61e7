#include "backend/cpu/kernels/nn/convolution.h"
#include "nn_test_utils.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace kiln::cpu::test
{
namespace
{

using nvinfer1::PaddingMode;

HostTensor convolve(network::ConvolutionParams params, HostTensor const& input, HostTensor const& kernel,
    ConstTensorView const& bias, DataType outputType = DataType::kFLOAT)
{
    params.kernel = weightsOf(kernel.constView());
    params.bias = weightsOf(bias);
    HostTensor output = zeros(convolutionOutputShape(input.shape, params), outputType);
    runConvolution(params, input.constView(), output.view());
    return output;
}

// The definition written out directly, for up to three spatial axes (missing leading ones have extent 1):
// materialize the zero-padded input, then slide the dilated window over it. Explicit padding, rounding down.
struct NaiveProblem
{
    int64_t batch, channels, maps, groups;
    Shape inputSize, kernelSize, stride, dilation, pre, post; // three entries each
};

std::vector<float> naiveConvolution(NaiveProblem const& p, std::vector<float> const& x, std::vector<float> const& w,
    std::vector<float> const& bias, Shape& outputSize)
{
    Shape padded(3);
    outputSize.assign(3, 0);
    for (size_t a = 0; a < 3; ++a)
    {
        padded[a] = p.inputSize[a] + p.pre[a] + p.post[a];
        outputSize[a] = (padded[a] - (1 + p.dilation[a] * (p.kernelSize[a] - 1))) / p.stride[a] + 1;
    }
    std::vector<float> xp(static_cast<size_t>(p.batch * p.channels * padded[0] * padded[1] * padded[2]), 0.0F);
    for (int64_t n = 0; n < p.batch; ++n)
        for (int64_t c = 0; c < p.channels; ++c)
            for (int64_t d = 0; d < p.inputSize[0]; ++d)
                for (int64_t h = 0; h < p.inputSize[1]; ++h)
                    for (int64_t v = 0; v < p.inputSize[2]; ++v)
                    {
                        int64_t const to
                            = (((n * p.channels + c) * padded[0] + d + p.pre[0]) * padded[1] + h + p.pre[1]) * padded[2]
                            + v + p.pre[2];
                        int64_t const from
                            = (((n * p.channels + c) * p.inputSize[0] + d) * p.inputSize[1] + h) * p.inputSize[2] + v;
                        xp[static_cast<size_t>(to)] = x[static_cast<size_t>(from)];
                    }
    int64_t const cg = p.channels / p.groups;
    int64_t const kg = p.maps / p.groups;
    std::vector<float> out;
    for (int64_t n = 0; n < p.batch; ++n)
        for (int64_t k = 0; k < p.maps; ++k)
            for (int64_t od = 0; od < outputSize[0]; ++od)
                for (int64_t oh = 0; oh < outputSize[1]; ++oh)
                    for (int64_t ow = 0; ow < outputSize[2]; ++ow)
                    {
                        float sum = bias.empty() ? 0.0F : bias[static_cast<size_t>(k)];
                        for (int64_t c = 0; c < cg; ++c)
                            for (int64_t kd = 0; kd < p.kernelSize[0]; ++kd)
                                for (int64_t kh = 0; kh < p.kernelSize[1]; ++kh)
                                    for (int64_t kw = 0; kw < p.kernelSize[2]; ++kw)
                                    {
                                        int64_t const d = od * p.stride[0] + kd * p.dilation[0];
                                        int64_t const h = oh * p.stride[1] + kh * p.dilation[1];
                                        int64_t const v = ow * p.stride[2] + kw * p.dilation[2];
                                        int64_t const channel = (k / kg) * cg + c;
                                        float const xv = xp[static_cast<size_t>(
                                            (((n * p.channels + channel) * padded[0] + d) * padded[1] + h) * padded[2]
                                            + v)];
                                        float const wv = w[static_cast<size_t>(
                                            (((k * cg + c) * p.kernelSize[0] + kd) * p.kernelSize[1] + kh)
                                                * p.kernelSize[2]
                                            + kw)];
                                        sum += xv * wv;
                                    }
                        out.push_back(sum);
                    }
    return out;
}

// Runs the kernel on a problem with `spatialRank` real spatial axes (the last ones of the naive problem's three)
// and checks it against the naive definition, exactly (small integer data).
void checkAgainstNaive(NaiveProblem const& p, size_t spatialRank, bool withBias, uint32_t seed)
{
    size_t const skip = 3 - spatialRank;
    auto tail = [skip](Shape const& s) { return Shape(s.begin() + static_cast<std::ptrdiff_t>(skip), s.end()); };
    Shape inputShape{p.batch, p.channels};
    Shape kernelShape{p.maps, p.channels / p.groups};
    for (size_t a = skip; a < 3; ++a)
    {
        inputShape.push_back(p.inputSize[a]);
        kernelShape.push_back(p.kernelSize[a]);
    }
    HostTensor const input = fromFloats(inputShape, smallIntegers(volume(inputShape), seed));
    HostTensor const kernel = fromFloats(kernelShape, smallIntegers(volume(kernelShape), seed + 1));
    std::vector<float> const biasValues = withBias ? smallIntegers(p.maps, seed + 2) : std::vector<float>{};
    HostTensor const bias = fromFloats({withBias ? p.maps : 0}, biasValues);

    network::ConvolutionParams params;
    params.nbOutputMaps = p.maps;
    params.kernelSize = dimsOf(tail(p.kernelSize));
    params.stride = dimsOf(tail(p.stride));
    params.dilation = dimsOf(tail(p.dilation));
    params.prePadding = dimsOf(tail(p.pre));
    params.postPadding = dimsOf(tail(p.post));
    params.nbGroups = p.groups;
    HostTensor const output = convolve(params, input, kernel, bias.constView());

    Shape naiveSize;
    std::vector<float> const expected = naiveConvolution(p, input.floats(), kernel.floats(), biasValues, naiveSize);
    Shape expectedShape{p.batch, p.maps};
    for (size_t a = skip; a < 3; ++a)
    {
        expectedShape.push_back(naiveSize[a]);
    }
    ASSERT_EQ(output.shape, expectedShape);
    expectClose(output.floats(), expected, 0.0F);
}

TEST(Convolution, TwoDimensionalByHand)
{
    // Input 1..9 as 3x3, kernel [[1, 2], [3, 4]], bias 0.5: out(i, j) = sum x(i + a, j + b) * w(a, b) + 0.5.
    HostTensor const input = fromFloats({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
    HostTensor const kernel = fromFloats({1, 1, 2, 2}, {1, 2, 3, 4});
    HostTensor const bias = fromFloats({1}, {0.5F});
    network::ConvolutionParams params;
    params.nbOutputMaps = 1;
    params.kernelSize = dimsOf({2, 2});
    HostTensor const output = convolve(params, input, kernel, bias.constView());
    EXPECT_EQ(output.shape, (Shape{1, 1, 2, 2}));
    expectClose(output.floats(), {37.5F, 47.5F, 67.5F, 77.5F}, 0.0F);
}

TEST(Convolution, SamePaddingWithEvenKernel)
{
    HostTensor const input = fromFloats({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
    HostTensor const kernel = fromFloats({1, 1, 2, 2}, {1, 2, 3, 4});
    network::ConvolutionParams params;
    params.nbOutputMaps = 1;
    params.kernelSize = dimsOf({2, 2});
    // P = 1 per axis. kSAME_UPPER pads after: the last row and column see zeros.
    params.paddingMode = PaddingMode::kSAME_UPPER;
    HostTensor output = convolve(params, input, kernel, none());
    EXPECT_EQ(output.shape, (Shape{1, 1, 3, 3}));
    expectClose(output.floats(), {37, 47, 21, 67, 77, 33, 23, 26, 9}, 0.0F);
    // kSAME_LOWER pads before: the first row and column see zeros.
    params.paddingMode = PaddingMode::kSAME_LOWER;
    output = convolve(params, input, kernel, none());
    expectClose(output.floats(), {4, 11, 18, 18, 37, 47, 36, 67, 77}, 0.0F);
}

TEST(Convolution, OneDimensionalStrideAndDilation)
{
    // Input 1..7, kernel [1, 1, 1], dilation 2 (DK = 5), stride 2: O = (7 - 5) / 2 + 1 = 2.
    HostTensor const input = fromFloats({1, 1, 7}, {1, 2, 3, 4, 5, 6, 7});
    HostTensor const kernel = fromFloats({1, 1, 3}, {1, 1, 1});
    network::ConvolutionParams params;
    params.nbOutputMaps = 1;
    params.kernelSize = dimsOf({3});
    params.stride = dimsOf({2});
    params.dilation = dimsOf({2});
    HostTensor const output = convolve(params, input, kernel, none());
    EXPECT_EQ(output.shape, (Shape{1, 1, 2}));
    expectClose(output.floats(), {1 + 3 + 5, 3 + 5 + 7}, 0.0F);
}

TEST(Convolution, GroupsAndDepthwiseByHand)
{
    // Two channels [2, 3], two groups: map 0 sees channel 0 only, map 1 channel 1 only.
    HostTensor const input = fromFloats({1, 2, 1, 1}, {2, 3});
    HostTensor const kernel = fromFloats({2, 1, 1, 1}, {10, 100});
    network::ConvolutionParams params;
    params.nbOutputMaps = 2;
    params.kernelSize = dimsOf({1, 1});
    params.nbGroups = 2;
    expectClose(convolve(params, input, kernel, none()).floats(), {20, 300}, 0.0F);
    // Depthwise with a channel multiplier of 2: maps 0 and 1 read channel 0, maps 2 and 3 channel 1.
    HostTensor const multiplied = fromFloats({4, 1, 1, 1}, {1, -1, 2, -2});
    params.nbOutputMaps = 4;
    expectClose(convolve(params, input, multiplied, none()).floats(), {2, -2, 6, -6}, 0.0F);
}

TEST(Convolution, RoundUpAddsAWindowThatHangsOver)
{
    // I = 4, K = 2, S = 3: rounding down gives (4 - 2) / 3 + 1 = 1 window; rounding up gives 2, the
    // second window [3, 4] reads x(3) and one position past the input (zero).
    HostTensor const input = fromFloats({1, 1, 4}, {1, 2, 3, 4});
    HostTensor const kernel = fromFloats({1, 1, 2}, {1, 10});
    network::ConvolutionParams params;
    params.nbOutputMaps = 1;
    params.kernelSize = dimsOf({2});
    params.stride = dimsOf({3});
    expectClose(convolve(params, input, kernel, none()).floats(), {21}, 0.0F);
    params.paddingMode = PaddingMode::kEXPLICIT_ROUND_UP;
    expectClose(convolve(params, input, kernel, none()).floats(), {21, 4}, 0.0F);
}

TEST(Convolution, MatchesNaiveDefinition2D)
{
    // Strides, dilation, asymmetric padding, groups, batch 2.
    NaiveProblem p{2, 4, 6, 2, {1, 7, 6}, {1, 3, 2}, {1, 2, 1}, {1, 2, 1}, {0, 1, 0}, {0, 2, 1}};
    checkAgainstNaive(p, 2, true, 11);
    NaiveProblem depthwise{1, 3, 3, 3, {1, 5, 5}, {1, 3, 3}, {1, 1, 2}, {1, 1, 1}, {0, 1, 1}, {0, 1, 1}};
    checkAgainstNaive(depthwise, 2, false, 17);
}

TEST(Convolution, MatchesNaiveDefinition1DAnd3D)
{
    NaiveProblem oneD{2, 2, 3, 1, {1, 1, 9}, {1, 1, 3}, {1, 1, 2}, {1, 1, 2}, {0, 0, 2}, {0, 0, 1}};
    checkAgainstNaive(oneD, 1, true, 23);
    NaiveProblem threeD{1, 2, 4, 2, {4, 3, 5}, {2, 2, 3}, {1, 2, 1}, {2, 1, 1}, {1, 0, 1}, {0, 1, 1}};
    checkAgainstNaive(threeD, 3, true, 29);
}

TEST(Convolution, HalfStorageRoundsTheFloatResult)
{
    // Values whose sums are not representable in FP16, so the rounding is visible.
    std::vector<float> const inputValues{0.1F, 0.7F, -1.3F, 2.9F, 0.33F, -0.77F, 1.01F, 3.3F, -2.2F};
    std::vector<float> const kernelValues{0.25F, -1.5F, 0.125F, 2.0F};
    network::ConvolutionParams params;
    params.nbOutputMaps = 1;
    params.kernelSize = dimsOf({2, 2});
    HostTensor const halfInput = fromFloats({1, 1, 3, 3}, inputValues, DataType::kHALF);
    HostTensor const halfKernel = fromFloats({1, 1, 2, 2}, kernelValues, DataType::kHALF);
    HostTensor const halfOutput = convolve(params, halfInput, halfKernel, none(), DataType::kHALF);
    // Reference: the same (already FP16-rounded) inputs in FP32.
    HostTensor const floatOutput = convolve(
        params, fromFloats({1, 1, 3, 3}, halfInput.floats()), fromFloats({1, 1, 2, 2}, halfKernel.floats()), none());
    expectHalfRoundingOf(halfOutput, floatOutput);
}

TEST(Convolution, EmptyBatchTouchesNoMemory)
{
    HostTensor const input = zeros({0, 1, 3, 3});
    HostTensor const kernel = fromFloats({2, 1, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
    network::ConvolutionParams params;
    params.nbOutputMaps = 2;
    params.kernelSize = dimsOf({2, 2});
    params.kernel = weightsOf(kernel.constView());
    HostTensor output = zeros(convolutionOutputShape(input.shape, params));
    EXPECT_EQ(output.shape, (Shape{0, 2, 2, 2}));
    EXPECT_EQ(output.view().data, nullptr);
    EXPECT_NO_THROW(runConvolution(params, input.constView(), output.view()));
}

TEST(Convolution, RejectsInconsistentInput)
{
    network::ConvolutionParams params;
    params.nbOutputMaps = 2;
    params.kernelSize = dimsOf({2, 2});
    params.nbGroups = 2;
    EXPECT_THROW(convolutionOutputShape({1, 3, 4, 4}, params), std::invalid_argument); // 3 channels, 2 groups
    params.nbGroups = 1;
    HostTensor const input = zeros({1, 1, 3, 3});
    HostTensor const wrongKernel = zeros({2, 1, 3, 3});
    HostTensor output = zeros({1, 2, 2, 2});
    params.kernel = weightsOf(wrongKernel.constView());
    EXPECT_THROW(runConvolution(params, input.constView(), output.view()), std::invalid_argument);
    HostTensor const kernel = zeros({2, 1, 2, 2});
    HostTensor wrongOutput = zeros({1, 2, 3, 3});
    params.kernel = weightsOf(kernel.constView());
    EXPECT_THROW(runConvolution(params, input.constView(), wrongOutput.view()), std::invalid_argument);
}

} // namespace
} // namespace kiln::cpu::test
