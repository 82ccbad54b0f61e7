// trt.PluginField and trt.PluginFieldCollection: named plugin attributes whose data is a Python buffer (usually a
// numpy array), and the C++ PluginFieldCollection a creator reads, valid while a FieldsView lives.
#pragma once

#include <NvInferRuntime.h>
#include <pybind11/pybind11.h>

#include <string>
#include <vector>

namespace kiln::python
{

struct PyPluginField
{
    std::string name;
    pybind11::object data; //!< a buffer, or None (the fields a creator lists carry no data)
    nvinfer1::PluginFieldType type{nvinfer1::PluginFieldType::kUNKNOWN};
    int32_t size{0}; //!< elements of `type` (bytes for kUNKNOWN), as PluginField::length counts them
};

using PyPluginFieldCollection = std::vector<PyPluginField>;

} // namespace kiln::python

// A Python list type of its own (bound in plugin_fields.cpp), never converted to and from a Python list.
PYBIND11_MAKE_OPAQUE(kiln::python::PyPluginFieldCollection)

namespace kiln::python
{

//! The C++ view of a Python collection, for one call into a creator.
class FieldsView
{
public:
    explicit FieldsView(PyPluginFieldCollection const& fields);
    nvinfer1::PluginFieldCollection const* collection() const
    {
        return &mCollection;
    }

private:
    std::vector<pybind11::buffer_info> mBuffers; // hold the buffers' memory while the creator reads it
    std::vector<nvinfer1::PluginField> mFields;
    nvinfer1::PluginFieldCollection mCollection{};
};

//! A Python collection describing the fields a creator lists (names, types and lengths, no data).
PyPluginFieldCollection describeFields(nvinfer1::PluginFieldCollection const* fields);

} // namespace kiln::python
