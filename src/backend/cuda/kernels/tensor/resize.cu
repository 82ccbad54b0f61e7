// IResizeLayer on the GPU, as the CPU reference (backend/cpu/kernels/tensor/resize.h): kNEAREST with every
// rounding mode, kLINEAR and kCUBIC over every dim, each coordinate transformation, the single-pixel selector,
// the cubic coefficient and exclude-outside.
#include "backend/cuda/cuda_error.h"
#include "backend/cuda/kernels/device_access.cuh"
#include "backend/cuda/kernels/strided_index.cuh"
#include "backend/cuda/layer_kernels.h"
#include "backend/shared/resize_geometry.h"
#include "core/dims_text.h"

#include <stdexcept>
#include <string>
#include <vector>

namespace kiln::cuda
{
namespace
{

using device::DataType;
using nvinfer1::InterpolationMode;
using nvinfer1::ResizeCoordinateTransformation;
using nvinfer1::ResizeRoundMode;
using nvinfer1::ResizeSelector;

//! Everything a thread needs to map an output element to the input elements it reads, passed by value.
struct Geometry
{
    int32_t rank{0};
    int64_t inExtents[device::kMaxRank]{};
    int64_t outExtents[device::kMaxRank]{};
    int64_t inStrides[device::kMaxRank]{};
    double scales[device::kMaxRank]{}; //!< given, or out / in, computed on the host as the CPU does
    ResizeCoordinateTransformation transformation{ResizeCoordinateTransformation::kASYMMETRIC};
    ResizeSelector selector{ResizeSelector::kFORMULA};
    ResizeRoundMode rounding{ResizeRoundMode::kFLOOR};
    bool cubic{false};
    double cubicCoeff{-0.75};
    bool excludeOutside{false};
};

// The coordinate and weight arithmetic below is the CPU reference's, in double, operation for operation. Where
// nvcc could fuse a multiply and an add into an FMA (rounding once where the CPU rounds twice), the steps are
// written with the _rn intrinsics, which it never fuses: a weight the CPU computes as exactly 0 (a tap it skips) or
// a coordinate exactly on .5 (where nearest rounding decides) then comes out the same here.

//! The input coordinate (fractional) that output coordinate x of dim d samples.
__device__ double sourceCoordinate(Geometry const& g, int32_t d, int64_t x)
{
    int64_t const inExtent = g.inExtents[d];
    int64_t const outExtent = g.outExtents[d];
    if (outExtent == 1 && g.selector == ResizeSelector::kUPPER)
    {
        return 0.0;
    }
    switch (g.transformation)
    {
    case ResizeCoordinateTransformation::kHALF_PIXEL: return (static_cast<double>(x) + 0.5) / g.scales[d] - 0.5;
    case ResizeCoordinateTransformation::kALIGN_CORNERS:
        return outExtent == 1
            ? 0.0
            : static_cast<double>(x) * static_cast<double>(inExtent - 1) / static_cast<double>(outExtent - 1);
    default: return static_cast<double>(x) / g.scales[d]; // kASYMMETRIC (the host rejects unknown values)
    }
}

__device__ int64_t roundNearest(double coordinate, ResizeRoundMode mode)
{
    switch (mode)
    {
    case ResizeRoundMode::kHALF_UP: return static_cast<int64_t>(floor(coordinate + 0.5));
    case ResizeRoundMode::kHALF_DOWN: return static_cast<int64_t>(ceil(coordinate - 0.5));
    case ResizeRoundMode::kCEIL: return static_cast<int64_t>(ceil(coordinate));
    default: return static_cast<int64_t>(floor(coordinate)); // kFLOOR
    }
}

__device__ int64_t clampToExtent(int64_t c, int64_t extent)
{
    return c < 0 ? 0 : (c >= extent ? extent - 1 : c);
}

//! |d| <= 1: ((a + 2) d - (a + 3)) d d + 1.
__device__ double nearCubicWeight(double d, double a)
{
    double const slope = __dadd_rn(__dmul_rn(a + 2.0, d), -(a + 3.0));
    return __dadd_rn(__dmul_rn(__dmul_rn(slope, d), d), 1.0);
}

//! 1 < |d| < 2: ((a d - 5 a) d + 8 a) d - 4 a.
__device__ double farCubicWeight(double d, double a)
{
    double const first = __dadd_rn(__dmul_rn(a, d), -__dmul_rn(5.0, a));
    double const second = __dadd_rn(__dmul_rn(first, d), __dmul_rn(8.0, a));
    return __dadd_rn(__dmul_rn(second, d), -__dmul_rn(4.0, a));
}

//! The input elements (as offsets along one dim) that one output coordinate blends, and their weights.
struct Taps
{
    int32_t count{0};
    int64_t offset[4]{};
    double weight[4]{};
};

__device__ Taps axisTaps(Geometry const& g, int32_t d, int64_t o)
{
    double const x = sourceCoordinate(g, d, o);
    double const base = floor(x);
    double const t = x - base;
    double weights[4] = {1.0 - t, t, 0.0, 0.0};
    int64_t firstNeighbour = static_cast<int64_t>(base);
    int32_t neighbours = 2;
    if (g.cubic)
    {
        weights[0] = farCubicWeight(t + 1.0, g.cubicCoeff);
        weights[1] = nearCubicWeight(t, g.cubicCoeff);
        weights[2] = nearCubicWeight(1.0 - t, g.cubicCoeff);
        weights[3] = farCubicWeight(2.0 - t, g.cubicCoeff);
        firstNeighbour -= 1;
        neighbours = 4;
    }
    Taps taps;
    double kept = 0.0;
    for (int32_t n = 0; n < neighbours; ++n)
    {
        int64_t const c = firstNeighbour + n;
        bool const outside = c < 0 || c >= g.inExtents[d];
        if (weights[n] == 0.0 || (outside && g.excludeOutside))
        {
            continue; // as the CPU: zero weights are no taps, and outside ones are dropped with excludeOutside
        }
        taps.offset[taps.count] = clampToExtent(c, g.inExtents[d]) * g.inStrides[d];
        taps.weight[taps.count] = weights[n];
        kept += weights[n];
        ++taps.count;
    }
    if (g.excludeOutside && kept != 0.0)
    {
        for (int32_t n = 0; n < taps.count; ++n)
        {
            taps.weight[n] /= kept;
        }
    }
    return taps;
}

//! kNEAREST: each output element copies the input element at its rounded, clamped source coordinates.
template <typename T>
__global__ void nearestKernel(T const* input, T* output, Geometry g, int64_t count)
{
    KILN_GRID_STRIDE_LOOP(i, count)
    {
        int64_t rest = i;
        int64_t offset = 0;
        for (int32_t d = g.rank - 1; d >= 0; --d)
        {
            int64_t const o = rest % g.outExtents[d];
            rest /= g.outExtents[d];
            int64_t const c = roundNearest(sourceCoordinate(g, d, o), g.rounding);
            offset += clampToExtent(c, g.inExtents[d]) * g.inStrides[d];
        }
        output[i] = input[offset];
    }
}

//! kLINEAR and kCUBIC: each output element sums weight * input over every combination of one tap per dim (dims
//! the resize leaves alone have one tap of weight 1). The sums nest as the CPU's recursion does (the last dim's
//! taps summed first, that sum added into the next dim's, and so on) and the weight is multiplied dim 0 first, so
//! that the result is the CPU's to the bit, not just to rounding.
__global__ void interpolateKernel(
    void const* input, DataType inType, void* output, DataType outType, Geometry g, int64_t count)
{
    KILN_GRID_STRIDE_LOOP(i, count)
    {
        if (g.rank == 0)
        {
            device::storeFloat(output, outType, i, device::loadFloat(input, inType, 0));
            continue;
        }
        Taps taps[device::kMaxRank];
        bool anyEmpty = false;
        int64_t rest = i;
        for (int32_t d = g.rank - 1; d >= 0; --d)
        {
            taps[d] = axisTaps(g, d, rest % g.outExtents[d]);
            rest /= g.outExtents[d];
            anyEmpty = anyEmpty || taps[d].count == 0;
        }
        // partial[d]: the running sum over dim d's taps, for the taps picked in dims before d. A dim without taps
        // makes every sum empty: 0.
        double partial[device::kMaxRank] = {};
        int32_t pick[device::kMaxRank] = {};
        bool more = !anyEmpty;
        while (more)
        {
            double weight = 1.0;
            int64_t offset = 0;
            for (int32_t d = 0; d < g.rank; ++d)
            {
                weight = __dmul_rn(weight, taps[d].weight[pick[d]]);
                offset += taps[d].offset[pick[d]];
            }
            double const value = static_cast<double>(device::loadFloat(input, inType, offset));
            partial[g.rank - 1] = __dadd_rn(partial[g.rank - 1], __dmul_rn(weight, value));
            // The next combination, the last dim fastest; a dim whose taps are done hands its sum to the dim before.
            int32_t d = g.rank - 1;
            while (d >= 0 && ++pick[d] == taps[d].count)
            {
                pick[d] = 0;
                if (d > 0)
                {
                    partial[d - 1] = __dadd_rn(partial[d - 1], partial[d]);
                    partial[d] = 0.0;
                }
                --d;
            }
            more = d >= 0;
        }
        device::storeFloat(output, outType, i, static_cast<float>(partial[0]));
    }
}

//! `params` as cpu::resize takes them; hasShapeInput: whether input 1 (in device memory) gave the output shape, which
//! the executor then already resolved into the output's. kNEAREST copies any byte-addressable type; kLINEAR and
//! kCUBIC read and write FP32/FP16/BF16 and blend in double, adding in the CPU's order so that results are its own to
//! the bit. Throws std::invalid_argument for what the CPU reference refuses.
void resizeOnDevice(network::ResizeParams const& params, bool hasShapeInput, ConstTensorView const& input,
    TensorView const& output, cudaStream_t stream)
{
    // The CPU reference's own shape rules (it throws for inconsistent parameters).
    Shape const expected = hasShapeInput ? backend::resizeOutputDimensions(input.shape, output.shape)
                                         : backend::resizeOutputShape(input.shape, params);
    if (output.shape != expected)
    {
        throw std::invalid_argument(
            "resize: output has shape " + shapeText(output.shape) + ", expected " + shapeText(expected));
    }
    if (input.rank() > device::kMaxRank)
    {
        throw std::invalid_argument("resize: the CUDA backend takes tensors of rank at most 8");
    }
    auto const transformation = static_cast<int32_t>(params.coordinateTransformation);
    if (transformation < 0 || transformation >= nvinfer1::EnumMax<ResizeCoordinateTransformation>())
    {
        throw std::invalid_argument("resize: unknown ResizeCoordinateTransformation");
    }
    int64_t const count = output.count();
    if (count == 0)
    {
        return;
    }
    if (input.count() == 0)
    {
        throw std::invalid_argument("resize: cannot resize an empty input into a non-empty output");
    }
    Geometry g;
    g.rank = input.rank();
    std::vector<int64_t> const strides = device::rowMajorStrides(input.shape);
    std::vector<double> const scales = backend::resizeScales(params, hasShapeInput, input.shape, output.shape);
    for (int32_t d = 0; d < g.rank; ++d)
    {
        auto const axis = static_cast<size_t>(d);
        g.inExtents[d] = input.shape[axis];
        g.outExtents[d] = output.shape[axis];
        g.inStrides[d] = strides[axis];
        g.scales[d] = scales[axis];
    }
    g.transformation = params.coordinateTransformation;
    g.selector = params.selectorForSinglePixel;
    g.rounding = params.nearestRounding;
    g.cubic = params.resizeMode == InterpolationMode::kCUBIC;
    g.cubicCoeff = static_cast<double>(params.cubicCoeff);
    g.excludeOutside = params.excludeOutside;
    if (params.resizeMode == InterpolationMode::kNEAREST)
    {
        auto const rounding = static_cast<int32_t>(params.nearestRounding);
        if (rounding < 0 || rounding >= nvinfer1::EnumMax<ResizeRoundMode>())
        {
            throw std::invalid_argument("resize: unknown ResizeRoundMode");
        }
        if (input.type != output.type)
        {
            throw std::invalid_argument("resize: kNEAREST needs the same input and output types");
        }
        device::withElementOfSize(elementSize(input.type), "resize", [&](auto element) {
            using T = decltype(element);
            nearestKernel<T><<<device::blocksFor(count), device::kThreadsPerBlock, 0, stream>>>(
                static_cast<T const*>(input.data), static_cast<T*>(output.data), g, count);
        });
    }
    else if (params.resizeMode == InterpolationMode::kLINEAR || params.resizeMode == InterpolationMode::kCUBIC)
    {
        if (!isFloatType(input.type) || !isFloatType(output.type))
        {
            throw std::invalid_argument("resize: kLINEAR and kCUBIC need FP32, FP16 or BF16 tensors");
        }
        interpolateKernel<<<device::blocksFor(count), device::kThreadsPerBlock, 0, stream>>>(
            input.data, input.type, output.data, output.type, g, count);
    }
    else
    {
        throw std::invalid_argument("resize: unknown InterpolationMode");
    }
    check(cudaGetLastError(), "resize: launching the kernel");
}

} // namespace

void run(
    network::ResizeParams const& params, LayerInputs const& inputs, LayerOutputs const& outputs, cudaStream_t stream)
{
    bool const hasShapeInput = inputs.size() > 1 && inputs[1].data != nullptr;
    resizeOnDevice(params, hasShapeInput, inputs[0], outputs[0], stream);
}

} // namespace kiln::cuda
