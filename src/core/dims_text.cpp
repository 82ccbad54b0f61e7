#include "core/dims_text.h"

namespace kiln
{
namespace
{

std::string joined(int64_t const* extents, size_t count, char const* separator)
{
    std::string text;
    for (size_t i = 0; i < count; ++i)
    {
        text += (i == 0 ? "" : separator) + std::to_string(extents[i]);
    }
    return text;
}

} // namespace

std::string dimsText(nvinfer1::Dims const& dims)
{
    return "(" + joined(dims.d, static_cast<size_t>(std::max(dims.nbDims, 0)), ", ") + ")";
}

std::string shapeText(Shape const& shape)
{
    return "[" + joined(shape.data(), shape.size(), ", ") + "]";
}

std::string dimsSpec(nvinfer1::Dims const& dims)
{
    return joined(dims.d, static_cast<size_t>(std::max(dims.nbDims, 0)), "x");
}

std::string shapeSpec(Shape const& shape)
{
    return joined(shape.data(), shape.size(), "x");
}

} // namespace kiln
