// How a scatter reduction combines an element with an update, shared by the CPU reference and the CUDA kernel so
// that both compute the same values: floating-point types combine as float (the caller rounds once, on store),
// integers as int64 with two's complement wrapping (the caller's store wraps to the element's width). kMAX and kMIN
// return a NaN operand, as numpy's maximum and minimum do.
#pragma once

#include "core/data_type.h"

#include <kiln/ScatterReduction.h>

#include <cstdint>

namespace kiln::scatter_detail
{

KILN_HOST_DEVICE inline float combineFloats(ScatterReduction reduction, float element, float update)
{
    // x != x is the NaN test that host and device compilers both keep.
    bool const elementIsNan = element != element;
    bool const updateIsNan = update != update;
    switch (reduction)
    {
    case ScatterReduction::kADD: return element + update;
    case ScatterReduction::kMUL: return element * update;
    case ScatterReduction::kMAX: return elementIsNan ? element : (updateIsNan || update > element ? update : element);
    case ScatterReduction::kMIN: return elementIsNan ? element : (updateIsNan || update < element ? update : element);
    case ScatterReduction::kNONE: break;
    }
    return update;
}

KILN_HOST_DEVICE inline int64_t combineIntegers(ScatterReduction reduction, int64_t element, int64_t update)
{
    // Unsigned arithmetic wraps where signed overflow would be undefined.
    auto const a = static_cast<uint64_t>(element);
    auto const b = static_cast<uint64_t>(update);
    switch (reduction)
    {
    case ScatterReduction::kADD: return static_cast<int64_t>(a + b);
    case ScatterReduction::kMUL: return static_cast<int64_t>(a * b);
    case ScatterReduction::kMAX: return update > element ? update : element;
    case ScatterReduction::kMIN: return update < element ? update : element;
    case ScatterReduction::kNONE: break;
    }
    return update;
}

} // namespace kiln::scatter_detail
