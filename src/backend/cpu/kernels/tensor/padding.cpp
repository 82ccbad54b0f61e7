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

//! The dim of the input that padding entry 0 applies to.
size_t firstPaddedDim(Shape const& input, network::PaddingParams const& params)
{
    int32_t const padded = params.prePadding.nbDims;
    if (params.postPadding.nbDims != padded || padded < 0 || static_cast<size_t>(padded) > input.size())
    {
        fail(kKernel,
            "prePadding and postPadding must have the same length, at most the rank " + std::to_string(input.size()));
    }
    return input.size() - static_cast<size_t>(padded);
}

} // namespace

Shape paddingOutputShape(Shape const& input, network::PaddingParams const& params)
{
    size_t const first = firstPaddedDim(input, params);
    Shape output = input;
    for (int32_t i = 0; i < params.prePadding.nbDims; ++i)
    {
        size_t const dim = first + static_cast<size_t>(i);
        output[dim] += params.prePadding.d[i] + params.postPadding.d[i];
        if (output[dim] < 0)
        {
            fail(kKernel, "cropping more than dim " + std::to_string(dim) + " holds");
        }
    }
    return output;
}

void padding(ConstTensorView const& input, TensorView const& output, network::PaddingParams const& params)
{
    padding(input, output, params, SampleMode::kFILL, 0.0);
}

void padding(ConstTensorView const& input, TensorView const& output, network::PaddingParams const& params,
    SampleMode mode, double fillValue)
{
    // A pad is a slice that starts before the input and samples outside it.
    size_t const first = firstPaddedDim(input.shape, params);
    expectShape(output.shape, paddingOutputShape(input.shape, params), kKernel, "output");
    Shape start(input.shape.size(), 0);
    for (int32_t i = 0; i < params.prePadding.nbDims; ++i)
    {
        start[first + static_cast<size_t>(i)] = -params.prePadding.d[i];
    }
    sampleWindow(input, output, start, Shape(input.shape.size(), 1), mode, fillValue);
}

void run(network::PaddingParams const& p, LayerInputs const& in, LayerOutputs const& out)
{
    padding(in[0], out[0], p);
}

} // namespace kiln::cpu
