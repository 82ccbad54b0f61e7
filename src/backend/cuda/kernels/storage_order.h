// Walking broadcast operands in the order the output lies in memory. A channels-last (kHWC) output is stored
// [N, spatial..., C]; listing every tensor's axes in that order lets a kernel that indexes row-major (the point-wise
// chain, the element-wise layer) read a broadcast operand stored kHWC through plain strides: the squeeze-and-excitation
// scale [N, C, 1, 1] over [N, C, H, W] becomes [N, 1, C] over [N, H * W, C], channels innermost. Host code only.
#pragma once

#include "core/tensor_view.h"

#include <cstddef>

namespace kiln::cuda
{

//! The logical axis at storage position `position` (outermost first) of a tensor of `rank` axes stored in `format`:
//! storedAxisOrder(format, rank)[position], without allocating.
inline size_t storedAxisAt(TensorFormat format, size_t rank, size_t position)
{
    if (format != TensorFormat::kHWC || rank < 3 || position == 0)
    {
        return position;
    }
    return position == rank - 1 ? 1 : position + 1;
}

//! Whether a tensor of `shape` lies in memory alike in kLINEAR and kHWC: one channel, or no spatial extent above 1
//! (a per-channel scale [N, C, 1, 1]), so that moving the channels innermost moves no element.
inline bool storedAlikeChannelsLast(Shape const& shape)
{
    if (shape.size() < 3 || shape[1] == 1)
    {
        return true;
    }
    for (size_t axis = 2; axis < shape.size(); ++axis)
    {
        if (shape[axis] != 1)
        {
            return false;
        }
    }
    return true;
}

//! Whether `input` (broadcasting into `output`'s shape) can be walked in the output's storage order: it is stored in
//! the output's format, or alike in both (storedAlikeChannelsLast). Only kLINEAR and kHWC are orders; kHWC8 pads.
inline bool walksInStorageOrder(ConstTensorView const& input, TensorView const& output)
{
    bool const orders = (input.format == TensorFormat::kLINEAR || input.format == TensorFormat::kHWC)
        && (output.format == TensorFormat::kLINEAR || output.format == TensorFormat::kHWC);
    return orders && (input.format == output.format || storedAlikeChannelsLast(input.shape));
}

} // namespace kiln::cuda
