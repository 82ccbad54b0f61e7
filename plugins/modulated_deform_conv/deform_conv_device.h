// ModulatedDeformConv2d's device run (deform_conv_device.cpp).
#pragma once

#include "blas_handle.h"
#include "deform_conv_params.h"

namespace kiln::plugins
{

//! Runs the convolution of `shape` on the GPU; the workspace holds deformConvWorkspaceSize bytes.
void runDeformConvDevice(
    DeformConvShape const& shape, BlasHandle const& blas, PluginTensors const& io, cudaStream_t stream);

} // namespace kiln::plugins
