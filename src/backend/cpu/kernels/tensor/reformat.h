// TensorRT's reformatting: a tensor copied into another type, another format, or both.
// The formats are kLINEAR (row-major), kHWC (the channel axis, 1, innermost) and kHWC8 (kHWC
// with the channels padded with zeros to a multiple of 8); the CUDA backend stores FP16
// convolution chains as kHWC, feeds an RGB image to them as kHWC8, and this is the reference
// for its copies. Plugins may also read and write TensorRT's vector-major kCHW4 and kCHW32
// (device_common/vector_layout.h), converted from and into kLINEAR in the same type.
#pragma once

#include "core/tensor_view.h"

namespace kiln::cpu
{

//! `input` into `output`, converting the type as cast() does and moving the channels where the formats differ.
//! Shapes must match; kHWC and kHWC8 need at least three axes ([N, C, spatial...]). The formats it takes and its
//! element movement are backend/shared/channel_order.h's.
void reformat(ConstTensorView const& input, TensorView const& output);

} // namespace kiln::cpu
