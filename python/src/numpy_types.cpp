#include "numpy_types.h"

#include <string>

namespace kiln::python
{

namespace py = pybind11;
using nvinfer1::DataType;

std::optional<DataType> dataTypeOf(py::dtype const& dtype)
{
    char const kind = dtype.kind();
    size_t const size = static_cast<size_t>(dtype.itemsize());
    if (kind == 'f' && size == 4)
    {
        return DataType::kFLOAT;
    }
    if (kind == 'f' && size == 2)
    {
        return DataType::kHALF;
    }
    if (kind == 'i' && size == 1)
    {
        return DataType::kINT8;
    }
    if (kind == 'i' && size == 4)
    {
        return DataType::kINT32;
    }
    if (kind == 'i' && size == 8)
    {
        return DataType::kINT64;
    }
    if (kind == 'u' && size == 1)
    {
        return DataType::kUINT8;
    }
    if (kind == 'b')
    {
        return DataType::kBOOL;
    }
    return std::nullopt;
}

py::dtype numpyTypeOf(DataType type)
{
    switch (type)
    {
    case DataType::kFLOAT: return py::dtype("float32");
    case DataType::kHALF: return py::dtype("float16");
    case DataType::kINT8: return py::dtype("int8");
    case DataType::kINT32: return py::dtype("int32");
    case DataType::kINT64: return py::dtype("int64");
    case DataType::kUINT8: return py::dtype("uint8");
    case DataType::kBOOL: return py::dtype("bool");
    default: break;
    }
    throw py::type_error("numpy has no type for DataType " + std::to_string(static_cast<int32_t>(type)));
}

size_t elementSize(DataType type)
{
    switch (type)
    {
    case DataType::kFLOAT:
    case DataType::kINT32: return 4;
    case DataType::kHALF:
    case DataType::kBF16: return 2;
    case DataType::kINT64: return 8;
    default: return 1;
    }
}

char const* bufferFormatOf(DataType type)
{
    switch (type)
    {
    case DataType::kFLOAT: return "f";
    case DataType::kHALF: return "e";
    case DataType::kINT8: return "b";
    case DataType::kINT32: return "i";
    case DataType::kINT64: return "q";
    case DataType::kBOOL: return "?";
    default: return "B";
    }
}

} // namespace kiln::python
