// What tensorrt.plugin needs of the CUDA runtime: for its Tensor to hand device memory to other libraries through
// DLPack, the device a pointer lives on (__dlpack_device__) and ordering the consumer's stream after the stream Kiln
// runs the plugin on (__dlpack__(stream=...)), as the DLPack protocol asks of a producer; for aliased outputs, a copy
// on the plugin's stream; for ahead-of-time plugins, loading a kernel from PTX and launching it. Without Kiln's CUDA
// backend they raise: no tensor is ever on a device there.
#include "bindings.h"

#include <pybind11/stl.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#if KILN_WITH_CUDA
#include <cuda_runtime_api.h>
#endif

namespace kiln::python
{

namespace
{

#if KILN_WITH_CUDA

void check(cudaError_t status, char const* what)
{
    if (status != cudaSuccess)
    {
        throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(status));
    }
}

int32_t deviceOf(uintptr_t address)
{
    cudaPointerAttributes attributes{};
    if (cudaPointerGetAttributes(&attributes, reinterpret_cast<void const*>(address)) == cudaSuccess
        && attributes.type != cudaMemoryTypeUnregistered)
    {
        return attributes.device;
    }
    cudaGetLastError(); // an address the runtime does not know: the current device, where Kiln's engine runs
    int32_t device = 0;
    check(cudaGetDevice(&device), "cudaGetDevice");
    return device;
}

void streamWait(uintptr_t waiting, uintptr_t producer)
{
    if (waiting == producer)
    {
        return; // one stream is already in order
    }
    cudaEvent_t event = nullptr;
    check(cudaEventCreateWithFlags(&event, cudaEventDisableTiming), "cudaEventCreateWithFlags");
    cudaError_t status = cudaEventRecord(event, reinterpret_cast<cudaStream_t>(producer));
    if (status == cudaSuccess)
    {
        status = cudaStreamWaitEvent(reinterpret_cast<cudaStream_t>(waiting), event, 0);
    }
    cudaEventDestroy(event); // released once the wait is done
    check(status, "ordering the consumer's stream after the plugin's");
}

void copyAsync(uintptr_t destination, uintptr_t source, size_t bytes, uintptr_t stream)
{
    check(cudaMemcpyAsync(reinterpret_cast<void*>(destination), reinterpret_cast<void const*>(source), bytes,
              cudaMemcpyDeviceToDevice, reinterpret_cast<cudaStream_t>(stream)),
        "copying an aliased input into its output");
}

//! Loads PTX (or a cubin) and finds the kernel `name` in it: the kernel's handle. The library stays loaded for the
//! process, as the kernel may be launched as long as a plan that holds it runs.
uintptr_t loadKernel(py::bytes const& image, std::string const& name)
{
    std::string const data = image; // PTX must end with a NUL, which std::string keeps after its bytes
    cudaLibrary_t library = nullptr;
    check(cudaLibraryLoadData(&library, data.c_str(), nullptr, nullptr, 0, nullptr, nullptr, 0),
        "loading an ahead-of-time plugin's kernel image");
    cudaKernel_t kernel = nullptr;
    check(cudaLibraryGetKernel(&kernel, library, name.c_str()),
        ("finding kernel \"" + name + "\" in an ahead-of-time plugin's kernel image").c_str());
    return reinterpret_cast<uintptr_t>(kernel);
}

//! The sizes in bytes of a kernel's parameters, in order, as the kernel image declares them; empty where the CUDA
//! runtime cannot tell (before CUDA 12.4), and then the launch passes what it has unchecked.
std::vector<size_t> parameterSizes([[maybe_unused]] void const* kernel)
{
    std::vector<size_t> sizes;
#if CUDART_VERSION < 12040
    return sizes;
#else
    size_t offset = 0;
    size_t size = 0;
    while (cudaFuncGetParamInfo(kernel, sizes.size(), &offset, &size) == cudaSuccess)
    {
        sizes.push_back(size);
    }
    cudaGetLastError(); // the index past the last parameter answers an error, which is not the caller's
    return sizes;
#endif
}

//! Launches a loaded kernel with its parameters: the input addresses, the 32-bit scalar arguments, then the output
//! addresses, as TensorRT passes them to an ahead-of-time plugin's kernel. Pointer-sized parameters after those get
//! null, as Triton's launcher gives a kernel that needs no scratch memory its scratch pointers; any other mismatch of
//! the kernel's parameters is an error.
void launchKernel(uintptr_t kernel, std::vector<uint32_t> const& grid, std::vector<uint32_t> const& block,
    uint32_t sharedBytes, uintptr_t stream, std::vector<uintptr_t> const& inputs, std::vector<int32_t> const& scalars,
    std::vector<uintptr_t> const& outputs)
{
    if (grid.size() != 3 || block.size() != 3)
    {
        throw std::invalid_argument("a kernel launch takes three grid and three block extents");
    }
    void const* function = reinterpret_cast<void const*>(kernel);
    std::vector<size_t> const declared = parameterSizes(function);
    std::vector<void*> addresses;
    std::vector<int32_t> values(scalars);
    std::vector<void*> parameters;
    std::vector<size_t> given;
    auto passAddress = [&](void* address) {
        addresses.push_back(address);
        given.push_back(sizeof(void*));
    };
    addresses.reserve(declared.size() + inputs.size() + outputs.size()); // stable: parameters point into it
    for (uintptr_t address : inputs)
    {
        passAddress(reinterpret_cast<void*>(address));
        parameters.push_back(&addresses.back());
    }
    for (int32_t& value : values)
    {
        given.push_back(sizeof(int32_t));
        parameters.push_back(&value);
    }
    for (uintptr_t address : outputs)
    {
        passAddress(reinterpret_cast<void*>(address));
        parameters.push_back(&addresses.back());
    }
    while (given.size() < declared.size() && declared[given.size()] == sizeof(void*))
    {
        passAddress(nullptr);
        parameters.push_back(&addresses.back());
    }
    if (!declared.empty() && given != declared)
    {
        std::string sizes;
        for (size_t size : declared)
        {
            sizes += (sizes.empty() ? "" : ", ") + std::to_string(size);
        }
        throw std::runtime_error("the ahead-of-time kernel's parameters (bytes: " + sizes + ") are not the "
            + std::to_string(inputs.size()) + " input addresses, " + std::to_string(scalars.size())
            + " int32 arguments and " + std::to_string(outputs.size()) + " output addresses Kiln passes");
    }
    check(cudaLaunchKernel(function, dim3(grid[0], grid[1], grid[2]), dim3(block[0], block[1], block[2]),
              parameters.data(), sharedBytes, reinterpret_cast<cudaStream_t>(stream)),
        "launching an ahead-of-time plugin's kernel");
}

#else

[[noreturn]] void withoutCuda()
{
    throw std::runtime_error("Kiln was built without its CUDA backend");
}

int32_t deviceOf(uintptr_t)
{
    withoutCuda();
}

void streamWait(uintptr_t, uintptr_t)
{
    withoutCuda();
}

void copyAsync(uintptr_t, uintptr_t, size_t, uintptr_t)
{
    withoutCuda();
}

uintptr_t loadKernel(py::bytes const&, std::string const&)
{
    withoutCuda();
}

void launchKernel(uintptr_t, std::vector<uint32_t> const&, std::vector<uint32_t> const&, uint32_t, uintptr_t,
    std::vector<uintptr_t> const&, std::vector<int32_t> const&, std::vector<uintptr_t> const&)
{
    withoutCuda();
}

#endif

} // namespace

void bindCudaInterop(py::module_& m)
{
    m.def("_cuda_device_of", &deviceOf, py::arg("address"),
        "Kiln's: the CUDA device of a device address (the current device for an address CUDA does not know).");
    m.def("_cuda_stream_wait", &streamWait, py::arg("waiting"), py::arg("producer"),
        "Kiln's: makes the stream `waiting` wait for the work queued so far on the stream `producer` (handles).");
    m.def("_cuda_copy_async", &copyAsync, py::arg("destination"), py::arg("source"), py::arg("bytes"),
        py::arg("stream"), "Kiln's: copies device memory on a stream (an aliased plugin input into its output).");
    m.def("_cuda_load_kernel", &loadKernel, py::arg("image"), py::arg("name"),
        "Kiln's: loads PTX or a cubin and gives the handle of its kernel `name` (ahead-of-time plugins).");
    m.def("_cuda_launch_kernel", &launchKernel, py::arg("kernel"), py::arg("grid"), py::arg("block"),
        py::arg("shared_bytes"), py::arg("stream"), py::arg("inputs"), py::arg("scalars"), py::arg("outputs"),
        "Kiln's: launches a kernel _cuda_load_kernel gave with input addresses, int32 scalars, output addresses.");
}

} // namespace kiln::python
