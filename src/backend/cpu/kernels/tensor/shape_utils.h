// Shape arithmetic and strided iteration shared by the tensor-manipulation kernels.
#pragma once

#include "backend/shared/kernel_checks.h"
#include "core/dims_text.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace kiln::cpu::tensor_detail
{

// The checks both backends' kernels make (fail, normalizeAxis, expectShape, expectValidShape).
using backend::kernel_checks::expectShape;
using backend::kernel_checks::expectValidShape;
using backend::kernel_checks::fail;
using backend::kernel_checks::normalizeAxis;

//! Numpy broadcasting: shapes are aligned on the right, and an extent of 1 stretches to the other's.
inline Shape broadcastShapes(Shape const& a, Shape const& b, char const* kernel)
{
    size_t const rank = std::max(a.size(), b.size());
    Shape result(rank);
    for (size_t i = 0; i < rank; ++i)
    {
        int64_t const ea = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
        int64_t const eb = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
        if (ea != eb && ea != 1 && eb != 1)
        {
            fail(kernel, "shapes " + shapeText(a) + " and " + shapeText(b) + " do not broadcast");
        }
        result[i] = ea == 1 ? eb : ea;
    }
    return result;
}

//! Element strides that read `shape` as if broadcast to `target` (0 along stretched or missing dims).
inline Shape broadcastStrides(Shape const& shape, Shape const& target, char const* kernel)
{
    if (shape.size() > target.size())
    {
        fail(kernel, "cannot broadcast " + shapeText(shape) + " to " + shapeText(target));
    }
    Shape const dense = contiguousStrides(shape);
    size_t const offset = target.size() - shape.size();
    Shape strides(target.size(), 0);
    for (size_t i = 0; i < shape.size(); ++i)
    {
        if (shape[i] == target[i + offset])
        {
            strides[i + offset] = shape[i] == 1 ? 0 : dense[i];
        }
        else if (shape[i] != 1)
        {
            fail(kernel, "cannot broadcast " + shapeText(shape) + " to " + shapeText(target));
        }
    }
    return strides;
}

//! Calls body(offsets) for every index of `shape` in row-major order, where offsets[k] is the index's
//! dot product with strides[k]. Keeps the offsets up to date incrementally instead of recomputing them.
template <size_t N, typename Body>
void forEachIndex(Shape const& shape, std::array<Shape, N> const& strides, Body&& body)
{
    if (volume(shape) == 0)
    {
        return;
    }
    size_t const rank = shape.size();
    Shape index(rank, 0);
    std::array<int64_t, N> offsets{};
    while (true)
    {
        body(offsets);
        size_t dim = rank;
        while (dim > 0)
        {
            --dim;
            if (++index[dim] < shape[dim])
            {
                for (size_t k = 0; k < N; ++k)
                {
                    offsets[k] += strides[k][dim];
                }
                break;
            }
            for (size_t k = 0; k < N; ++k)
            {
                offsets[k] -= strides[k][dim] * (shape[dim] - 1);
            }
            index[dim] = 0;
            if (dim == 0)
            {
                return;
            }
        }
        if (rank == 0)
        {
            return;
        }
    }
}

} // namespace kiln::cpu::tensor_detail
