// Where a convolution's or deconvolution's kernel window falls, from the layer's parameters: the checks and
// defaults both layers share, on both backends (the CUDA backend describes the same window to cuDNN).
#pragma once

#include "backend/shared/sliding_window.h"
#include "network/layers/convolution.h"

namespace kiln::backend
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

//! Checks the parameters against inputShape [N, C, spatial...] and places the window.
//! Throws std::invalid_argument whose message starts with `layer`.
KernelGeometry resolveKernelGeometry(
    char const* layer, WindowDirection direction, Shape const& inputShape, network::WindowedFilterParams const& params);

} // namespace kiln::backend
