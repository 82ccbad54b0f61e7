#include "backend/cpu/kernels/tensor/resize.h"
#include "backend/shared/resize_geometry.h"

#include "expect_close.h"
#include "tensor_test_utils.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace kiln::cpu
{
namespace
{

using backend::resizeOutputShape;
using kiln::test::expectClose;
using kiln::test::fromFloats;
using kiln::test::fromInts;
using kiln::test::HostTensor;
using kiln::test::zeros;
using nvinfer1::DataType;
using nvinfer1::InterpolationMode;
using nvinfer1::ResizeCoordinateTransformation;
using nvinfer1::ResizeRoundMode;
using nvinfer1::ResizeSelector;

void setOutputDimensions(network::ResizeParams& params, Shape const& outputDimensions)
{
    params.hasOutputDimensions = true;
    params.outputDimensions = test::dimsOf(outputDimensions);
}

network::ResizeParams makeParams(
    InterpolationMode mode, ResizeCoordinateTransformation transformation, Shape const& outputDimensions)
{
    network::ResizeParams params;
    params.resizeMode = mode;
    params.coordinateTransformation = transformation;
    setOutputDimensions(params, outputDimensions);
    return params;
}

std::vector<float> run(HostTensor const& input, network::ResizeParams const& params)
{
    HostTensor out = zeros(resizeOutputShape(input.shape, params));
    resize({input.constView()}, out.view(), params);
    return out.floats();
}

HostTensor const kPair = fromFloats({2}, {1, 3});

TEST(Resize, Nearest1dEveryRoundMode)
{
    // Asymmetric, 2 -> 4: coordinates 0, 0.5, 1, 1.5 (clamped to 1 after rounding).
    auto params = makeParams(InterpolationMode::kNEAREST, ResizeCoordinateTransformation::kASYMMETRIC, {4});
    params.nearestRounding = ResizeRoundMode::kFLOOR;
    EXPECT_EQ(run(kPair, params), (std::vector<float>{1, 1, 3, 3}));
    params.nearestRounding = ResizeRoundMode::kCEIL;
    EXPECT_EQ(run(kPair, params), (std::vector<float>{1, 3, 3, 3}));
    params.nearestRounding = ResizeRoundMode::kHALF_UP;
    EXPECT_EQ(run(kPair, params), (std::vector<float>{1, 3, 3, 3}));
    params.nearestRounding = ResizeRoundMode::kHALF_DOWN;
    EXPECT_EQ(run(kPair, params), (std::vector<float>{1, 1, 3, 3}));
}

TEST(Resize, Nearest1dEveryTransformation)
{
    // 3 -> 4. Half pixel: -0.125, 0.625, 1.375, 2.125; align corners: 0, 2/3, 4/3, 2.
    HostTensor const input = fromInts({3}, {10, 20, 30}, DataType::kINT32);
    auto runInt = [&](network::ResizeParams const& params) {
        HostTensor out = zeros({4}, DataType::kINT32);
        resize({input.constView()}, out.view(), params);
        return out.elements<int32_t>();
    };
    auto params = makeParams(InterpolationMode::kNEAREST, ResizeCoordinateTransformation::kHALF_PIXEL, {4});
    params.nearestRounding = ResizeRoundMode::kFLOOR;
    EXPECT_EQ(runInt(params), (std::vector<int32_t>{10, 10, 20, 30}));
    params.nearestRounding = ResizeRoundMode::kHALF_UP;
    EXPECT_EQ(runInt(params), (std::vector<int32_t>{10, 20, 20, 30}));
    params.coordinateTransformation = ResizeCoordinateTransformation::kALIGN_CORNERS;
    EXPECT_EQ(runInt(params), (std::vector<int32_t>{10, 20, 20, 30}));
    params.coordinateTransformation = ResizeCoordinateTransformation::kASYMMETRIC; // 0, 0.75, 1.5, 2.25
    EXPECT_EQ(runInt(params), (std::vector<int32_t>{10, 20, 30, 30}));
    params.nearestRounding = ResizeRoundMode::kHALF_DOWN;
    EXPECT_EQ(runInt(params), (std::vector<int32_t>{10, 20, 20, 30}));
}

TEST(Resize, GivenScalesDriveTheMapping)
{
    // floor(3 * 1.5) = 4 outputs; half pixel with scale 1.5: -1/6, 0.5, 7/6, 11/6 -> floor 0, 0, 1, 1,
    // where the implied scale 4/3 would give 0, 0, 1, 2.
    HostTensor const input = fromFloats({3}, {10, 20, 30});
    network::ResizeParams params;
    params.scales = {1.5f};
    params.coordinateTransformation = ResizeCoordinateTransformation::kHALF_PIXEL;
    EXPECT_EQ(resizeOutputShape(input.shape, params), (Shape{4}));
    EXPECT_EQ(run(input, params), (std::vector<float>{10, 10, 20, 20}));
    params.scales.clear();
    setOutputDimensions(params, {4});
    EXPECT_EQ(run(input, params), (std::vector<float>{10, 10, 20, 30}));
}

TEST(Resize, Linear1dEveryTransformation)
{
    auto params = makeParams(InterpolationMode::kLINEAR, ResizeCoordinateTransformation::kASYMMETRIC, {4});
    expectClose(run(kPair, params), {1, 2, 3, 3}, 1e-5F);
    params.coordinateTransformation = ResizeCoordinateTransformation::kHALF_PIXEL; // -0.25, 0.25, 0.75, 1.25
    expectClose(run(kPair, params), {1, 1.5f, 2.5f, 3}, 1e-5F);
    params.coordinateTransformation = ResizeCoordinateTransformation::kALIGN_CORNERS; // 0, 1/3, 2/3, 1
    expectClose(run(kPair, params), {1, 5.0f / 3.0f, 7.0f / 3.0f, 3}, 1e-5F);
}

TEST(Resize, SinglePixelSelector)
{
    // 2 -> 1 with half pixel: the formula samples 0.5 (the mean); kUPPER (pytorch_half_pixel) takes pixel 0.
    auto params = makeParams(InterpolationMode::kLINEAR, ResizeCoordinateTransformation::kHALF_PIXEL, {1});
    expectClose(run(kPair, params), {2}, 1e-5F);
    params.selectorForSinglePixel = ResizeSelector::kUPPER;
    expectClose(run(kPair, params), {1}, 1e-5F);
    params.coordinateTransformation = ResizeCoordinateTransformation::kALIGN_CORNERS;
    params.selectorForSinglePixel = ResizeSelector::kFORMULA;
    expectClose(run(kPair, params), {1}, 1e-5F);
}

TEST(Resize, Cubic1d)
{
    // Asymmetric, scale 2 on [1, 2, 4, 8]: coordinate 0.5 has weights [-0.09375, 0.59375, 0.59375, -0.09375].
    HostTensor const input = fromFloats({4}, {1, 2, 4, 8});
    auto params = makeParams(InterpolationMode::kCUBIC, ResizeCoordinateTransformation::kASYMMETRIC, {8});
    std::vector<float> const out = run(input, params);
    expectClose({out[0], out[1], out[2], out[3], out[7]}, {1, 1.3125f, 2, 2.71875f, 8.375f}, 1e-5F);
    // Excluding outside neighbours renormalises the rest: (0.59375 + 1.1875 - 0.375) / 1.09375 = 9 / 7.
    params.excludeOutside = true;
    std::vector<float> const excluded = run(input, params);
    expectClose({excluded[0], excluded[1], excluded[3], excluded[7]}, {1, 9.0f / 7.0f, 2.71875f, 8.75f}, 1e-5F);
}

TEST(Resize, Nearest2dWithScales)
{
    HostTensor const input = fromFloats({2, 2}, {1, 2, 3, 4});
    network::ResizeParams params;
    params.scales = {2.0f, 2.0f};
    EXPECT_EQ(run(input, params), (std::vector<float>{1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4}));
}

TEST(Resize, Linear2dKeepsOtherDims)
{
    // data[y][x] = 1 + x + 2y is linear, so bilinear sampling returns 1 + X + 2Y at the clamped
    // coordinates; half pixel 2 -> 4 gives 0, 0.25, 0.75, 1 along each axis.
    HostTensor const input = fromFloats({1, 1, 2, 2}, {1, 2, 3, 4});
    network::ResizeParams const params
        = makeParams(InterpolationMode::kLINEAR, ResizeCoordinateTransformation::kHALF_PIXEL, {1, 1, 4, 4});
    expectClose(run(input, params),
        {1, 1.25f, 1.75f, 2, 1.5f, 1.75f, 2.25f, 2.5f, 2.5f, 2.75f, 3.25f, 3.5f, 3, 3.25f, 3.75f, 4}, 1e-5F);
    network::ResizeParams const corners
        = makeParams(InterpolationMode::kLINEAR, ResizeCoordinateTransformation::kALIGN_CORNERS, {1, 1, 3, 3});
    expectClose(run(input, corners), {1, 1.5f, 2, 2, 2.5f, 3, 3, 3.5f, 4}, 1e-5F);
    network::ResizeParams const asymmetric
        = makeParams(InterpolationMode::kLINEAR, ResizeCoordinateTransformation::kASYMMETRIC, {1, 1, 4, 4});
    expectClose(run(input, asymmetric), {1, 1.5f, 2, 2, 2, 2.5f, 3, 3, 3, 3.5f, 4, 4, 3, 3.5f, 4, 4}, 1e-5F);
}

TEST(Resize, Cubic2dEqualsCubic1dOnConstantColumns)
{
    // Identical rows: the vertical weights sum to 1, so each output row is the 1-D result.
    HostTensor const input = fromFloats({2, 4}, {1, 2, 4, 8, 1, 2, 4, 8});
    auto const params = makeParams(InterpolationMode::kCUBIC, ResizeCoordinateTransformation::kASYMMETRIC, {4, 8});
    std::vector<float> const out = run(input, params);
    for (int row = 0; row < 4; ++row)
    {
        expectClose({out[row * 8 + 1], out[row * 8 + 3], out[row * 8 + 7]}, {1.3125f, 2.71875f, 8.375f}, 1e-5F);
    }
}

TEST(Resize, Fp16StorageRoundsThroughHalf)
{
    HostTensor const input = fromFloats({2}, {0.1f, 0.2f}, DataType::kHALF);
    auto const params = makeParams(InterpolationMode::kLINEAR, ResizeCoordinateTransformation::kASYMMETRIC, {4});
    HostTensor out = zeros({4}, DataType::kHALF);
    resize({input.constView()}, out.view(), params);
    float const mid = (input.floats()[0] + input.floats()[1]) / 2.0f;
    EXPECT_EQ(out.elements<uint16_t>()[1], floatToHalfBits(mid));
    EXPECT_EQ(out.elements<uint16_t>()[0], input.elements<uint16_t>()[0]);
}

TEST(Resize, EmptyAndInvalid)
{
    auto params = makeParams(InterpolationMode::kLINEAR, ResizeCoordinateTransformation::kHALF_PIXEL, {0, 4});
    resize({ConstTensorView(DataType::kFLOAT, {2, 2}, nullptr)}, test::emptyView({0, 4}), params);
    params.scales = {2.0f, 2.0f};
    EXPECT_THROW(resizeOutputShape({2, 2}, params), std::invalid_argument);
    params.hasOutputDimensions = false;
    params.scales = {2.0f};
    EXPECT_THROW(resizeOutputShape({2, 2}, params), std::invalid_argument);
}

} // namespace
} // namespace kiln::cpu
