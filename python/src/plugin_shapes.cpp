// What Kiln hands a plugin written in Python while it builds and runs: shape expressions (IDimensionExpr, DimsExprs,
// IExprBuilder, DimensionOperation) and tensor descriptions (PluginTensorDesc, DynamicPluginTensorDesc), and the
// execution context's resources (IPluginResourceContext). Expressions belong to Kiln and are valid only during the
// call that received them, as in TensorRT.
#include "bindings.h"
#include "dims_caster.h"

#include <NvInferRuntime.h>
#include <pybind11/stl.h>

#include <algorithm>

namespace kiln::python
{

namespace
{

using nvinfer1::DimensionOperation;
using nvinfer1::DimsExprs;
using nvinfer1::DynamicPluginTensorDesc;
using nvinfer1::IDimensionExpr;
using nvinfer1::IExprBuilder;
using nvinfer1::PluginTensorDesc;

//! A Python index into a DimsExprs (negative counts from the end); IndexError outside it.
size_t dimsIndex(DimsExprs const& dims, int64_t index)
{
    int64_t const position = index < 0 ? index + dims.nbDims : index;
    if (position < 0 || position >= dims.nbDims)
    {
        throw py::index_error("DimsExprs index " + std::to_string(index) + " out of range for "
            + std::to_string(dims.nbDims) + " dimensions");
    }
    return static_cast<size_t>(position);
}

DimsExprs dimsOfLength(int32_t length)
{
    if (length < 0 || length > nvinfer1::Dims::MAX_DIMS)
    {
        throw py::value_error("DimsExprs: " + std::to_string(length) + " dimensions (0 to "
            + std::to_string(nvinfer1::Dims::MAX_DIMS) + " allowed)");
    }
    DimsExprs dims{};
    dims.nbDims = length;
    return dims;
}

void bindExpressions(py::module_& m)
{
    py::enum_<DimensionOperation>(m, "DimensionOperation", "An operation of IExprBuilder.operation.")
        .value("SUM", DimensionOperation::kSUM)
        .value("PROD", DimensionOperation::kPROD)
        .value("MAX", DimensionOperation::kMAX)
        .value("MIN", DimensionOperation::kMIN)
        .value("SUB", DimensionOperation::kSUB)
        .value("EQUAL", DimensionOperation::kEQUAL)
        .value("LESS", DimensionOperation::kLESS)
        .value("FLOOR_DIV", DimensionOperation::kFLOOR_DIV)
        .value("CEIL_DIV", DimensionOperation::kCEIL_DIV);

    // Kiln owns every expression: Python never deletes one.
    py::class_<IDimensionExpr, std::unique_ptr<IDimensionExpr, py::nodelete>>(m, "IDimensionExpr",
        "A dimension as an expression over the network's input dimensions; valid during the call that gave it.")
        .def("is_constant", &IDimensionExpr::isConstant)
        .def("get_constant_value", &IDimensionExpr::getConstantValue)
        .def("is_size_tensor", &IDimensionExpr::isSizeTensor);

    constexpr auto kKilnOwned = py::return_value_policy::reference;
    py::class_<IExprBuilder, std::unique_ptr<IExprBuilder, py::nodelete>>(
        m, "IExprBuilder", "Makes dimension expressions in get_output_shapes.")
        .def("constant", &IExprBuilder::constant, py::arg("value"), kKilnOwned)
        .def("operation", &IExprBuilder::operation, py::arg("op"), py::arg("first"), py::arg("second"), kKilnOwned,
            "The expression `first op second`; None for an invalid operation.")
        .def("declare_size_tensor", &IExprBuilder::declareSizeTensor, py::arg("output_index"), py::arg("opt"),
            py::arg("upper"), kKilnOwned);

    py::class_<DimsExprs>(m, "DimsExprs", "A shape as a list of IDimensionExpr.")
        .def(py::init([]() { return dimsOfLength(0); }))
        .def(py::init(&dimsOfLength), py::arg("length"), "A shape of `length` dimensions, none of them set yet.")
        .def(py::init([](std::vector<IDimensionExpr const*> const& extents) {
            DimsExprs dims = dimsOfLength(static_cast<int32_t>(extents.size()));
            std::copy(extents.begin(), extents.end(), dims.d);
            return dims;
        }),
            py::arg("extents"))
        .def(py::init([](DimsExprs const& other) { return other; }), py::arg("other"))
        .def("__len__", [](DimsExprs const& self) { return self.nbDims; })
        .def(
            "__getitem__", [](DimsExprs const& self, int64_t index) { return self.d[dimsIndex(self, index)]; },
            kKilnOwned)
        .def("__setitem__",
            [](DimsExprs& self, int64_t index, IDimensionExpr const* extent) {
                self.d[dimsIndex(self, index)] = extent;
            })
        .def("__repr__", [](DimsExprs const& self) {
            std::string text = "DimsExprs(";
            for (int32_t i = 0; i < self.nbDims; ++i)
            {
                IDimensionExpr const* extent = self.d[i];
                text += i > 0 ? ", " : "";
                text += extent == nullptr  ? "unset"
                    : extent->isConstant() ? std::to_string(extent->getConstantValue())
                                           : "?";
            }
            return text + ")";
        });
}

void bindTensorDescriptions(py::module_& m)
{
    py::class_<PluginTensorDesc>(m, "PluginTensorDesc", "An input or output of a plugin: shape, type and format.")
        .def(py::init([]() {
            return PluginTensorDesc{{}, nvinfer1::DataType::kFLOAT, nvinfer1::TensorFormat::kLINEAR, -1.0F};
        }))
        .def_property(
            "dims", [](PluginTensorDesc const& self) { return self.dims; },
            [](PluginTensorDesc& self, nvinfer1::Dims const& dims) { self.dims = dims; })
        .def_readwrite("type", &PluginTensorDesc::type)
        .def_readwrite("format", &PluginTensorDesc::format)
        .def_readwrite("scale", &PluginTensorDesc::scale)
        .def("__repr__", [](PluginTensorDesc const& self) {
            return "PluginTensorDesc(dims=" + py::repr(py::cast(self.dims)).cast<std::string>()
                + ", type=" + py::str(py::cast(self.type)).cast<std::string>() + ")";
        });

    // min, max and opt: the profile's bounds while building; desc.dims holds -1 where a dimension varies.
    auto dimsProperty = [](nvinfer1::Dims DynamicPluginTensorDesc::*member) {
        return py::cpp_function([member](DynamicPluginTensorDesc const& self) { return self.*member; });
    };
    auto dimsSetter = [](nvinfer1::Dims DynamicPluginTensorDesc::*member) {
        return py::cpp_function(
            [member](DynamicPluginTensorDesc& self, nvinfer1::Dims const& dims) { self.*member = dims; });
    };
    py::class_<DynamicPluginTensorDesc>(m, "DynamicPluginTensorDesc",
        "An input or output of a plugin while building: its description and the profile's bounds.")
        .def(py::init([]() { return DynamicPluginTensorDesc{}; }))
        .def_readwrite("desc", &DynamicPluginTensorDesc::desc)
        .def_property("min", dimsProperty(&DynamicPluginTensorDesc::min), dimsSetter(&DynamicPluginTensorDesc::min))
        .def_property("max", dimsProperty(&DynamicPluginTensorDesc::max), dimsSetter(&DynamicPluginTensorDesc::max))
        .def_property("opt", dimsProperty(&DynamicPluginTensorDesc::opt), dimsSetter(&DynamicPluginTensorDesc::opt));

    py::class_<nvinfer1::IPluginResourceContext, std::unique_ptr<nvinfer1::IPluginResourceContext, py::nodelete>>(
        m, "IPluginResourceContext", "What attach_to_context gives a plugin: its execution context's resources.");
}

} // namespace

void bindPluginShapes(py::module_& m)
{
    bindExpressions(m);
    bindTensorDescriptions(m);
}

} // namespace kiln::python
