// ITensor: a network's tensors, owned by the network (Python objects for them keep the network alive).
#include "bindings.h"
#include "dims_caster.h"

#include <NvInfer.h>

namespace kiln::python
{

void bindTensor(py::module_& m)
{
    using nvinfer1::ITensor;
    py::class_<ITensor, std::unique_ptr<ITensor, py::nodelete>>(m, "ITensor", "A tensor of a network.")
        .def_property("name", &ITensor::getName, &ITensor::setName)
        .def_property("shape", &ITensor::getDimensions, &ITensor::setDimensions,
            "The extents, -1 where known only at run time; settable on network inputs.")
        .def_property("dtype", &ITensor::getType, &ITensor::setType)
        .def_property("allowed_formats", &ITensor::getAllowedFormats, &ITensor::setAllowedFormats)
        .def_property_readonly("is_network_input", &ITensor::isNetworkInput)
        .def_property_readonly("is_network_output", &ITensor::isNetworkOutput)
        .def_property_readonly("is_shape_tensor", &ITensor::isShapeTensor)
        .def_property_readonly("is_execution_tensor", &ITensor::isExecutionTensor)
        .def("set_dimension_name", &ITensor::setDimensionName, py::arg("index"), py::arg("name"))
        .def("get_dimension_name", &ITensor::getDimensionName, py::arg("index"))
        .def("__repr__", [](ITensor const& self) {
            std::string const shape = py::repr(py::cast(self.getDimensions()));
            return "<ITensor " + std::string(self.getName()) + " " + shape + ">";
        });
}

} // namespace kiln::python
