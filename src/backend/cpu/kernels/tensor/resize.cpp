#include "backend/cpu/kernels/tensor/resize.h"

#include "backend/cpu/kernels/layer_inputs.h"
#include "backend/cpu/kernels/tensor/axis_gather_copy.h"
#include "backend/cpu/kernels/tensor/element_access.h"
#include "backend/cpu/kernels/tensor/shape_utils.h"
#include "backend/shared/resize_geometry.h"

#include <cmath>

namespace kiln::cpu
{
namespace
{

using nvinfer1::InterpolationMode;
using nvinfer1::ResizeCoordinateTransformation;
using nvinfer1::ResizeRoundMode;
using nvinfer1::ResizeSelector;
using namespace tensor_detail;

constexpr char const* kKernel = "resize";

//! The input coordinate (fractional) that output coordinate x of dim d samples.
double sourceCoordinate(
    network::ResizeParams const& params, int64_t x, int64_t inExtent, int64_t outExtent, double scale)
{
    if (outExtent == 1 && params.selectorForSinglePixel == ResizeSelector::kUPPER)
    {
        return 0.0;
    }
    switch (params.coordinateTransformation)
    {
    case ResizeCoordinateTransformation::kHALF_PIXEL: return (static_cast<double>(x) + 0.5) / scale - 0.5;
    case ResizeCoordinateTransformation::kASYMMETRIC: return static_cast<double>(x) / scale;
    case ResizeCoordinateTransformation::kALIGN_CORNERS:
        return outExtent == 1
            ? 0.0
            : static_cast<double>(x) * static_cast<double>(inExtent - 1) / static_cast<double>(outExtent - 1);
    }
    fail(kKernel, "unknown ResizeCoordinateTransformation");
}

int64_t roundNearest(double coordinate, ResizeRoundMode mode)
{
    switch (mode)
    {
    case ResizeRoundMode::kHALF_UP: return static_cast<int64_t>(std::floor(coordinate + 0.5));
    case ResizeRoundMode::kHALF_DOWN: return static_cast<int64_t>(std::ceil(coordinate - 0.5));
    case ResizeRoundMode::kFLOOR: return static_cast<int64_t>(std::floor(coordinate));
    case ResizeRoundMode::kCEIL: return static_cast<int64_t>(std::ceil(coordinate));
    }
    fail(kKernel, "unknown ResizeRoundMode");
}

//! Cubic convolution weights of the neighbours at floor(x) - 1 .. floor(x) + 2, for t = x - floor(x).
std::array<double, 4> cubicWeights(double t, double a)
{
    auto nearWeight = [a](double d) { return ((a + 2.0) * d - (a + 3.0)) * d * d + 1.0; };      // |d| <= 1
    auto farWeight = [a](double d) { return ((a * d - 5.0 * a) * d + 8.0 * a) * d - 4.0 * a; }; // 1 < |d| < 2
    return {farWeight(t + 1.0), nearWeight(t), nearWeight(1.0 - t), farWeight(2.0 - t)};
}

//! The neighbours (input coordinate, weight) that each output coordinate of one dim blends.
struct AxisTaps
{
    std::vector<int64_t> first; //!< output coordinate o uses taps [first[o], first[o + 1])
    std::vector<int64_t> coordinate;
    std::vector<double> weight;
};

AxisTaps linearOrCubicTaps(network::ResizeParams const& params, int64_t inExtent, int64_t outExtent, double scale)
{
    bool const cubic = params.resizeMode == InterpolationMode::kCUBIC;
    AxisTaps taps;
    taps.first.push_back(0);
    for (int64_t o = 0; o < outExtent; ++o)
    {
        double const x = sourceCoordinate(params, o, inExtent, outExtent, scale);
        double const base = std::floor(x);
        double const t = x - base;
        std::array<double, 4> weights{1.0 - t, t, 0.0, 0.0};
        int64_t firstNeighbour = static_cast<int64_t>(base);
        int neighbours = 2;
        if (cubic)
        {
            weights = cubicWeights(t, params.cubicCoeff);
            firstNeighbour -= 1;
            neighbours = 4;
        }
        double kept = 0.0;
        size_t const begin = taps.coordinate.size();
        for (int n = 0; n < neighbours; ++n)
        {
            int64_t const c = firstNeighbour + n;
            bool const outside = c < 0 || c >= inExtent;
            if (weights[n] == 0.0 || (outside && params.excludeOutside))
            {
                continue;
            }
            taps.coordinate.push_back(std::clamp<int64_t>(c, 0, inExtent - 1));
            taps.weight.push_back(weights[n]);
            kept += weights[n];
        }
        if (params.excludeOutside && kept != 0.0)
        {
            for (size_t i = begin; i < taps.weight.size(); ++i)
            {
                taps.weight[i] /= kept;
            }
        }
        taps.first.push_back(static_cast<int64_t>(taps.coordinate.size()));
    }
    return taps;
}

// Sums weight * input over every combination of one tap per dim, for one output element.
struct TapBlender
{
    std::vector<AxisTaps> const& axes;
    Shape const& inputStrides;
    ConstTensorView const& input;
    Shape const& outputIndex;

