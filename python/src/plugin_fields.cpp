// PluginFieldType, PluginField, PluginFieldCollection, TensorRTPhase and PluginCapabilityType. A field's size counts
// elements of its type, computed from the buffer's bytes, so that a numpy array of any shape describes its data.
#include "plugin_fields.h"
#include "bindings.h"

#include <pybind11/numpy.h>
#include <pybind11/stl_bind.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <vector>

namespace kiln::python
{

namespace
{

using nvinfer1::PluginFieldType;

size_t fieldElementSize(PluginFieldType type)
{
    switch (type)
    {
    case PluginFieldType::kFLOAT16:
    case PluginFieldType::kBF16:
    case PluginFieldType::kINT16: return 2;
    case PluginFieldType::kFLOAT32:
    case PluginFieldType::kINT32: return 4;
    case PluginFieldType::kFLOAT64:
    case PluginFieldType::kINT64: return 8;
    case PluginFieldType::kDIMS: return sizeof(nvinfer1::Dims);
    default: return 1;
    }
}

PyPluginField makeField(std::string name, py::buffer data, PluginFieldType type)
{
    py::buffer_info const info = data.request();
    // A creator reads the data as one run of bytes: a strided view (a slice) would be read wrongly.
    py::ssize_t expected = info.itemsize;
    for (py::ssize_t axis = info.ndim - 1; axis >= 0; --axis)
    {
        if (info.shape[axis] > 1 && info.strides[axis] != expected)
        {
            throw py::value_error("PluginField '" + name + "': data must be contiguous");
        }
        expected *= info.shape[axis];
    }
    size_t const bytes = static_cast<size_t>(info.size * info.itemsize);
    PyPluginField field;
    field.name = std::move(name);
    field.data = std::move(data);
    field.type = type;
    field.size = static_cast<int32_t>(bytes / fieldElementSize(type));
    return field;
}

//! The numpy dtype PluginField.data gives a field's data in: TensorRT's (UNKNOWN and CHAR as int8), and float16,
//! which numpy has too; nothing for the types numpy lacks.
std::optional<py::dtype> fieldDataDtype(PluginFieldType type)
{
    switch (type)
    {
    case PluginFieldType::kUNKNOWN:
    case PluginFieldType::kINT8:
    case PluginFieldType::kCHAR: return py::dtype::of<int8_t>();
    case PluginFieldType::kINT16: return py::dtype::of<int16_t>();
    case PluginFieldType::kINT32: return py::dtype::of<int32_t>();
    case PluginFieldType::kINT64: return py::dtype::of<int64_t>();
    case PluginFieldType::kFLOAT16: return py::dtype("float16");
    case PluginFieldType::kFLOAT32: return py::dtype::of<float>();
    case PluginFieldType::kFLOAT64: return py::dtype::of<double>();
    default: return std::nullopt;
    }
}

//! PluginField.data as TensorRT gives it: a new 1-D numpy array of the field's type holding its `size` elements (as
//! many as its buffer holds, if fewer); AttributeError for the types numpy lacks.
py::array fieldData(PyPluginField const& field)
{
    std::optional<py::dtype> const dtype = fieldDataDtype(field.type);
    if (!dtype)
    {
        throw py::attribute_error("PluginField '" + field.name + "': numpy has no type for "
            + py::str(py::cast(field.type)).cast<std::string>() + " data");
    }
    size_t const itemsize = static_cast<size_t>(dtype->itemsize());
    size_t available = 0;
    void const* source = nullptr;
    if (!field.data.is_none())
    {
        py::buffer_info const info = py::reinterpret_borrow<py::buffer>(field.data).request();
        available = static_cast<size_t>(info.size * info.itemsize) / itemsize;
        source = info.ptr;
    }
    size_t const count = std::min(available, static_cast<size_t>(std::max(field.size, 0)));
    py::array data(*dtype, std::vector<py::ssize_t>{static_cast<py::ssize_t>(count)});
    if (count > 0)
    {
        std::memcpy(data.mutable_data(), source, count * itemsize);
    }
    return data;
}

} // namespace

FieldsView::FieldsView(PyPluginFieldCollection const& fields)
{
    mBuffers.reserve(fields.size());
    mFields.reserve(fields.size());
    for (PyPluginField const& field : fields)
    {
        void const* data = nullptr;
        if (!field.data.is_none())
        {
            mBuffers.push_back(py::reinterpret_borrow<py::buffer>(field.data).request());
            data = mBuffers.back().ptr;
        }
        mFields.emplace_back(field.name.c_str(), data, field.type, field.size);
    }
    mCollection.nbFields = static_cast<int32_t>(mFields.size());
    mCollection.fields = mFields.data();
}

PyPluginFieldCollection describeFields(nvinfer1::PluginFieldCollection const* fields)
{
    PyPluginFieldCollection described;
    for (int32_t i = 0; fields != nullptr && i < fields->nbFields; ++i)
    {
        nvinfer1::PluginField const& field = fields->fields[i];
        described.push_back(
            PyPluginField{field.name != nullptr ? field.name : "", py::none(), field.type, field.length});
    }
    return described;
}

void bindPluginFields(py::module_& m)
{
    py::enum_<PluginFieldType>(m, "PluginFieldType", "The type of a plugin field's data.")
        .value("FLOAT16", PluginFieldType::kFLOAT16)
        .value("FLOAT32", PluginFieldType::kFLOAT32)
        .value("FLOAT64", PluginFieldType::kFLOAT64)
        .value("INT8", PluginFieldType::kINT8)
        .value("INT16", PluginFieldType::kINT16)
        .value("INT32", PluginFieldType::kINT32)
        .value("CHAR", PluginFieldType::kCHAR)
        .value("DIMS", PluginFieldType::kDIMS)
        .value("UNKNOWN", PluginFieldType::kUNKNOWN)
        .value("BF16", PluginFieldType::kBF16)
        .value("INT64", PluginFieldType::kINT64)
        .value("FP8", PluginFieldType::kFP8)
        .value("INT4", PluginFieldType::kINT4)
        .value("FP4", PluginFieldType::kFP4);

    py::enum_<nvinfer1::TensorRTPhase>(m, "TensorRTPhase", "When a V3 plugin is created: building or loading a plan.")
        .value("BUILD", nvinfer1::TensorRTPhase::kBUILD)
        .value("RUNTIME", nvinfer1::TensorRTPhase::kRUNTIME);

    py::enum_<nvinfer1::PluginCapabilityType>(m, "PluginCapabilityType", "The capabilities of a V3 plugin.")
        .value("CORE", nvinfer1::PluginCapabilityType::kCORE)
        .value("BUILD", nvinfer1::PluginCapabilityType::kBUILD)
        .value("RUNTIME", nvinfer1::PluginCapabilityType::kRUNTIME);

    py::class_<PyPluginField>(m, "PluginField", "A named plugin attribute; data is a buffer such as a numpy array.")
        .def(py::init([](std::string name) {
            return PyPluginField{std::move(name), py::none()};
        }),
            py::arg("name") = "")
        .def(py::init(&makeField), py::arg("name"), py::arg("data"), py::arg("type") = PluginFieldType::kUNKNOWN)
        .def_readonly("name", &PyPluginField::name)
        .def_property_readonly("data", &fieldData,
            "A numpy array of the field's type (int8 for UNKNOWN and CHAR), copied; AttributeError for types numpy "
            "lacks (BF16, FP8, INT4, FP4, DIMS).")
        .def_readonly("type", &PyPluginField::type)
        .def_readonly("size", &PyPluginField::size)
        .def("__repr__", [](PyPluginField const& field) {
            return "PluginField(" + field.name + ", " + py::str(py::cast(field.type)).cast<std::string>()
                + ", size=" + std::to_string(field.size) + ")";
        });

    py::bind_vector<PyPluginFieldCollection>(m, "PluginFieldCollection", "A list of PluginField.");
}

} // namespace kiln::python
