// The CPU backend's choice of tensor formats. oneDNN's convolutions on AVX-512 (brgconv, brdgmm) read and write
// channels-last data (it picks nhwc for every FP32 convolution there), so a convolution between row-major tensors
// converts its input and its output, which costs as much as the convolution itself on the 1x1 and depthwise
// convolutions of mobile networks. So the tensors that the fast path's convolutions write are stored kHWC (FP32, and
// those of its quantized convolutions, whose oneDNN kernels are channels-last too, where every reader takes them so:
// most of theirs are standalone Q and DQ layers of the reference kernels), and so are those of the layers whose kernels
// take them and continue a region (pooling, INT8 max pooling included, arithmetic, point-wise chains, activations,
// normalizations of whole samples: fast::channelsLastUse); a global average pooling reads them as they are and writes a
// row-major result. Each layer reads its tensors as stored where its kernel takes the format; other layers read
// kLINEAR, and the executor converts at the edges of a region. The network's I/O and debug tensors stay kLINEAR, as do
// tensors of one element per channel ([N, C, 1, 1]: the same bytes either way), and tensors that a plugin or a loop's
// or a conditional's boundary reads; and every tensor stays kLINEAR in a plan whose unfused tensors are debug tensors
// (markUnfusedTensorsAsDebugTensors, INT8 calibration), which a listener gets row-major. On a machine where oneDNN
// picks another layout, the convolutions convert as they did on row-major tensors.
#pragma once

#include "plan/plan_model.h"

namespace kiln::cpu
{

//! Sets the formats of `model`'s tensors and of the slots of each layer that reads or writes a channels-last one.
//! Runs after the fast path marked its layers.
void storeChannelsLast(plan::PlanModel& model);

} // namespace kiln::cpu
