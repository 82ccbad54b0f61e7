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
        fail(kKernel, "coordinate " + std::to_string(coordinate) + " is outside an axis of extent " +
                std::to_string(extent) + " in kSTRICT_BOUNDS mode");
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

void slice(ConstTensorView const& input, TensorView const& output, Slice const& params)
{
    size_t const rank = input.shape.size();
    if (params.start.size() != rank || params.size.size() != rank || params.stride.size() != rank)
    {
        fail(kKernel, "start, size and stride must each have one entry per input dim (rank " + std::to_string(rank) +
                ")");
    }
    expectValidShape(params.size, kKernel, "size");
    expectShape(output.shape, params.size, kKernel, "output");
    if (input.type != output.type)
    {
        fail(kKernel, std::string("input is ") + dataTypeName(input.type) + " but output is " + dataTypeName(output.type));
    }
    byteSizeOf(output.type, kKernel);
    if (output.count() == 0)
    {
        return;
    }
    std::vector<std::vector<int64_t>> sources(rank);
    for (size_t d = 0; d < rank; ++d)
    {
        sources[d].resize(static_cast<size_t>(params.size[d]));
        for (int64_t i = 0; i < params.size[d]; ++i)
        {
            sources[d][static_cast<size_t>(i)]
                = sampleCoordinate(params.start[d] + i * params.stride[d], input.shape[d], params.mode);
        }
    }
    // Only kFILL needs the value in the output type, so other modes also serve types encodeScalar lacks.
    std::array<uint8_t, 8> fill{};
    if (params.mode == SampleMode::kFILL)
    {
        fill = encodeScalar(output.type, params.fillValue);
    }
    copyByAxisTables(input, output, sources, fill.data());
}

namespace
{

//! Slice start/size/stride: the shape-tensor input's run-time values when given, else the static dims.
Shape sliceParam(LayerInputs const& in, size_t index, nvinfer1::Dims const& fixed)
{
    return hasInput(in, index) ? integerValues(in[index]) : network::dimsToVector(fixed);
}

} // namespace

void run(network::SliceParams const& p, LayerInputs const& in, LayerOutputs const& out)
{
    Slice params;
    params.start = sliceParam(in, 1, p.start);
    params.size = out[0].shape; // inference resolved the size (static or from input 2)
    params.stride = sliceParam(in, 3, p.stride);
    params.mode = p.mode;
    if (hasInput(in, 4))
    {
        params.fillValue = numberAt(in[4], 0);
    }
    slice(in[0], out[0], params);
}

} // namespace kiln::cpu
