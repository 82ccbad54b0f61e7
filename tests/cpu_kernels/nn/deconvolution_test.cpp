#include "backend/cpu/kernels/nn/deconvolution.h"
#include "nn_test_utils.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace kiln::cpu::test
{
namespace
{

using nvinfer1::PaddingMode;

HostTensor deconvolve(
    network::DeconvolutionParams params, HostTensor const& input, HostTensor const& kernel, ConstTensorView const& bias)
{
    params.kernel = weightsOf(kernel.constView());
    params.bias = weightsOf(bias);
    HostTensor output = zeros(deconvolutionOutputShape(input.shape, params));
    runDeconvolution(params, input.constView(), output.view());
    return output;
}

network::DeconvolutionParams oneDimensional(int64_t kernel, int64_t stride)
{
    network::DeconvolutionParams params;
    params.nbOutputMaps = 1;
    params.kernelSize = dimsOf({kernel});
    params.stride = dimsOf({stride});
    return params;
}

TEST(Deconvolution, StrideTwoOneDimensionalByHand)
{
    // [1, 2, 3] scattered with kernel [1, 1, 1] at stride 2: x0 covers 0..2, x1 2..4, x2 4..6.
    HostTensor const input = fromFloats({1, 1, 3}, {1, 2, 3});
    HostTensor const kernel = fromFloats({1, 1, 3}, {1, 1, 1});
    network::DeconvolutionParams params = oneDimensional(3, 2);
    expectClose(deconvolve(params, input, kernel, none()).floats(), {1, 1, 3, 2, 5, 3, 3}, 0.0F);
    // Explicit padding crops the full output.
    params.prePadding = dimsOf({1});
    params.postPadding = dimsOf({1});
    expectClose(deconvolve(params, input, kernel, none()).floats(), {1, 3, 2, 5, 3}, 0.0F);
    // A negative post-padding (ONNX output_padding 1) extends it; the extension holds the bias only.
    params.prePadding = dimsOf({0});
    params.postPadding = dimsOf({-1});
    HostTensor const bias = fromFloats({1}, {0.5F});
    expectClose(deconvolve(params, input, kernel, bias.constView()).floats(),
        {1.5F, 1.5F, 3.5F, 2.5F, 5.5F, 3.5F, 3.5F, 0.5F}, 0.0F);
}

TEST(Deconvolution, SamePaddingModes)
{
    HostTensor const input = fromFloats({1, 1, 3}, {1, 2, 3});
    HostTensor const kernel = fromFloats({1, 1, 3}, {1, 1, 1});
    network::DeconvolutionParams params = oneDimensional(3, 2);
    // O = min(3 * 2, 7) = 6, P = 1: UPPER crops the last element, LOWER the first.
    params.paddingMode = PaddingMode::kSAME_UPPER;
    expectClose(deconvolve(params, input, kernel, none()).floats(), {1, 1, 3, 2, 5, 3}, 0.0F);
    params.paddingMode = PaddingMode::kSAME_LOWER;
    expectClose(deconvolve(params, input, kernel, none()).floats(), {1, 3, 2, 5, 3, 3}, 0.0F);
}

TEST(Deconvolution, StrideTwoTwoDimensionalUpsamples)
{
    // A 2x2 kernel of ones at stride 2 copies each input to a 2x2 block.
    HostTensor const input = fromFloats({1, 1, 2, 2}, {1, 2, 3, 4});
    HostTensor const kernel = fromFloats({1, 1, 2, 2}, {1, 1, 1, 1});
    HostTensor const bias = fromFloats({1}, {10});
    network::DeconvolutionParams params;
    params.nbOutputMaps = 1;
    params.kernelSize = dimsOf({2, 2});
    params.stride = dimsOf({2, 2});
    HostTensor const output = deconvolve(params, input, kernel, bias.constView());
    EXPECT_EQ(output.shape, (Shape{1, 1, 4, 4}));
    expectClose(output.floats(), {11, 11, 12, 12, 11, 11, 12, 12, 13, 13, 14, 14, 13, 13, 14, 14}, 0.0F);
}

// Transposed convolution by its definition: every input element adds input * weight at i * S + k * D of a full
// output, which is then cropped by the padding. Two spatial axes.
std::vector<float> naiveDeconvolution(HostTensor const& input, HostTensor const& kernel, std::vector<float> const& bias,
    int64_t maps, int64_t groups, Shape const& stride, Shape const& dilation, Shape const& pre, Shape const& post)
{
    int64_t const batch = input.shape[0], channels = input.shape[1], ih = input.shape[2], iw = input.shape[3];
    int64_t const kh = kernel.shape[2], kw = kernel.shape[3];
    int64_t const fullH = (ih - 1) * stride[0] + 1 + dilation[0] * (kh - 1);
    int64_t const fullW = (iw - 1) * stride[1] + 1 + dilation[1] * (kw - 1);
    int64_t const cg = channels / groups, mg = maps / groups;
    std::vector<float> const x = input.floats();
    std::vector<float> const w = kernel.floats();
    std::vector<float> full(static_cast<size_t>(batch * maps * fullH * fullW), 0.0F);
    for (int64_t n = 0; n < batch; ++n)
        for (int64_t c = 0; c < channels; ++c)
            for (int64_t y = 0; y < ih; ++y)
                for (int64_t z = 0; z < iw; ++z)
                    for (int64_t m = 0; m < mg; ++m)
                        for (int64_t a = 0; a < kh; ++a)
                            for (int64_t b = 0; b < kw; ++b)
                            {
                                int64_t const map = (c / cg) * mg + m;
                                int64_t const oy = y * stride[0] + a * dilation[0];
                                int64_t const oz = z * stride[1] + b * dilation[1];
                                full[static_cast<size_t>(((n * maps + map) * fullH + oy) * fullW + oz)]
                                    += x[static_cast<size_t>(((n * channels + c) * ih + y) * iw + z)]
                                    * w[static_cast<size_t>(((c * mg + m) * kh + a) * kw + b)];
                            }
    int64_t const oh = fullH - pre[0] - post[0], ow = fullW - pre[1] - post[1];
    std::vector<float> out;
    for (int64_t n = 0; n < batch; ++n)
        for (int64_t map = 0; map < maps; ++map)
            for (int64_t y = 0; y < oh; ++y)
                for (int64_t z = 0; z < ow; ++z)
                {
                    int64_t const fy = y + pre[0], fz = z + pre[1];
                    bool const inside = fy >= 0 && fy < fullH && fz >= 0 && fz < fullW;
                    float const value = inside ? full[static_cast<size_t>(((n * maps + map) * fullH + fy) * fullW + fz)]
                                               : 0.0F;
                    out.push_back(value + bias[static_cast<size_t>(map)]);
                }
    return out;
}

TEST(Deconvolution, MatchesNaiveScatterWithGroupsDilationAndPadding)
{
    HostTensor const input = fromFloats({2, 4, 3, 4}, smallIntegers(2 * 4 * 3 * 4, 5));
    HostTensor const kernel = fromFloats({4, 3, 3, 2}, smallIntegers(4 * 3 * 3 * 2, 6)); // 2 groups, 6 maps
    std::vector<float> const biasValues = smallIntegers(6, 7);
    HostTensor const bias = fromFloats({6}, biasValues);
    Shape const stride{2, 3};
    Shape const dilation{2, 1};
    Shape const prePadding{1, 0};
    Shape const postPadding{2, -1};
    network::DeconvolutionParams params;
    params.nbOutputMaps = 6;
    params.kernelSize = dimsOf({3, 2});
    params.stride = dimsOf(stride);
    params.dilation = dimsOf(dilation);
    params.prePadding = dimsOf(prePadding);
    params.postPadding = dimsOf(postPadding);
    params.nbGroups = 2;
    HostTensor const output = deconvolve(params, input, kernel, bias.constView());
    // H: (3 - 1) * 2 + 5 - 3 = 6; W: (4 - 1) * 3 + 2 + 1 = 12.
    EXPECT_EQ(output.shape, (Shape{2, 6, 6, 12}));
    expectClose(output.floats(),
        naiveDeconvolution(input, kernel, biasValues, 6, 2, stride, dilation, prePadding, postPadding), 0.0F);
}

TEST(Deconvolution, ThreeDimensionalDepthwise)
{
    // Two channels, two groups, 1x1x1 kernels [2, -1], stride 2 in every axis: each input lands on even coordinates.
    HostTensor const input = fromFloats({1, 2, 2, 1, 1}, {1, 2, 3, 4});
    HostTensor const kernel = fromFloats({2, 1, 1, 1, 1}, {2, -1});
    network::DeconvolutionParams params;
    params.nbOutputMaps = 2;
    params.kernelSize = dimsOf({1, 1, 1});
    params.stride = dimsOf({2, 2, 2});
    params.nbGroups = 2;
    HostTensor const output = deconvolve(params, input, kernel, none());
    EXPECT_EQ(output.shape, (Shape{1, 2, 3, 1, 1}));
    expectClose(output.floats(), {2, 0, 4, -3, 0, -4}, 0.0F);
}

TEST(Deconvolution, EmptyInputAndBadKernel)
{
    HostTensor const input = zeros({0, 1, 3});
    HostTensor const kernel = fromFloats({1, 1, 3}, {1, 1, 1});
    network::DeconvolutionParams params = oneDimensional(3, 2);
    params.kernel = weightsOf(kernel.constView());
    HostTensor output = zeros(deconvolutionOutputShape(input.shape, params));
    EXPECT_EQ(output.shape, (Shape{0, 1, 7}));
    EXPECT_NO_THROW(runDeconvolution(params, input.constView(), output.view()));
    HostTensor const realInput = fromFloats({1, 1, 3}, {1, 2, 3});
    HostTensor const wrongKernel = fromFloats({1, 1, 2}, {1, 1});
    HostTensor realOutput = zeros({1, 1, 7});
    params.kernel = weightsOf(wrongKernel.constView());
    EXPECT_THROW(runDeconvolution(params, realInput.constView(), realOutput.view()), std::invalid_argument);
}

} // namespace
} // namespace kiln::cpu::test
