// PluginFieldType, PluginField, PluginFieldCollection, TensorRTPhase and PluginCapabilityType. A field's size counts
// elements of its type, computed from the buffer's bytes, so that a numpy array of any shape describes its data.
#include "plugin_fields.h"
#include "bindings.h"

#include <pybind11/stl_bind.h>

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
        .def_readonly("data", &PyPluginField::data)
        .def_readonly("type", &PyPluginField::type)
        .def_readonly("size", &PyPluginField::size)
        .def("__repr__", [](PyPluginField const& field) {
            return "PluginField(" + field.name + ", " + py::str(py::cast(field.type)).cast<std::string>()
                + ", size=" + std::to_string(field.size) + ")";
        });

    py::bind_vector<PyPluginFieldCollection>(m, "PluginFieldCollection", "A list of PluginField.");
}

} // namespace kiln::python
