// Where ScatterND writes: the offset in `data` of the slice that one index tuple names, shared by the host kernel and
// the CUDA kernel.
#pragma once

#include "device_common/host_device.h"

#include <NvInferRuntimeBase.h>

#include <cstdint>

namespace kiln::plugins::scatter_nd
{

//! data [d0 ... d(r-1)], indices [i0 ... i(q-2), k], updates [i0 ... i(q-2), dk ... d(r-1)].
struct Geometry
{
    int32_t depth;                             //!< k: how many leading axes of data one index tuple names
    int64_t sliceCount;                        //!< i0 * ... * i(q-2): how many tuples
    int64_t sliceSize;                         //!< dk * ... * d(r-1): the elements one tuple writes
    int64_t dims[nvinfer1::Dims::MAX_DIMS];    //!< data's first k sizes
    int64_t strides[nvinfer1::Dims::MAX_DIMS]; //!< data's first k strides, in elements
};

//! The first element of the slice tuple `slice` names, or -1 when one of its indices lies outside [-d, d).
template <typename Index>
KILN_HOST_DEVICE int64_t sliceOffset(Geometry const& g, Index const* indices, int64_t slice, int32_t* badAxis)
{
    int64_t offset = 0;
    for (int32_t axis = 0; axis < g.depth; ++axis)
    {
        auto index = static_cast<int64_t>(indices[slice * g.depth + axis]);
        index = index < 0 ? index + g.dims[axis] : index; // ONNX counts negative indices from the end
        if (index < 0 || index >= g.dims[axis])
        {
            *badAxis = axis;
            return -1;
        }
        offset += index * g.strides[axis];
    }
    return offset;
}

} // namespace kiln::plugins::scatter_nd
