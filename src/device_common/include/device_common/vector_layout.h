// TensorRT's vector-major formats (kCHW4, kCHW32: INT8 plugins' layouts) as index arithmetic that host and device
// code share: the reformatters of both backends and the plugins that read such tensors.
//
// A tensor [outer..., C, H, W] in a vector-major format of V scalars per vector lies in memory as
// [outer...][ceil(C / V)][H][W][V]: element (o, c, s), s the position in H x W, sits at
// ((o * ceil(C / V) + c / V) * H * W + s) * V + c % V. The vectors of the last block of channels are padded (with
// zeros where Kiln writes them).
#pragma once

#include "device_common/host_device.h"

#include <cstdint>

namespace kiln
{

//! The extents of a tensor as a vector-major format sees it.
struct VectorLayout
{
    int64_t outer;    //!< the volume of the axes before the vectorized one
    int64_t channels; //!< the vectorized axis's extent, C
    int64_t inner;    //!< the volume of the two axes after it, H x W
    int64_t width;    //!< scalars per vector, V

    KILN_HOST_DEVICE int64_t vectors() const
    {
        return (channels + width - 1) / width;
    }
    //! The elements the tensor takes in memory, padding included.
    KILN_HOST_DEVICE int64_t storedCount() const
    {
        return outer * vectors() * inner * width;
    }
    //! Where element (o, c, s) lies in memory, in elements.
    KILN_HOST_DEVICE int64_t offset(int64_t o, int64_t c, int64_t s) const
    {
        return ((o * vectors() + c / width) * inner + s) * width + c % width;
    }
};

} // namespace kiln