    double blend(size_t dim, int64_t offset, double weight) const
    {
        if (dim == axes.size())
        {
            return weight * static_cast<double>(readFloat(input.data, input.type, offset));
        }
        AxisTaps const& taps = axes[dim];
        int64_t const o = outputIndex[dim];
        double sum = 0.0;
        for (int64_t t = taps.first[o]; t < taps.first[o + 1]; ++t)
        {
            sum += blend(dim + 1, offset + taps.coordinate[t] * inputStrides[dim], weight * taps.weight[t]);
        }
        return sum;
    }
};

void interpolate(ConstTensorView const& input, TensorView const& output, network::ResizeParams const& params,
    std::vector<double> const& scales)
{
    if (!isFloatType(input.type) || !isFloatType(output.type))
    {
        fail(kKernel, "kLINEAR and kCUBIC need FP32, FP16 or BF16 tensors");
    }
    if (input.count() == 0)
    {
        fail(kKernel, "cannot interpolate an empty input into a non-empty output");
    }
    std::vector<AxisTaps> axes;
    for (size_t d = 0; d < input.shape.size(); ++d)
    {
        axes.push_back(linearOrCubicTaps(params, input.shape[d], output.shape[d], scales[d]));
    }
    Shape const inputStrides = contiguousStrides(input.shape);
    Shape outputIndex(output.shape.size(), 0);
    TapBlender const blender{axes, inputStrides, input, outputIndex};
    int64_t const count = output.count();
    for (int64_t i = 0; i < count; ++i)
    {
        writeFloat(output.data, output.type, i, static_cast<float>(blender.blend(0, 0, 1.0)));
        for (size_t d = outputIndex.size(); d-- > 0;)
        {
            if (++outputIndex[d] < output.shape[d])
            {
                break;
            }
            outputIndex[d] = 0;
        }
    }
}

void nearest(ConstTensorView const& input, TensorView const& output, network::ResizeParams const& params,
    std::vector<double> const& scales)
{
    if (input.type != output.type)
    {
        fail(kKernel,
            std::string("input is ") + dataTypeName(input.type) + " but output is " + dataTypeName(output.type));
    }
    byteSizeOf(input.type, kKernel);
    if (input.count() == 0)
    {
        fail(kKernel, "cannot resize an empty input into a non-empty output");
    }
    std::vector<std::vector<int64_t>> sources(input.shape.size());
    for (size_t d = 0; d < input.shape.size(); ++d)
    {
        for (int64_t o = 0; o < output.shape[d]; ++o)
        {
            double const x = sourceCoordinate(params, o, input.shape[d], output.shape[d], scales[d]);
            sources[d].push_back(std::clamp<int64_t>(roundNearest(x, params.nearestRounding), 0, input.shape[d] - 1));
        }
    }
    copyByAxisTables(input, output, sources, nullptr);
}

} // namespace

void resize(LayerInputs const& inputs, TensorView const& output, network::ResizeParams const& params)
{
    ConstTensorView const& input = inputs[0];
    bool const hasShapeInput = hasInput(inputs, 1);
    Shape const expected = hasShapeInput ? backend::resizeOutputDimensions(input.shape, integerValues(inputs[1]))
                                         : backend::resizeOutputShape(input.shape, params);
    expectShape(output.shape, expected, kKernel, "output");
    if (output.count() == 0)
    {
        return;
    }
    std::vector<double> const scales = backend::resizeScales(params, hasShapeInput, input.shape, output.shape);
    if (params.resizeMode == InterpolationMode::kNEAREST)
    {
        nearest(input, output, params, scales);
    }
    else
    {
        interpolate(input, output, params, scales);
    }
}

void run(network::ResizeParams const& p, LayerInputs const& in, LayerOutputs const& out)
{
    resize(in, out[0], p);
}

} // namespace kiln::cpu
