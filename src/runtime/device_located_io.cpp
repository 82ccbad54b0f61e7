// Device-located I/O for CPU plans: KILN_CPU_TENSOR_LOCATION=device makes a CPU engine report its I/O tensors as
// TensorLocation::kDEVICE, so that applications written for TensorRT, which give addresses only to device-located
// tensors (NVIDIA's trtexec), run CPU plans. The application must then give memory the host reaches as well as the
// device (trtexec --useManagedMemory): the CUDA backend checks every address before a run, and refuses device memory
// with an error naming the tensor rather than letting a host kernel fault. The CPU backend still runs at enqueue time,
// on the calling thread: a run first waits for the work queued on its stream (which may write the inputs), and work
// queued after it sees the outputs. Left unset (or `host`), nothing changes: I/O is kHOST, as it always was.
#include "runtime/engine.h"
#include "runtime/execution_context.h"

#include "backend/choice/backends.h"

#include <cstdlib>
#include <string>

namespace kiln::runtime
{

namespace
{

constexpr char const* kCpuTensorLocationVariable = "KILN_CPU_TENSOR_LOCATION";

} // namespace

bool Engine::chooseCpuIoLocation(std::string& error)
{
    char const* value = std::getenv(kCpuTensorLocationVariable);
    std::string const location = value == nullptr ? std::string() : std::string(value);
    if (location.empty() || location == "host")
    {
        return true;
    }
    if (location != "device")
    {
        error = std::string(kCpuTensorLocationVariable) + " is \"" + location
            + "\": it names no tensor location (host, the default, or device)";
        return false;
    }
    mDeviceOfHostIo = backend::implementation(Backend::kCUDA);
    if (mDeviceOfHostIo == nullptr)
    {
        error = std::string(kCpuTensorLocationVariable)
            + "=device: this build of Kiln has no CUDA backend, so no device memory to report CPU plans' I/O in";
        return false;
    }
    return true;
}

bool ExecutionContext::prepareDeviceLocatedIo(cudaStream_t stream, std::string& error) const
{
    backend::Implementation const* device = mEngine.deviceOfHostIo();
    if (device == nullptr)
    {
        return true;
    }
    plan::PlanModel const& model = mEngine.model();
    for (int32_t io : model.ioTensors)
    {
        std::string why;
        if (mAddresses[io].has_value() && !device->hostCanAccess(*mAddresses[io], why))
        {
            error = "the memory of \"" + model.tensors[io].name + "\" (" + kCpuTensorLocationVariable
                + "=device: a CPU plan reads and writes its I/O on the host) cannot be used: " + why;
            return false;
        }
    }
    return device->waitForStream(stream, error);
}

} // namespace kiln::runtime
