// Dimensions and shapes as text, in the three spellings Kiln's messages use. Header-only, as core is but for logging
// (docs/architecture.md, "Layering").
#pragma once

#include "core/tensor_view.h"

#include <NvInferRuntimeBase.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

namespace kiln
{

namespace detail
{

inline std::string joined(int64_t const* extents, size_t count, char const* separator)
{
    std::string text;
    for (size_t i = 0; i < count; ++i)
    {
        text += (i == 0 ? "" : separator) + std::to_string(extents[i]);
    }
    return text;
}

} // namespace detail

//! "(1, 3, 224, 224)": dimensions as the API's messages print them.
inline std::string dimsText(nvinfer1::Dims const& dims)
{
    return "(" + detail::joined(dims.d, static_cast<size_t>(std::max(dims.nbDims, 0)), ", ") + ")";
}

//! "[1, 3, 224, 224]": a view's shape, as the kernels' messages print it.
inline std::string shapeText(Shape const& shape)
{
    return "[" + detail::joined(shape.data(), shape.size(), ", ") + "]";
}

//! "1x3x224x224": trtexec's spelling (its --shapes flag, and the keys of timing caches).
inline std::string dimsSpec(nvinfer1::Dims const& dims)
{
    return detail::joined(dims.d, static_cast<size_t>(std::max(dims.nbDims, 0)), "x");
}

inline std::string shapeSpec(Shape const& shape)
{
    return detail::joined(shape.data(), shape.size(), "x");
}

} // namespace kiln
