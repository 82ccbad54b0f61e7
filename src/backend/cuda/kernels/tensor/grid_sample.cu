// IGridSampleLayer on the GPU, as the CPU reference (backend/cpu/kernels/tensor/grid_sample.h): one thread per
// output element. Grid coordinates map to pixel coordinates in double, where that mapping is exact (a float grid
// value times an extent fits a double's mantissa), so nearest rounding, floors and the sample mode's placement
// decide exactly as on the CPU; weights and the blend are in float.
#include "backend/cuda/layer_kernels.h"

#include "backend/cuda/cuda_error.h"
#include "backend/cuda/kernels/device_access.cuh"
#include "backend/cuda/kernels/strided_index.cuh"
#include "core/dims_text.h"

#include <math_constants.h>

#include <stdexcept>
#include <string>

namespace kiln::cuda
{
namespace
{

using device::DataType;
using nvinfer1::InterpolationMode;
using nvinfer1::SampleMode;

constexpr char const* kKernel = "gridSample";
//! The cubic convolution coefficient A that ONNX GridSample uses.
constexpr float kCubicCoefficient = -0.75F;

//! The layer's modes, passed to the kernel by value.
struct Modes
{
    InterpolationMode interpolation;
    SampleMode sample;
    bool alignCorners;
};

//! The coordinates that count as inside an axis: the first and last pixel centres with alignCorners, else the
//! outer edges of those pixels.
struct AxisBounds
{
    double low;
    double high;
};

__device__ double pixelCoordinate(double g, int64_t extent, bool alignCorners)
{
    auto const pixels = static_cast<double>(extent);
    return alignCorners ? (g + 1.0) / 2.0 * (pixels - 1.0) : ((g + 1.0) * pixels - 1.0) / 2.0;
}

//! x folded back into [low, high] as often as it takes. The _rn intrinsics keep nvcc from fusing the steps into an
//! FMA, which would round differently from the CPU.
__device__ double reflect(double x, AxisBounds bounds)
{
    double const span = bounds.high - bounds.low;
    if (x >= bounds.low && x <= bounds.high)
    {
        return x;
    }
    if (isinf(x))
    {
        return CUDART_NAN;
    }
    if (span <= 0.0)
    {
        return bounds.low;
    }
    bool const below = x < bounds.low;
    double const distance = below ? bounds.low - x : x - bounds.high;
    double const folds = floor(distance / span);
    double const rest = __dsub_rn(distance, __dmul_rn(folds, span));
    // An even number of folds leaves x on the side of the bound it crossed; an odd number, on the other side.
    bool const evenFolds = fmod(folds, 2.0) == 0.0;
    return below == evenFolds ? bounds.low + rest : bounds.high - rest;
}

__device__ double placePoint(double x, int64_t extent, AxisBounds bounds, SampleMode mode)
{
    if (x >= bounds.low && x <= bounds.high)
    {
        return x;
    }
    switch (mode)
    {
    case SampleMode::kCLAMP: return fmin(fmax(x, 0.0), static_cast<double>(extent - 1));
    case SampleMode::kREFLECT: return reflect(x, bounds);
    default: return x;
    }
}

//! The pixel that neighbour coordinate c (a whole number) reads, or -1 for a zero outside the input.
__device__ int64_t neighbourPixel(double c, int64_t extent, AxisBounds bounds, SampleMode mode)
{
    auto const last = static_cast<double>(extent - 1);
    if (c >= 0.0 && c <= last)
    {
        return static_cast<int64_t>(c);
    }
    switch (mode)
    {
    case SampleMode::kCLAMP: return c < 0.0 ? 0 : extent - 1;
    case SampleMode::kREFLECT: return static_cast<int64_t>(fmin(fmax(reflect(c, bounds), 0.0), last));
    default: return -1;
    }
}

__device__ float cubicNear(float d) // |d| <= 1
{
    float const a = kCubicCoefficient;
    return ((a + 2.0F) * d - (a + 3.0F)) * d * d + 1.0F;
}

__device__ float cubicFar(float d) // 1 < |d| < 2
{
    float const a = kCubicCoefficient;
    return ((a * d - 5.0F * a) * d + 8.0F * a) * d - 4.0F * a;
}

//! The neighbours one grid point blends along one axis: pixel (-1 reads zero) and weight.
struct AxisTaps
{
    int count;
    int64_t pixel[4];
    float weight[4];
};

__device__ AxisTaps axisTaps(float normalized, int64_t extent, Modes modes)
{
    AxisBounds const bounds = modes.alignCorners ? AxisBounds{0.0, static_cast<double>(extent - 1)}
                                                 : AxisBounds{-0.5, static_cast<double>(extent) - 0.5};
    double x = pixelCoordinate(normalized, extent, modes.alignCorners);
    if (modes.interpolation == InterpolationMode::kNEAREST)
    {
        x = rint(x); // half to even, as ONNX specifies
    }
    x = placePoint(x, extent, bounds, modes.sample);
    AxisTaps taps{};
    if (!isfinite(x))
    {
        // An infinite point under kFILL reads a zero; a NaN one makes the output NaN.
        taps.count = 1;
        taps.pixel[0] = -1;
        taps.weight[0] = isnan(x) ? CUDART_NAN_F : 1.0F;
        return taps;
    }
    double const base = floor(x);
    auto const t = static_cast<float>(x - base);
    double first = base;
    switch (modes.interpolation)
    {
    case InterpolationMode::kNEAREST:
        taps.count = 1;
        taps.weight[0] = 1.0F;
        break;
    case InterpolationMode::kCUBIC:
        taps.count = 4;
        taps.weight[0] = cubicFar(t + 1.0F);
        taps.weight[1] = cubicNear(t);
        taps.weight[2] = cubicNear(1.0F - t);
        taps.weight[3] = cubicFar(2.0F - t);
        first = base - 1.0;
        break;
    default: // kLINEAR (the host rejects unknown modes)
        taps.count = 2;
        taps.weight[0] = 1.0F - t;
        taps.weight[1] = t;
        break;
    }
    for (int k = 0; k < taps.count; ++k)
    {
        taps.pixel[k] = neighbourPixel(first + k, extent, bounds, modes.sample);
    }
    return taps;
}

//! Output element i of [N, C, points]: the blend, for channel c, of the taps of grid point (n, point).
__global__ void gridSampleKernel(void const* input, void const* grid, void* output, DataType type, int64_t channels,
    int64_t height, int64_t width, int64_t points, int64_t count, Modes modes)
{
    KILN_GRID_STRIDE_LOOP(i, count)
    {
        int64_t const point = i % points;
        int64_t const plane = i / points; // n * channels + c
        int64_t const n = plane / channels;
        int64_t const gridIndex = (n * points + point) * 2;
        AxisTaps const xTaps = axisTaps(device::loadFloat(grid, type, gridIndex), width, modes);
        AxisTaps const yTaps = axisTaps(device::loadFloat(grid, type, gridIndex + 1), height, modes);
        int64_t const planeStart = plane * height * width;
        float sum = 0.0F;
        for (int r = 0; r < yTaps.count; ++r)
        {
            for (int s = 0; s < xTaps.count; ++s)
            {
                int64_t const offset = planeStart + yTaps.pixel[r] * width + xTaps.pixel[s];
                bool const inside = yTaps.pixel[r] >= 0 && xTaps.pixel[s] >= 0;
                float const value = inside ? device::loadFloat(input, type, offset) : 0.0F;
                sum += yTaps.weight[r] * xTaps.weight[s] * value;
            }
        }
        device::storeFloat(output, type, i, sum);
    }
}

[[noreturn]] void fail(std::string const& message)
{
    throw std::invalid_argument(std::string(kKernel) + ": " + message);
}

} // namespace

void run(network::GridSampleParams const& params, LayerInputs const& inputs, LayerOutputs const& outputs,
    cudaStream_t stream)
{
    ConstTensorView const& input = inputs[0];
    ConstTensorView const& grid = inputs[1];
    TensorView const& output = outputs[0];
    if (input.rank() != 4)
    {
        fail("input has shape " + shapeText(input.shape) + "; expected [N, C, H, W]");
    }
    if (grid.rank() != 4 || grid.shape[3] != 2 || grid.shape[0] != input.shape[0])
    {
        fail("grid has shape " + shapeText(grid.shape) + "; expected [" + std::to_string(input.shape[0])
            + ", H_out, W_out, 2]");
    }
    Shape const expected{input.shape[0], input.shape[1], grid.shape[1], grid.shape[2]};
    if (output.shape != expected)
    {
        fail("output has shape " + shapeText(output.shape) + ", expected " + shapeText(expected));
    }
    if (!isFloatType(input.type) || grid.type != input.type || output.type != input.type)
    {
        fail("input, grid and output must share one type of FLOAT, HALF or BF16");
    }
    int32_t const interpolation = static_cast<int32_t>(params.interpolationMode);
    if (interpolation < 0 || interpolation >= nvinfer1::EnumMax<InterpolationMode>())
    {
        fail("unknown InterpolationMode " + std::to_string(interpolation));
    }
    if (!network::GridSampleParams::isSupportedSampleMode(params.sampleMode))
    {
        fail("sample mode " + std::to_string(static_cast<int32_t>(params.sampleMode))
            + " is not kFILL, kCLAMP or kREFLECT");
    }
    int64_t const count = output.count();
    if (count == 0)
    {
        return;
    }
    if (input.shape[2] == 0 || input.shape[3] == 0)
    {
        fail("input has shape " + shapeText(input.shape) + "; it has no pixel to sample");
    }
    Modes const modes{params.interpolationMode, params.sampleMode, params.alignCorners};
    gridSampleKernel<<<device::blocksFor(count), device::kThreadsPerBlock, 0, stream>>>(input.data, grid.data,
        output.data, input.type, input.shape[1], input.shape[2], input.shape[3], grid.shape[1] * grid.shape[2], count,
        modes);
    check(cudaGetLastError(), "gridSample: launching the kernel");
}

} // namespace kiln::cuda
