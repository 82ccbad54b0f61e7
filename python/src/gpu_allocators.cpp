// trt.IGpuAllocator and trt.IGpuAsyncAllocator written in Python, with AllocatorFlag and the properties that take
// them: Runtime.gpu_allocator, Builder.gpu_allocator (write-only, as in TensorRT) and
// IExecutionContext.temporary_allocator. What Kiln asks an allocator for: on the CUDA backend, device memory (a
// context's activations, constants and workspaces; the builder's timing buffers); on the CPU backend, whose "device"
// is the host, a runtime's allocator gives each context's activation memory, which must then be host memory, and a
// builder's is never asked. An address is an int; None or 0 means no memory. A method that raises, is missing or
// returns a value of the wrong type is logged naming it and counts as a failed allocation (None) or release (False).
#include "callbacks.h"

#include <NvInfer.h>

namespace kiln::python
{

namespace
{

using nvinfer1::AllocatorFlag;
using nvinfer1::AllocatorFlags;
using nvinfer1::IBuilder;
using nvinfer1::IExecutionContext;
using nvinfer1::IGpuAllocator;
using nvinfer1::IGpuAsyncAllocator;
using nvinfer1::IRuntime;

uintptr_t addressOf(void const* pointer)
{
    return reinterpret_cast<uintptr_t>(pointer);
}

//! An address a Python method returned: an int, or None / 0 for no memory.
void* pointerFrom(py::object const& returned)
{
    return returned.is_none() ? nullptr : reinterpret_cast<void*>(returned.cast<uintptr_t>());
}

//! Calls the allocator's Python method `name` with `args`; the address it gave, nullptr where it failed.
template <typename Allocator, typename... Args>
void* allocateThrough(Allocator const* self, char const* className, char const* name, Args... args)
{
    return callBack(self, className, name, static_cast<void*>(nullptr),
        [&](py::function const& method) { return pointerFrom(method(args...)); });
}

template <typename Allocator, typename... Args>
bool releaseThrough(Allocator const* self, char const* className, char const* name, Args... args)
{
    return callBack(self, className, name, false,
        [&](py::function const& method) { return method(args...).template cast<bool>(); });
}

//! trt.IGpuAllocator: allocate(size, alignment, flags), deallocate(memory), and optionally reallocate(address,
//! alignment, new_size); Kiln's stream-ordered calls use these (TensorRT's IGpuAllocator does the same).
class PyGpuAllocator : public IGpuAllocator
{
public:
    void* allocate(uint64_t size, uint64_t alignment, AllocatorFlags flags) override
    {
        return allocateThrough(self(), "IGpuAllocator", "allocate", size, alignment, flags);
    }
    void* reallocate(void* baseAddr, uint64_t alignment, uint64_t newSize) override
    {
        return allocateThrough(self(), "IGpuAllocator", "reallocate", addressOf(baseAddr), alignment, newSize);
    }
    bool deallocate(void* memory) override
    {
        return releaseThrough(self(), "IGpuAllocator", "deallocate", addressOf(memory));
    }

private:
    IGpuAllocator const* self() const
    {
        return this;
    }
};

//! trt.IGpuAsyncAllocator: allocate_async(size, alignment, flags, stream) and deallocate_async(memory, stream), with
//! streams as ints; the synchronous calls pass stream 0. reallocate(address, alignment, new_size) optionally.
class PyGpuAsyncAllocator : public IGpuAsyncAllocator
{
public:
    void* allocateAsync(uint64_t size, uint64_t alignment, AllocatorFlags flags, cudaStream_t stream) override
    {
        return allocateThrough(
            self(), "IGpuAsyncAllocator", "allocate_async", size, alignment, flags, addressOf(stream));
    }
    bool deallocateAsync(void* memory, cudaStream_t stream) override
    {
        return releaseThrough(self(), "IGpuAsyncAllocator", "deallocate_async", addressOf(memory), addressOf(stream));
    }
    void* reallocate(void* baseAddr, uint64_t alignment, uint64_t newSize) override
    {
        return allocateThrough(self(), "IGpuAsyncAllocator", "reallocate", addressOf(baseAddr), alignment, newSize);
    }

private:
    //! As the bound class: pybind11 finds a trampoline's Python object by the type it was registered as.
    IGpuAsyncAllocator const* self() const
    {
        return this;
    }
};

//! A write-only property taking an allocator, kept alive with the object that holds it.
template <typename Holder>
void defineAllocatorSetter(
    py::class_<Holder>& holder, char const* name, void (Holder::*set)(IGpuAllocator*), char const* doc)
{
    holder.def_property(name, nullptr,
        py::cpp_function(
            [set](Holder& self, IGpuAllocator* allocator) { (self.*set)(allocator); }, py::keep_alive<1, 2>()),
        doc);
}

} // namespace

void bindGpuAllocators(py::module_& m)
{
    py::enum_<AllocatorFlag>(m, "AllocatorFlag", py::arithmetic(), "Options of an allocation.")
        .value("RESIZABLE", AllocatorFlag::kRESIZABLE);
    py::class_<IGpuAllocator, PyGpuAllocator>(m, "IGpuAllocator",
        "Gives Kiln memory. Subclasses call IGpuAllocator.__init__(self) and implement allocate(size, alignment, "
        "flags) -> address (None: none), deallocate(memory) -> bool, and optionally reallocate(address, alignment, "
        "new_size). Device memory on the CUDA backend; on the CPU backend a runtime's allocator gives each "
        "context's activation memory, which must be host memory.")
        .def(py::init<>());
    py::class_<IGpuAsyncAllocator, IGpuAllocator, PyGpuAsyncAllocator>(m, "IGpuAsyncAllocator",
        "An allocator with stream-ordered calls. Subclasses call IGpuAsyncAllocator.__init__(self) and implement "
        "allocate_async(size, alignment, flags, stream) -> address and deallocate_async(memory, stream) -> bool "
        "(streams as ints; 0 where Kiln has none).")
        .def(py::init<>());

    auto runtime = py::reinterpret_borrow<py::class_<IRuntime>>(m.attr("Runtime"));
    defineAllocatorSetter(runtime, "gpu_allocator", &IRuntime::setGpuAllocator,
        "Write-only: the allocator the engines this runtime loads allocate through (kept alive with the runtime).");
    auto builder = py::reinterpret_borrow<py::class_<IBuilder>>(m.attr("Builder"));
    defineAllocatorSetter(builder, "gpu_allocator", &IBuilder::setGpuAllocator,
        "Write-only: the allocator builds allocate device memory through (kept alive with the builder).");
    auto context = py::reinterpret_borrow<py::class_<IExecutionContext>>(m.attr("IExecutionContext"));
    context.def_property("temporary_allocator",
        py::cpp_function([](IExecutionContext const& self) { return self.getTemporaryStorageAllocator(); },
            py::return_value_policy::reference),
        py::cpp_function([](IExecutionContext& self,
                             IGpuAllocator* allocator) { return self.setTemporaryStorageAllocator(allocator); },
            py::keep_alive<1, 2>()),
        "The allocator for the context's temporary storage (kept alive with the context).");
}

} // namespace kiln::python
