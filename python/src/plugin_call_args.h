// The arguments Kiln's C++ side hands the methods of plugins written in Python: C++ arrays as Python lists, and
// addresses as integers (the form TensorRT's Python API gives them in). GIL held.
#pragma once

#include <pybind11/pybind11.h>

#include <cstdint>

namespace kiln::python
{

template <typename T>
pybind11::list listOf(T const* items, int32_t count)
{
    pybind11::list list;
    for (int32_t i = 0; i < count; ++i)
    {
        list.append(pybind11::cast(items[i]));
    }
    return list;
}

inline pybind11::list addressesOf(void const* const* addresses, int32_t count)
{
    pybind11::list list;
    for (int32_t i = 0; i < count; ++i)
    {
        list.append(reinterpret_cast<uintptr_t>(addresses[i]));
    }
    return list;
}

} // namespace kiln::python
