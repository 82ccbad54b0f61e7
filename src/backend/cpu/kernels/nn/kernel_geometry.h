// Where a convolution's or deconvolution's kernel window falls, from the layer's
// parameters: the checks and defaults both layers share.
#pragma once

#include "backend/cpu/kernels/nn/sliding_window.h"

#include <NvInferLayerEnums.h>

#include <vector>

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

//! A convolution's or deconvolution's operands, read as float.
struct FilterOperands
{
    std::vector<float> input;
    std::vector<float> kernel;
    std::vector<float> bias; //!< zeros where the layer has no bias
};

//! Checks the operands' shapes (the kernel against `expectedKernel`, a bias against [outputMaps], the output
//! against `outputShape`) and floating-point types, naming `layer`, then reads them as float.
FilterOperands loadFilterOperands(char const* layer, Shape const& expectedKernel, Shape const& outputShape,
    int64_t outputMaps, ConstTensorView const& input, ConstTensorView const& kernel, ConstTensorView const& bias,
    TensorView const& output);

//! Checks the parameters against inputShape [N, C, spatial...] and places the window.
//! Throws std::invalid_argument whose message starts with `layer`.
KernelGeometry resolveKernelGeometry(
    char const* layer, WindowDirection direction, Shape const& inputShape, KernelWindowParams const& params);

} // namespace kiln::cpu
