#include "backend/cpu/kernels/tensor/grid_sample.h"

#include "backend/cpu/kernels/layer_inputs.h"
#include "backend/cpu/kernels/tensor/element_access.h"
#include "backend/cpu/kernels/tensor/shape_utils.h"

#include <array>
#include <cmath>
#include <limits>

namespace kiln::cpu
{
namespace
{

using nvinfer1::InterpolationMode;
using nvinfer1::SampleMode;
using namespace tensor_detail;

constexpr char const* kKernel = "gridSample";
//! The cubic convolution coefficient A that ONNX GridSample (and PyTorch's grid_sample) use.
constexpr double kCubicCoefficient = -0.75;

//! The pixel coordinate of normalized coordinate g along an axis of `extent` pixels.
double pixelCoordinate(double g, int64_t extent, bool alignCorners)
{
    auto const pixels = static_cast<double>(extent);
    return alignCorners ? (g + 1.0) / 2.0 * (pixels - 1.0) : ((g + 1.0) * pixels - 1.0) / 2.0;
}

//! The coordinates that count as inside an axis: the first and last pixel centres with alignCorners, else the outer
//! edges of those pixels. kCLAMP and kREFLECT move a point only when it lies outside them.
struct AxisBounds
{
    double low;
    double high;
};

AxisBounds axisBounds(int64_t extent, bool alignCorners)
{
    auto const pixels = static_cast<double>(extent);
    return alignCorners ? AxisBounds{0.0, pixels - 1.0} : AxisBounds{-0.5, pixels - 0.5};
}

//! x folded back into [low, high] as often as it takes, as a mirror at each bound would show it.
double reflect(double x, AxisBounds bounds)
{
    double const span = bounds.high - bounds.low;
    if (x >= bounds.low && x <= bounds.high)
    {
        return x;
    }
    if (std::isinf(x))
    {
        return std::numeric_limits<double>::quiet_NaN();
    }
    if (span <= 0.0)
    {
        return bounds.low;
    }
    bool const below = x < bounds.low;
    double const distance = below ? bounds.low - x : x - bounds.high;
    double const folds = std::floor(distance / span);
    double const rest = distance - folds * span;
    // An even number of folds leaves x on the side of the bound it crossed; an odd number, on the other side.
    bool const evenFolds = std::fmod(folds, 2.0) == 0.0;
    return below == evenFolds ? bounds.low + rest : bounds.high - rest;
}

//! Where the sample point lies once the sample mode has placed it (kFILL leaves it where it is).
double placePoint(double x, int64_t extent, AxisBounds bounds, SampleMode mode)
{
    if (x >= bounds.low && x <= bounds.high)
    {
        return x;
    }
    switch (mode)
    {
    case SampleMode::kCLAMP: return std::clamp(x, 0.0, static_cast<double>(extent - 1));
    case SampleMode::kREFLECT: return reflect(x, bounds);
    default: return x;
    }
}

//! The pixel that neighbour coordinate c (a whole number) reads, or -1 for a zero outside the input.
int64_t neighbourPixel(double c, int64_t extent, AxisBounds bounds, SampleMode mode)
{
    auto const last = static_cast<double>(extent - 1);
    if (c >= 0.0 && c <= last)
    {
        return static_cast<int64_t>(c);
    }
    switch (mode)
    {
    case SampleMode::kCLAMP: return c < 0.0 ? 0 : extent - 1;
    case SampleMode::kREFLECT: return static_cast<int64_t>(std::clamp(reflect(c, bounds), 0.0, last));
    default: return -1;
    }
}

//! Cubic convolution weights of the neighbours at floor(x) - 1 .. floor(x) + 2, for t = x - floor(x).
std::array<double, 4> cubicWeights(double t)
{
    double const a = kCubicCoefficient;
    auto near = [a](double d) { return ((a + 2.0) * d - (a + 3.0)) * d * d + 1.0; };      // |d| <= 1
    auto far = [a](double d) { return ((a * d - 5.0 * a) * d + 8.0 * a) * d - 4.0 * a; }; // 1 < |d| < 2
    return {far(t + 1.0), near(t), near(1.0 - t), far(2.0 - t)};
}

//! The neighbours one grid point blends along one axis: pixel (-1 reads zero) and weight.
struct AxisTaps
{
    int count{0};
    std::array<int64_t, 4> pixel{};
    std::array<double, 4> weight{};
};

AxisTaps axisTaps(double normalized, int64_t extent, network::GridSampleParams const& params)
{
    AxisBounds const bounds = axisBounds(extent, params.alignCorners);
    double x = pixelCoordinate(normalized, extent, params.alignCorners);
    if (params.interpolationMode == InterpolationMode::kNEAREST)
    {
        x = std::nearbyint(x); // the default rounding mode: half to even, as ONNX specifies
    }
    x = placePoint(x, extent, bounds, params.sampleMode);
    AxisTaps taps;
    if (!std::isfinite(x))
    {
        // An infinite point under kFILL reads a zero; a NaN one (a NaN coordinate, or an infinite one reflected)
        // makes the output NaN.
        taps.count = 1;
        taps.pixel[0] = -1;
        taps.weight[0] = std::isnan(x) ? x : 1.0;
        return taps;
    }
    double const base = std::floor(x);
    double const t = x - base;
    switch (params.interpolationMode)
    {
    case InterpolationMode::kNEAREST:
        taps.count = 1;
        taps.weight = {1.0};
        break;
    case InterpolationMode::kLINEAR:
        taps.count = 2;
        taps.weight = {1.0 - t, t};
        break;
    case InterpolationMode::kCUBIC:
        taps.count = 4;
        taps.weight = cubicWeights(t);
        break;
    default:
        fail(kKernel, "unknown InterpolationMode " + std::to_string(static_cast<int32_t>(params.interpolationMode)));
    }
    double const first = params.interpolationMode == InterpolationMode::kCUBIC ? base - 1.0 : base;
    for (int k = 0; k < taps.count; ++k)
    {
        taps.pixel[k] = neighbourPixel(first + k, extent, bounds, params.sampleMode);
    }
    return taps;
}

} // namespace

Shape gridSampleOutputShape(Shape const& input, Shape const& grid)
{
    if (input.size() != 4)
    {
        fail(kKernel, "input has shape " + shapeText(input) + "; expected [N, C, H, W]");
    }
    if (grid.size() != 4 || grid[3] != 2 || grid[0] != input[0])
    {
        fail(kKernel,
            "grid has shape " + shapeText(grid) + "; expected [" + std::to_string(input[0]) + ", H_out, W_out, 2]");
    }
    return {input[0], input[1], grid[1], grid[2]};
}

void gridSample(ConstTensorView const& input, ConstTensorView const& grid, TensorView const& output,
    network::GridSampleParams const& params)
{
    expectShape(output.shape, gridSampleOutputShape(input.shape, grid.shape), kKernel, "output");
    if (!isFloatType(input.type) || grid.type != input.type || output.type != input.type)
    {
        fail(kKernel, "input, grid and output must share one type of FLOAT, HALF or BF16");
    }
    if (!network::GridSampleParams::isSupportedSampleMode(params.sampleMode))
    {
        fail(kKernel,
            "sample mode " + std::to_string(static_cast<int32_t>(params.sampleMode))
                + " is not kFILL, kCLAMP or kREFLECT");
    }
    if (output.count() == 0)
    {
        return;
    }
    int64_t const batch = input.shape[0];
    int64_t const channels = input.shape[1];
    int64_t const height = input.shape[2];
    int64_t const width = input.shape[3];
    if (height == 0 || width == 0)
    {
        fail(kKernel, "input has shape " + shapeText(input.shape) + "; it has no pixel to sample");
    }
    int64_t const points = grid.shape[1] * grid.shape[2];
    int64_t const plane = height * width;
    for (int64_t n = 0; n < batch; ++n)
    {
        for (int64_t p = 0; p < points; ++p)
        {
            int64_t const point = (n * points + p) * 2;
            AxisTaps const xTaps = axisTaps(readFloat(grid.data, grid.type, point), width, params);
            AxisTaps const yTaps = axisTaps(readFloat(grid.data, grid.type, point + 1), height, params);
            for (int64_t c = 0; c < channels; ++c)
            {
                int64_t const planeStart = (n * channels + c) * plane;
                double sum = 0.0;
                for (int i = 0; i < yTaps.count; ++i)
                {
                    for (int j = 0; j < xTaps.count; ++j)
                    {
                        bool const inside = yTaps.pixel[i] >= 0 && xTaps.pixel[j] >= 0;
                        double const value = inside
                            ? readFloat(input.data, input.type, planeStart + yTaps.pixel[i] * width + xTaps.pixel[j])
                            : 0.0;
                        sum += yTaps.weight[i] * xTaps.weight[j] * value;
                    }
                }
                writeFloat(output.data, output.type, (n * channels + c) * points + p, static_cast<float>(sum));
            }
        }
    }
}

void run(network::GridSampleParams const& p, LayerInputs const& in, LayerOutputs const& out)
{
    gridSample(in[0], in[1], out[0], p);
}

} // namespace kiln::cpu
