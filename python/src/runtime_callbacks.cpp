// What a run calls back: trt.IOutputAllocator, trt.IProfiler and trt.IDebugListener written in Python, with the
// execution context's calls that take them (set_output_allocator, profiler, set_debug_listener) and its memory and
// debug-state calls. The context keeps each object alive (keep_alive), as TensorRT's Python API does; Kiln calls them
// from runs that released the GIL, so every call takes it (callbacks.h).
#include "callbacks.h"
#include "dims_caster.h"

namespace kiln::python
{

namespace
{

using nvinfer1::DataType;
using nvinfer1::Dims;
using nvinfer1::IDebugListener;
using nvinfer1::IExecutionContext;
using nvinfer1::IOutputAllocator;
using nvinfer1::IProfiler;
using nvinfer1::TensorLocation;

uintptr_t addressOf(void const* pointer)
{
    return reinterpret_cast<uintptr_t>(pointer);
}

//! An address a Python method returned: an int, or None / 0 for no memory.
void* pointerFrom(py::object const& returned)
{
    return returned.is_none() ? nullptr : reinterpret_cast<void*>(returned.cast<uintptr_t>());
}

//! trt.IOutputAllocator: reallocate_output(tensor_name, memory, size, alignment) -> address, optionally
//! reallocate_output_async(..., stream) (called instead where the class defines it), and notify_shape(tensor_name,
//! shape). A method that raises or returns no memory fails the run.
class PyOutputAllocator : public IOutputAllocator
{
public:
    void* reallocateOutput(char const* tensorName, void* currentMemory, uint64_t size, uint64_t alignment) override
    {
        return callBack(self(), "IOutputAllocator", "reallocate_output", static_cast<void*>(nullptr),
            [&](py::function const& method) {
                return pointerFrom(method(tensorName, addressOf(currentMemory), size, alignment));
            });
    }
    void* reallocateOutputAsync(
        char const* tensorName, void* currentMemory, uint64_t size, uint64_t alignment, cudaStream_t stream) override
    {
        bool hasAsync = false;
        if (pythonIsRunning())
        {
            py::gil_scoped_acquire gil;
            hasAsync = static_cast<bool>(py::get_override(self(), "reallocate_output_async"));
        }
        if (!hasAsync)
        {
            return reallocateOutput(tensorName, currentMemory, size, alignment);
        }
        return callBack(self(), "IOutputAllocator", "reallocate_output_async", static_cast<void*>(nullptr),
            [&](py::function const& method) {
                return pointerFrom(method(tensorName, addressOf(currentMemory), size, alignment, addressOf(stream)));
            });
    }
    void notifyShape(char const* tensorName, Dims const& dims) override
    {
        callBack(self(), "IOutputAllocator", "notify_shape", false, [&](py::function const& method) {
            method(tensorName, dims);
            return true;
        });
    }

private:
    IOutputAllocator const* self() const
    {
        return this;
    }
};

//! trt.IProfiler: report_layer_time(layer_name, ms), after each run (kiln.tensorrt.Profiler prints them).
class PyProfiler : public IProfiler
{
public:
    void reportLayerTime(char const* layerName, float ms) override
    {
        callBack(static_cast<IProfiler const*>(this), "IProfiler", "report_layer_time", false,
            [&](py::function const& method) {
                method(layerName, ms);
                return true;
            });
    }
};

//! trt.IDebugListener: process_debug_tensor(addr, location, type, shape, name, stream). Kiln's engines have no debug
//! tensors yet, so Kiln keeps a listener but never calls it.
class PyDebugListener : public IDebugListener
{
public:
    bool processDebugTensor(void const* addr, TensorLocation location, DataType type, Dims const& shape,
        char const* name, cudaStream_t stream) override
    {
        return callBack(static_cast<IDebugListener const*>(this), "IDebugListener", "process_debug_tensor", false,
            [&](py::function const& method) {
                method(addressOf(addr), location, type, shape, name, addressOf(stream));
                return true;
            });
    }
};

void bindOutputAllocators(py::class_<IExecutionContext>& context)
{
    context
        .def(
            "set_output_allocator",
            [](IExecutionContext& self, std::string const& name, IOutputAllocator* allocator) {
                return self.setOutputAllocator(name.c_str(), allocator);
            },
            py::arg("name"), py::arg("output_allocator"), py::keep_alive<1, 3>(),
            "The IOutputAllocator that gives output `name` its memory in later runs (None: the address set with "
            "set_tensor_address); kept alive with the context. False for a name that is not an output.")
        .def(
            "get_output_allocator",
            [](IExecutionContext const& self, std::string const& name) {
                return self.getOutputAllocator(name.c_str());
            },
            py::arg("name"), py::return_value_policy::reference);
}

void bindProfiling(py::class_<IExecutionContext>& context)
{
    context
        .def_property("profiler",
            py::cpp_function(
                [](IExecutionContext const& self) { return self.getProfiler(); }, py::return_value_policy::reference),
            py::cpp_function([](IExecutionContext& self, IProfiler* profiler) { self.setProfiler(profiler); },
                py::keep_alive<1, 2>()),
            "The IProfiler later runs report layer times to (None: none); kept alive with the context.")
        .def_property("enqueue_emits_profile", &IExecutionContext::getEnqueueEmitsProfile,
            &IExecutionContext::setEnqueueEmitsProfile)
        .def("report_to_profiler", &IExecutionContext::reportToProfiler, py::call_guard<py::gil_scoped_release>(),
            "Reports the last run's layer times to the profiler; False if there is none.");
}

void bindDebugState(py::class_<IExecutionContext>& context)
{
    context
        .def(
            "set_debug_listener",
            [](IExecutionContext& self, IDebugListener* listener) { return self.setDebugListener(listener); },
            py::arg("listener"), py::keep_alive<1, 2>(),
            "The IDebugListener given the values of debug tensors whose state is on (kept alive with the context).")
        .def("get_debug_listener", &IExecutionContext::getDebugListener, py::return_value_policy::reference)
        .def(
            "set_tensor_debug_state",
            [](IExecutionContext& self, std::string const& name, bool flag) {
                return self.setTensorDebugState(name.c_str(), flag);
            },
            py::arg("name"), py::arg("flag"))
        .def("set_all_tensors_debug_state", &IExecutionContext::setAllTensorsDebugState, py::arg("flag"))
        .def(
            "get_debug_state",
            [](IExecutionContext const& self, std::string const& name) { return self.getDebugState(name.c_str()); },
            py::arg("name"))
        .def_property("unfused_tensors_debug_state", &IExecutionContext::getUnfusedTensorsDebugState,
            &IExecutionContext::setUnfusedTensorsDebugState)
        .def_property("debug_sync", &IExecutionContext::getDebugSync, &IExecutionContext::setDebugSync);
}

void bindContextMemory(py::class_<IExecutionContext>& context)
{
    context
        .def(
            "set_device_memory",
            [](IExecutionContext& self, uintptr_t memory, int64_t size) {
                self.setDeviceMemoryV2(reinterpret_cast<void*>(memory), size);
            },
            py::arg("memory"), py::arg("size"),
            "Gives a USER_MANAGED context its memory (device memory on CUDA, host memory on Kiln's CPU backend); "
            "memory Kiln cannot take is refused with the reason logged.")
        .def_property(
            "device_memory", [](IExecutionContext const&) { return py::none(); },
            [](IExecutionContext& self, uintptr_t memory) { self.setDeviceMemory(reinterpret_cast<void*>(memory)); },
            "Write-only (TensorRT 10.1 deprecates it): set_device_memory without the size.")
        .def("update_device_memory_size_for_shapes", &IExecutionContext::updateDeviceMemorySizeForShapes)
        .def(
            "get_tensor_strides",
            [](IExecutionContext const& self, std::string const& name) { return self.getTensorStrides(name.c_str()); },
            py::arg("name"), "Strides in elements of an I/O tensor's current shape; None for an unknown name.");
}

} // namespace

void bindRunCallbacks(py::module_& m)
{
    py::enum_<TensorLocation>(m, "TensorLocation", "Where a tensor's memory is: the device or the host.")
        .value("DEVICE", TensorLocation::kDEVICE)
        .value("HOST", TensorLocation::kHOST);
    py::class_<IOutputAllocator, PyOutputAllocator>(m, "IOutputAllocator",
        "Gives outputs their memory while a context runs. Subclasses call IOutputAllocator.__init__(self) and "
        "implement reallocate_output(tensor_name, memory, size, alignment) -> address (or "
        "reallocate_output_async(..., stream)) and notify_shape(tensor_name, shape).")
        .def(py::init<>());
    py::class_<IProfiler, PyProfiler>(m, "IProfiler",
        "Receives each layer's time after a run. Subclasses call IProfiler.__init__(self) and implement "
        "report_layer_time(layer_name, ms).")
        .def(py::init<>());
    py::class_<IDebugListener, PyDebugListener>(m, "IDebugListener",
        "Receives debug tensors' values. Subclasses call IDebugListener.__init__(self) and implement "
        "process_debug_tensor(addr, location, type, shape, name, stream).")
        .def(py::init<>());
}

void bindContextCallbacks(py::class_<IExecutionContext>& context)
{
    bindOutputAllocators(context);
    bindProfiling(context);
    bindDebugState(context);
    bindContextMemory(context);
    defineErrorRecorderProperty<IExecutionContext>(context);
}

} // namespace kiln::python
