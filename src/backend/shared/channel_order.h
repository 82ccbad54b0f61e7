// The storage formats Kiln keeps tensors in, and the element movement between them: kLINEAR (row-major), kHWC (the
// channel axis, 1, innermost) and kHWC8 (kHWC with the channels padded with zeros to a multiple of 8); and the
// vector-major kCHW4 and kCHW32 that INT8 plugins may read and write (device_common/vector_layout.h). Both backends'
// reformatters refuse the same formats; the CUDA backend moves a convolution's weights into channels-last on the host.
#pragma once

#include "core/tensor_view.h"
#include "device_common/vector_layout.h"

#include <cstddef>
#include <cstdint>

namespace kiln::backend
{

//! Whether Kiln stores tensors in `format`.
inline bool storedFormat(TensorFormat format)
{
    return format == TensorFormat::kLINEAR || channelsLast(format);
}

//! The scalars per vector of TensorRT's vector-major formats that Kiln reads and writes: 4 for kCHW4, 32 for kCHW32;
//! 0 for every other format. Plugins ask for them (INT8 tensors); no kernel of Kiln's stores a tensor so.
inline int64_t vectorWidth(TensorFormat format)
{
    return format == TensorFormat::kCHW4 ? 4 : format == TensorFormat::kCHW32 ? 32 : 0;
}

//! How a tensor of `shape` (at least three axes) lies in vector-major `format` (kCHW4 or kCHW32): TensorRT vectorizes
//! the third axis from the last, C of [..., C, H, W].
inline VectorLayout vectorLayout(Shape const& shape, TensorFormat format)
{
    size_t const axis = shape.size() - 3;
    Shape const outer(shape.begin(), shape.begin() + static_cast<std::ptrdiff_t>(axis));
    return VectorLayout{volume(outer), shape[axis], shape[axis + 1] * shape[axis + 2], vectorWidth(format)};
}

//! The elements a tensor of `shape` takes in memory in `format`: storedCount's, and the padding of the vectorized
//! axis to a multiple of 4 or 32 in kCHW4 and kCHW32.
inline int64_t reformattedCount(Shape const& shape, TensorFormat format)
{
    return vectorWidth(format) > 0 && shape.size() >= 3 ? vectorLayout(shape, format).storedCount()
                                                        : storedCount(shape, format);
}

//! Whether the reformatters convert to and from `format`: the formats Kiln stores tensors in, and the vector-major
//! kCHW4 and kCHW32 that plugins may ask for (only from and into kLINEAR, in the same type).
inline bool reformattedFormat(TensorFormat format)
{
    return storedFormat(format) || vectorWidth(format) > 0;
}

//! `rows` x `columns` elements of `elementBytes` each at `input` (its rows `inputRowStride` elements apart),
//! transposed into `output` (whose rows, the input's columns, lie `outputRowStride` elements apart), in host memory.
void transposeStrided(void const* input, int64_t inputRowStride, void* output, int64_t outputRowStride, int64_t rows,
    int64_t columns, size_t elementBytes);

//! `batches` matrices of `rows` x `columns` elements of `elementBytes` each, transposed, in host memory. kLINEAR to
//! kHWC is rows = C, columns = the spatial volume; kHWC to kLINEAR the reverse.
void transposeBatched(
    void const* input, void* output, int64_t batches, int64_t rows, int64_t columns, size_t elementBytes);

} // namespace kiln::backend
