// TensorRT's reformatting: a tensor copied into another type, another format, or both.
// The formats are kLINEAR (row-major), kHWC (the channel axis, 1, innermost) and kHWC8 (kHWC
// with the channels padded with zeros to a multiple of 8); the CUDA backend stores FP16
// convolution chains as kHWC, feeds an RGB image to them as kHWC8, and this is the reference
// for its copies.
#pragma once

#include "core/tensor_view.h"

namespace kiln::cpu
{

//! Whether Kiln stores tensors in `format`.
inline bool storedFormat(TensorFormat format)
{
    return format == TensorFormat::kLINEAR || channelsLast(format);
}

//! `input` into `output`, converting the type as cast() does and moving the channels where the formats differ.
//! Shapes must match; kHWC and kHWC8 need at least three axes ([N, C, spatial...]).
void reformat(ConstTensorView const& input, TensorView const& output);

//! The same element movement on raw memory: `batches` matrices of `rows` x `columns` elements of `elementBytes`
//! each, transposed. kLINEAR to kHWC is rows = C, columns = the spatial volume; kHWC to kLINEAR the reverse.
void transposeBatched(
    void const* input, void* output, int64_t batches, int64_t rows, int64_t columns, size_t elementBytes);

} // namespace kiln::cpu
