// DCNv2's sampling, shared by the host kernel and the CUDA kernels: the deformable "im2col" element.
#pragma once

#include "deform_conv_params.h"

#include "common/bilinear_sample.h"

namespace kiln::plugins
{

//! Row (c * KH * KW + tap), column p = oh * OW + ow of image n's columns matrix: input channel c sampled at the
//! tap's position (oh * stride - pad + tap * dilation) moved by the offset, times the tap's mask. The offset holds
//! (dy, dx) pairs per deformable group and tap: channel 2 * (g * KH * KW + tap) is dy, the next dx.
template <typename T>
KILN_HOST_DEVICE inline float deformColumn(
    DeformConvShape const& s, T const* x, T const* offset, T const* mask, int64_t n, int64_t c, int64_t tap, int64_t p)
{
    int64_t const taps = s.kernelH * s.kernelW;
    int64_t const plane = s.outH * s.outW;
    int64_t const group = c / (s.inChannels / s.deformableGroup);
    int64_t const offsetAt = ((n * s.deformableGroup + group) * 2 * taps + 2 * tap) * plane + p;
    float const dy = static_cast<float>(offset[offsetAt]);
    float const dx = static_cast<float>(offset[offsetAt + plane]);
    float const modulation = static_cast<float>(mask[((n * s.deformableGroup + group) * taps + tap) * plane + p]);
    float const y = static_cast<float>((p / s.outW) * s.strideH - s.padH + (tap / s.kernelW) * s.dilationH) + dy;
    float const xPos = static_cast<float>((p % s.outW) * s.strideW - s.padW + (tap % s.kernelW) * s.dilationW) + dx;
    T const* image = x + (n * s.inChannels + c) * s.height * s.width;
    return modulation * sampleBilinear(image, s.height, s.width, 1, y, xPos);
}

} // namespace kiln::plugins
