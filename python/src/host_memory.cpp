// IHostMemory: memory Kiln allocated for Python (a serialized plan), readable through the buffer protocol, so that
// open(path, "wb").write(plan), bytes(plan) and numpy.frombuffer(plan, numpy.uint8) work.
#include "bindings.h"
#include "numpy_types.h"

#include <NvInferRuntime.h>

namespace kiln::python
{

void bindHostMemory(py::module_& m)
{
    using nvinfer1::IHostMemory;
    py::class_<IHostMemory> memory(m, "IHostMemory", py::buffer_protocol(), "Memory Kiln allocated, such as a plan.");
    memory
        .def_buffer([](IHostMemory& self) {
            // size() counts bytes, as TensorRT's does; the buffer shows elements of the memory's type.
            size_t const itemSize = elementSize(self.type());
            return py::buffer_info(self.data(), static_cast<py::ssize_t>(itemSize), bufferFormatOf(self.type()), 1,
                {static_cast<py::ssize_t>(self.size() / itemSize)}, {static_cast<py::ssize_t>(itemSize)}, true);
        })
        .def_property_readonly("dtype", &IHostMemory::type)
        .def_property_readonly("nbytes", &IHostMemory::size)
        .def("__len__", [](IHostMemory const& self) { return self.size() / elementSize(self.type()); });
    defineContextManager(memory);
}

} // namespace kiln::python
