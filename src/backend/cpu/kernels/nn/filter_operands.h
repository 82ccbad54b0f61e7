// A convolution's or deconvolution's operands read as float, after the checks both reference kernels make.
#pragma once

#include "core/tensor_view.h"
#include "network/layers/convolution.h"

#include <vector>

namespace kiln::cpu
{

//! A convolution's or deconvolution's operands, read as float.
struct FilterOperands
{
    std::vector<float> input;
    std::vector<float> kernel;
    std::vector<float> bias; //!< zeros where the layer has no bias
};

//! Checks the operands (the layer's kernel weights hold `kernelShape` worth of values, a bias one per output map,
//! the output is shaped `outputShape`, all are floating-point), naming `layer`, then reads them as float.
FilterOperands loadFilterOperands(char const* layer, network::WindowedFilterParams const& params,
    Shape const& kernelShape, Shape const& outputShape, ConstTensorView const& input, TensorView const& output);

} // namespace kiln::cpu
