// Where a convolution's or deconvolution's kernel window falls, from the layer's
// parameters, and the operands read as float: the checks and defaults both layers share.
#pragma once

#include "backend/cpu/kernels/nn/sliding_window.h"
#include "network/layers/convolution.h"

#include <vector>

namespace kiln::cpu
{

//! Where the window falls for one input shape: stride and dilation with TensorRT's defaults filled in, and the
//! padding that the padding mode settles on.
struct KernelGeometry
{
    Shape stride;
    Shape dilation;
    WindowGeometry window;
    Shape outputShape; //!< [N, nbOutputMaps, spatial...]
};

enum class WindowDirection
{
    kFORWARD,    //!< convolution
    kTRANSPOSED, //!< deconvolution
};

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

//! Checks the parameters against inputShape [N, C, spatial...] and places the window.
//! Throws std::invalid_argument whose message starts with `layer`.
KernelGeometry resolveKernelGeometry(
    char const* layer, WindowDirection direction, Shape const& inputShape, network::WindowedFilterParams const& params);

} // namespace kiln::cpu
