#include "backend/cpu/kernels/tensor/slice.h"

#include "backend/cpu/kernels/layer_inputs.h"
#include "backend/cpu/kernels/tensor/axis_gather_copy.h"
#include "backend/cpu/kernels/tensor/element_access.h"
#include "backend/cpu/kernels/tensor/shape_utils.h"

namespace kiln::cpu
{
namespace
{

using nvinfer1::SampleMode;
using namespace tensor_detail;

constexpr char const* kKernel = "slice";

int64_t positiveModulo(int64_t value, int64_t modulus)
{
    int64_t const remainder = value % modulus;
    return remainder < 0 ? remainder + modulus : remainder;
}

//! Start, size or stride: the shape-tensor input's run-time values when given, else the static dims.
Shape sliceParameter(LayerInputs const& inputs, size_t index, nvinfer1::Dims const& fixed)
{
    return hasInput(inputs, index) ? integerValues(inputs[index]) : network::dimsToVector(fixed);
}

} // namespace

int64_t sampleCoordinate(int64_t coordinate, int64_t extent, SampleMode mode)
{
    bool const inside = coordinate >= 0 && coordinate < extent;
    if (inside)
    {
        return coordinate;
    }
    if (mode == SampleMode::kFILL)
    {
        return -1;
    }
    if (mode == SampleMode::kSTRICT_BOUNDS)
    {
        fail(kKernel,
            "coordinate " + std::to_string(coordinate) + " is outside an axis of extent " + std::to_string(extent)
                + " in kSTRICT_BOUNDS mode");
    }
    if (extent == 0)
    {
        fail(kKernel, "cannot sample an empty axis except in kFILL mode");
    }
    switch (mode)
    {
    case SampleMode::kWRAP: return positiveModulo(coordinate, extent);
    case SampleMode::kCLAMP: return coordinate < 0 ? 0 : extent - 1;
    case SampleMode::kREFLECT:
    {
        if (extent == 1)
        {
            return 0;
        }
        int64_t const period = 2 * (extent - 1);
        int64_t const phase = positiveModulo(coordinate, period);
        return phase < extent ? phase : period - phase;
    }
    default: fail(kKernel, "unknown SampleMode " + std::to_string(static_cast<int32_t>(mode)));
    }
}

void slice(LayerInputs const& inputs, TensorView const& output, network::SliceParams const& params)
{
    ConstTensorView const& input = inputs[0];
    Shape const start = sliceParameter(inputs, 1, params.start);
    Shape const size = sliceParameter(inputs, 2, params.size);
    Shape const stride = sliceParameter(inputs, 3, params.stride);
    size_t const rank = input.shape.size();
    if (start.size() != rank || size.size() != rank || stride.size() != rank)
    {
        fail(kKernel,
            "start, size and stride must each have one entry per input dim (rank " + std::to_string(rank) + ")");
    }
    expectValidShape(size, kKernel, "size");
    expectShape(output.shape, size, kKernel, "output");
    sampleWindow(input, output, start, stride, params.mode, numberOr(inputs, 4, 0.0, kKernel));
}

void sampleWindow(ConstTensorView const& input, TensorView const& output, Shape const& start, Shape const& stride,
    SampleMode mode, double fillValue)
{
    size_t const rank = input.shape.size();
    if (start.size() != rank || stride.size() != rank || output.shape.size() != rank)
    {
        fail(kKernel,
            "start, stride and output must each have one entry per input dim (rank " + std::to_string(rank) + ")");
    }
    if (input.type != output.type)
    {
        fail(kKernel,
            std::string("input is ") + dataTypeName(input.type) + " but output is " + dataTypeName(output.type));
    }
    byteSizeOf(output.type, kKernel);
    if (output.count() == 0)
    {
        return;
    }
    std::vector<std::vector<int64_t>> sources(rank);
    for (size_t d = 0; d < rank; ++d)
    {
        // A plan or a shape tensor may hold any 64-bit start and stride: start + i * stride must not wrap around.
        // It moves one way as i grows, so the last coordinate fitting means every one does.
        int64_t last = 0;
        if (__builtin_mul_overflow(output.shape[d] - 1, stride[d], &last)
            || __builtin_add_overflow(last, start[d], &last))
        {
            fail(kKernel,
                "along axis " + std::to_string(d) + " the last coordinate, start " + std::to_string(start[d])
                    + " + (size " + std::to_string(output.shape[d]) + " - 1) * stride " + std::to_string(stride[d])
                    + ", does not fit in 64 bits");
        }
        sources[d].resize(static_cast<size_t>(output.shape[d]));
        for (int64_t i = 0; i < output.shape[d]; ++i)
        {
            sources[d][static_cast<size_t>(i)] = sampleCoordinate(start[d] + i * stride[d], input.shape[d], mode);
        }
    }
    // Only kFILL needs the value in the output type, so other modes also serve types encodeScalar lacks.
    std::array<uint8_t, 8> fill{};
    if (mode == SampleMode::kFILL)
    {
        fill = encodeScalar(output.type, fillValue);
    }
    copyByAxisTables(input, output, sources, fill.data());
}

void run(network::SliceParams const& p, LayerInputs const& in, LayerOutputs const& out)
{
    slice(in, out[0], p);
}

} // namespace kiln::cpu
