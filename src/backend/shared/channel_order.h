// The storage formats Kiln keeps tensors in, and the element movement between them: kLINEAR (row-major), kHWC (the
// channel axis, 1, innermost) and kHWC8 (kHWC with the channels padded with zeros to a multiple of 8). Both backends'
// reformatters refuse the same formats; the CUDA backend moves a convolution's weights into channels-last on the host.
#pragma once

#include "core/tensor_view.h"

#include <cstddef>
#include <cstdint>

namespace kiln::backend
{

//! Whether Kiln stores tensors in `format`.
inline bool storedFormat(TensorFormat format)
{
    return format == TensorFormat::kLINEAR || channelsLast(format);
}

//! `batches` matrices of `rows` x `columns` elements of `elementBytes` each, transposed, in host memory. kLINEAR to
//! kHWC is rows = C, columns = the spatial volume; kHWC to kLINEAR the reverse.
void transposeBatched(
    void const* input, void* output, int64_t batches, int64_t rows, int64_t columns, size_t elementBytes);

} // namespace kiln::backend
