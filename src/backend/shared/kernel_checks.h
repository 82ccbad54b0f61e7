// The host checks that kernels of both backends make before touching data: each throws std::invalid_argument whose
// message starts with the kernel's name and says what is wrong, as the CPU reference's conventions ask
// (backend/cpu/kernels/tensor/README.md). Shared so that a geometry both backends compute refuses alike.
#pragma once

#include "core/data_type.h"
#include "core/dims_text.h"

#include <cstdint>
#include <stdexcept>
#include <string>

namespace kiln::backend::kernel_checks
{

[[noreturn]] inline void fail(char const* kernel, std::string const& message)
{
    throw std::invalid_argument(std::string(kernel) + ": " + message);
}

//! Maps an axis in [-rank, rank) to [0, rank).
inline int32_t normalizeAxis(int64_t axis, int64_t rank, char const* kernel)
{
    if (axis < -rank || axis >= rank)
    {
        fail(kernel, "axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
    }
    return static_cast<int32_t>(axis < 0 ? axis + rank : axis);
}

inline void expectShape(Shape const& actual, Shape const& expected, char const* kernel, char const* what)
{
    if (actual != expected)
    {
        fail(kernel, std::string(what) + " has shape " + shapeText(actual) + ", expected " + shapeText(expected));
    }
}

inline void expectValidShape(Shape const& shape, char const* kernel, char const* what)
{
    for (int64_t extent : shape)
    {
        if (extent < 0)
        {
            fail(kernel, std::string(what) + " has a negative extent: " + shapeText(shape));
        }
    }
}

//! Throws unless the element size is one a byte-copying kernel handles.
inline size_t byteSizeOf(nvinfer1::DataType type, char const* kernel)
{
    size_t const size = elementSize(type);
    if (size == 0)
    {
        throw std::invalid_argument(
            std::string(kernel) + ": sub-byte type " + dataTypeName(type) + " is not supported");
    }
    return size;
}

} // namespace kiln::backend::kernel_checks
