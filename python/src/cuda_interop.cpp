// What tensorrt.plugin's Tensor needs of the CUDA runtime to hand device memory to other libraries through DLPack:
// the device a pointer lives on (__dlpack_device__), and ordering the consumer's stream after the stream Kiln runs
// the plugin on (__dlpack__(stream=...)), as the DLPack protocol asks of a producer. Without Kiln's CUDA backend
// they raise: no tensor is ever on a device there.
#include "bindings.h"

#include <cstdint>
#include <stdexcept>
#include <string>

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

#endif

} // namespace

void bindCudaInterop(py::module_& m)
{
    m.def("_cuda_device_of", &deviceOf, py::arg("address"),
        "Kiln's: the CUDA device of a device address (the current device for an address CUDA does not know).");
    m.def("_cuda_stream_wait", &streamWait, py::arg("waiting"), py::arg("producer"),
        "Kiln's: makes the stream `waiting` wait for the work queued so far on the stream `producer` (handles).");
}

} // namespace kiln::python
