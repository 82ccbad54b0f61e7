// trt.Weights from numpy arrays (numpy arrays convert implicitly wherever Weights are taken). The array is made
// contiguous and held by the Weights object; the network methods that take weights keep that object alive as long
// as the network (keep_alive), as TensorRT's Python API does.
#include "weights.h"
#include "bindings.h"
#include "numpy_types.h"

namespace kiln::python
{

py::object weightsToNumpy(nvinfer1::Weights const& weights, py::handle owner)
{
    if (weights.values == nullptr || weights.count == 0)
    {
        return py::none();
    }
    py::dtype const dtype = numpyTypeOf(weights.type);
    py::array view(dtype, {static_cast<py::ssize_t>(weights.count)}, {}, weights.values, owner);
    view.attr("setflags")(py::arg("write") = false);
    return view;
}

namespace
{

PyWeights fromArray(py::array const& source)
{
    py::array const values = py::module_::import("numpy").attr("ascontiguousarray")(source);
    std::optional<nvinfer1::DataType> const type = dataTypeOf(values.dtype());
    if (!type)
    {
        throw py::type_error("Weights cannot hold numpy dtype " + py::str(values.dtype()).cast<std::string>()
            + " (TensorRT has no such type; convert it, e.g. float64 to float32)");
    }
    PyWeights weights;
    weights.weights = nvinfer1::Weights{*type, values.data(), static_cast<int64_t>(values.size())};
    weights.owner = values;
    return weights;
}

} // namespace

void bindWeights(py::module_& m)
{
    py::class_<PyWeights>(m, "Weights", "Values of a layer (kernels, biases, constants), usually a numpy array.")
        .def(py::init([](nvinfer1::DataType type) {
            PyWeights weights;
            weights.weights.type = type;
            return weights;
        }),
            py::arg("type") = nvinfer1::DataType::kFLOAT, "Empty weights of a type.")
        .def(py::init(&fromArray), py::arg("a"), "Weights holding a numpy array's values (kept alive).")
        .def(py::init([](nvinfer1::DataType type, uintptr_t pointer, int64_t count) {
            PyWeights weights;
            weights.weights = nvinfer1::Weights{type, reinterpret_cast<void const*>(pointer), count};
            return weights;
        }),
            py::arg("type"), py::arg("ptr"), py::arg("count"),
            "Weights at an address the caller keeps valid while the network uses them.")
        .def_property_readonly("dtype", [](PyWeights const& self) { return self.weights.type; })
        .def_property_readonly("size", [](PyWeights const& self) { return self.weights.count; })
        .def_property_readonly("nbytes",
            [](PyWeights const& self) {
                return static_cast<size_t>(self.weights.count) * elementSize(self.weights.type);
            })
        .def(
            "numpy", [](py::object self) { return weightsToNumpy(self.cast<PyWeights const&>().weights, self); },
            "The values as a numpy array (a view; None for empty weights).")
        .def("__len__", [](PyWeights const& self) { return self.weights.count; });
    py::implicitly_convertible<py::array, PyWeights>();
}

} // namespace kiln::python
