#include "backend/cpu/kernels/nn/element_access.h"

#include <stdexcept>

namespace kiln::cpu
{

std::vector<float> loadAllAsFloat(ConstTensorView const& view)
{
    int64_t const count = view.count();
    std::vector<float> values(static_cast<size_t>(count));
    for (int64_t i = 0; i < count; ++i)
    {
        values[static_cast<size_t>(i)] = loadFloat(view, i);
    }
    return values;
}

void requireFloatingPoint(nvinfer1::DataType type, char const* what)
{
    if (!isFloatType(type))
    {
        throw std::invalid_argument(std::string(what) + ": expected kFLOAT, kHALF or kBF16, got " + dataTypeName(type));
    }
}

void requireShape(Shape const& shape, Shape const& expected, char const* what)
{
    if (shape != expected)
    {
        throw std::invalid_argument(
            std::string(what) + ": shape " + shapeText(shape) + ", expected " + shapeText(expected));
    }
}

} // namespace kiln::cpu
