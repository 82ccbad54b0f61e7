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

std::string dataTypeName(nvinfer1::DataType type)
{
    using nvinfer1::DataType;
    switch (type)
    {
    case DataType::kFLOAT: return "kFLOAT";
    case DataType::kHALF: return "kHALF";
    case DataType::kINT8: return "kINT8";
    case DataType::kINT32: return "kINT32";
    case DataType::kBOOL: return "kBOOL";
    case DataType::kUINT8: return "kUINT8";
    case DataType::kFP8: return "kFP8";
    case DataType::kBF16: return "kBF16";
    case DataType::kINT64: return "kINT64";
    case DataType::kINT4: return "kINT4";
    case DataType::kFP4: return "kFP4";
    case DataType::kE8M0: return "kE8M0";
    }
    return "DataType(" + std::to_string(static_cast<int32_t>(type)) + ")";
}

void requireFloatingPoint(ConstTensorView const& view, char const* what)
{
    if (!isFloatingPoint(view.type))
    {
        throw std::invalid_argument(std::string(what) + ": expected kFLOAT, kHALF or kBF16, got "
            + dataTypeName(view.type));
    }
}

std::string shapeToString(Shape const& shape)
{
    std::string text = "[";
    for (size_t i = 0; i < shape.size(); ++i)
    {
        text += (i == 0 ? "" : ", ") + std::to_string(shape[i]);
    }
    return text + "]";
}

void requireShape(Shape const& shape, Shape const& expected, char const* what)
{
    if (shape != expected)
    {
        throw std::invalid_argument(std::string(what) + ": shape " + shapeToString(shape) + ", expected "
            + shapeToString(expected));
    }
}

} // namespace kiln::cpu
