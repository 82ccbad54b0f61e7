// ScatterElements' arithmetic, shared by the host kernel and the CUDA kernel: where an update lands, and how it
// combines with the element there.
#pragma once

#include "device_common/host_device.h"

#include <NvInferRuntimeBase.h>

#include <cstdint>

namespace kiln::plugins::scatter_elements
{

enum class Reduction : int32_t
{
    kNONE, //!< the update replaces the element
    kADD,
    kMUL,
    kMAX, //!< NaN wins, as in numpy's maximum and torch's amax
    kMIN,
};

//! data, indices and updates share a rank; indices and updates share a shape.
struct Geometry
{
    int32_t rank;
    int32_t axis;                                  //!< in [0, rank)
    int64_t indexDims[nvinfer1::Dims::MAX_DIMS];   //!< the shape of indices and updates
    int64_t dataStrides[nvinfer1::Dims::MAX_DIMS]; //!< in elements
    int64_t axisSize;                              //!< data's size along axis
};

//! The element of data that update `position` (a linear position in indices) lands on, or -1 when its index lies
//! outside [-axisSize, axisSize). ONNX counts negative indices from the end.
KILN_HOST_DEVICE inline int64_t targetOffset(Geometry const& g, int64_t position, int64_t index)
{
    index = index < 0 ? index + g.axisSize : index;
    if (index < 0 || index >= g.axisSize)
    {
        return -1;
    }
    int64_t offset = 0;
    for (int32_t d = g.rank - 1; d >= 0; --d)
    {
        int64_t const coordinate = position % g.indexDims[d];
        position /= g.indexDims[d];
        offset += (d == g.axis ? index : coordinate) * g.dataStrides[d];
    }
    return offset;
}

//! Floating-point types combine as float (rounded once per update when stored).
KILN_HOST_DEVICE inline float combine(Reduction reduction, float element, float update)
{
    switch (reduction)
    {
    case Reduction::kADD: return element + update;
    case Reduction::kMUL: return element * update;
    case Reduction::kMAX: return element != element || element > update ? element : update;
    case Reduction::kMIN: return element != element || element < update ? element : update;
    case Reduction::kNONE: break;
    }
    return update;
}

//! Integer types combine as int64 and wrap to their width (computed unsigned: signed overflow is undefined).
KILN_HOST_DEVICE inline int64_t combine(Reduction reduction, int64_t element, int64_t update)
{
    switch (reduction)
    {
    case Reduction::kADD: return static_cast<int64_t>(static_cast<uint64_t>(element) + static_cast<uint64_t>(update));
    case Reduction::kMUL: return static_cast<int64_t>(static_cast<uint64_t>(element) * static_cast<uint64_t>(update));
    case Reduction::kMAX: return element > update ? element : update;
    case Reduction::kMIN: return element < update ? element : update;
    case Reduction::kNONE: break;
    }
    return update;
}

} // namespace kiln::plugins::scatter_elements
