// Where a convolution's or deconvolution's kernel window falls, from the layer's
// parameters: the checks and defaults both layers share.
#pragma once

#include "backend/cpu/kernels/nn/sliding_window.h"

#include <NvInferLayerEnums.h>

namespace kiln::cpu
{

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

//! The fields ConvolutionParams and DeconvolutionParams share.
struct KernelWindowParams
{
    int64_t nbOutputMaps;
    int64_t nbGroups;
    Shape const& kernelSize;
    Shape const& stride;
    Shape const& prePadding;
    Shape const& postPadding;
    Shape const& dilation;
    nvinfer1::PaddingMode paddingMode;
};

//! Checks the parameters against inputShape [N, C, spatial...] and places the window.
//! Throws std::invalid_argument whose message starts with `layer`.
KernelGeometry resolveKernelGeometry(
    char const* layer, WindowDirection direction, Shape const& inputShape, KernelWindowParams const& params);

} // namespace kiln::cpu
