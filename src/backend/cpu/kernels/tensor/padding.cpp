#include "backend/cpu/kernels/tensor/padding.h"

#include "backend/cpu/kernels/layer_inputs.h"
#include "backend/cpu/kernels/tensor/shape_utils.h"
#include "backend/cpu/kernels/tensor/slice.h"

namespace kiln::cpu
{
namespace
{

using nvinfer1::SampleMode;
using namespace tensor_detail;

constexpr char const* kKernel = "padding";

//! The dim of the input that padding entry i applies to.
size_t firstPaddedDim(Shape const& input, Padding const& params)
{
    if (params.prePadding.size() != params.postPadding.size() || params.prePadding.size() > input.size())
    {
        fail(kKernel, "prePadding and postPadding must have the same length, at most the rank " +
                std::to_string(input.size()));
    }
    return input.size() - params.prePadding.size();
}

SampleMode sampleModeOf(PaddingMode mode)
{
    switch (mode)
    {
    case PaddingMode::kCONSTANT: return SampleMode::kFILL;
    case PaddingMode::kREFLECT: return SampleMode::kREFLECT;
    case PaddingMode::kEDGE: return SampleMode::kCLAMP;
    case PaddingMode::kWRAP: return SampleMode::kWRAP;
    }
    fail(kKernel, "unknown PaddingMode");
}

} // namespace

Shape paddingOutputShape(Shape const& input, Padding const& params)
{
    size_t const first = firstPaddedDim(input, params);
    Shape output = input;
    for (size_t i = 0; i < params.prePadding.size(); ++i)
    {
        output[first + i] += params.prePadding[i] + params.postPadding[i];
        if (output[first + i] < 0)
        {
            fail(kKernel, "cropping more than dim " + std::to_string(first + i) + " holds");
        }
    }
    return output;
}

void padding(ConstTensorView const& input, TensorView const& output, Padding const& params)
{
    // A pad is a slice that starts before the input and samples outside it.
    size_t const first = firstPaddedDim(input.shape, params);
    Slice window;
    window.start.assign(input.shape.size(), 0);
    window.size = paddingOutputShape(input.shape, params);
    window.stride.assign(input.shape.size(), 1);
    window.mode = sampleModeOf(params.mode);
    window.fillValue = params.value;
    for (size_t i = 0; i < params.prePadding.size(); ++i)
    {
        window.start[first + i] = -params.prePadding[i];
    }
    slice(input, output, window);
}

void run(network::PaddingParams const& p, LayerInputs const& in, LayerOutputs const& out)
{
    Padding params;
    params.prePadding = network::dimsToVector(p.prePadding);
    params.postPadding = network::dimsToVector(p.postPadding);
    padding(in[0], out[0], params);
}

} // namespace kiln::cpu
