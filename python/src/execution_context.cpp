// IExecutionContext. Tensor addresses and streams are plain integers, as in TensorRT's Python API: device pointers
// on the CUDA backend (torch's data_ptr(), cupy's data.ptr), host pointers on Kiln's CPU backend (a numpy array's
// ctypes.data), whose engines take stream 0. Runs release the GIL: they may log from worker threads.
#include "bindings.h"
#include "callbacks.h"
#include "dims_caster.h"
#include "error_capture.h"

#include <NvInferRuntime.h>
#include <kiln/CpuBackend.h>
#include <pybind11/stl.h>

#include <stdexcept>
#include <vector>

namespace kiln::python
{

namespace
{

using namespace nvinfer1;

cudaStream_t streamFrom(uintptr_t handle)
{
    return reinterpret_cast<cudaStream_t>(handle);
}

void bindAddresses(py::class_<IExecutionContext>& context)
{
    context
        .def(
            "set_tensor_address",
            [](IExecutionContext& self, std::string const& name, uintptr_t memory) {
                return self.setTensorAddress(name.c_str(), reinterpret_cast<void*>(memory));
            },
            py::arg("name"), py::arg("memory"), "Where a tensor is read or written; False for an unknown name.")
        .def(
            "get_tensor_address",
            [](IExecutionContext const& self, std::string const& name) {
                return reinterpret_cast<uintptr_t>(self.getTensorAddress(name.c_str()));
            },
            py::arg("name"))
        .def("set_input_shape", &IExecutionContext::setInputShape, py::arg("name"), py::arg("shape"),
            "The shape of an input with run-time extents; False if the name or shape is refused.")
        .def("get_tensor_shape", &IExecutionContext::getTensorShape, py::arg("name"),
            "The shape for the current input shapes; None for a name that is not an I/O tensor.")
        .def_property_readonly("all_input_dimensions_specified", &IExecutionContext::allInputDimensionsSpecified)
        .def("get_max_output_size", &IExecutionContext::getMaxOutputSize, py::arg("name"));
}

void bindRuns(py::class_<IExecutionContext>& context)
{
    context
        .def(
            "execute_async_v3",
            [](IExecutionContext& self, uintptr_t streamHandle) {
                py::gil_scoped_release release;
                return self.enqueueV3(streamFrom(streamHandle));
            },
            py::arg("stream_handle"), "Runs the network on a stream (0 on the CPU backend); False on failure.")
        .def(
            "execute_v2",
            [](IExecutionContext& self, std::vector<uintptr_t> const& bindings) {
                std::vector<void*> addresses;
                addresses.reserve(bindings.size());
                for (uintptr_t address : bindings)
                {
                    addresses.push_back(reinterpret_cast<void*>(address));
                }
                py::gil_scoped_release release;
                return self.executeV2(addresses.data());
            },
            py::arg("bindings"), "Runs synchronously; bindings are the I/O tensors' addresses in engine order.")
        .def(
            "set_optimization_profile_async",
            [](IExecutionContext& self, int32_t profile, uintptr_t streamHandle) {
                ErrorCapture const capture;
                if (!self.setOptimizationProfileAsync(profile, streamFrom(streamHandle)))
                {
                    throw std::runtime_error(
                        capture.explain("IExecutionContext.set_optimization_profile_async: profile "
                            + std::to_string(profile) + " was refused"));
                }
                return true;
            },
            py::arg("profile_index"), py::arg("stream_handle"))
        .def_property_readonly("active_optimization_profile", &IExecutionContext::getOptimizationProfile);
}

} // namespace

void bindExecutionContext(py::module_& m)
{
    py::class_<IExecutionContext> context(m, "IExecutionContext", "The state of one inference stream.");
    context.def_property_readonly("engine", &IExecutionContext::getEngine, py::return_value_policy::reference_internal)
        .def_property("name", &IExecutionContext::getName, &IExecutionContext::setName)
        .def_property(
            "kiln_cpu_threads", [](IExecutionContext const& self) { return kiln::getCpuThreads(self); },
            [](IExecutionContext& self, int32_t threads) {
                ErrorCapture const capture;
                if (!kiln::setCpuThreads(self, threads))
                {
                    throw std::invalid_argument(capture.explain("kiln_cpu_threads: refused"));
                }
            },
            "Kiln: the most threads a CPU context runs on (0: the cores available); a run takes one thread where that "
            "has timed faster (other work on the cores).");
    defineContextManager(context);
    bindContextCallbacks(context);
    bindAddresses(context);
    bindRuns(context);
}

} // namespace kiln::python
