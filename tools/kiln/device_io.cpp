#include "device_io.h"

#include <algorithm>

#if KILN_WITH_CUDA
#include <cuda_runtime_api.h>
#endif

namespace kiln::cli
{

#if KILN_WITH_CUDA
namespace
{

bool check(cudaError_t status, char const* what, std::string& error)
{
    if (status != cudaSuccess)
    {
        error = std::string(what) + " failed: " + cudaGetErrorString(status);
        return false;
    }
    return true;
}

double msSince(std::chrono::steady_clock::time_point origin)
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - origin).count();
}

} // namespace

DeviceIo::~DeviceIo()
{
    for (void* p : mInputs)
    {
        cudaFree(p);
    }
    for (void* p : mOutputs)
    {
        cudaFree(p);
    }
    for (void* event : mEvents)
    {
        if (event != nullptr)
        {
            cudaEventDestroy(static_cast<cudaEvent_t>(event));
        }
    }
    if (mGraphExec != nullptr)
    {
        cudaGraphExecDestroy(static_cast<cudaGraphExec_t>(mGraphExec));
    }
    if (mGraph != nullptr)
    {
        cudaGraphDestroy(static_cast<cudaGraph_t>(mGraph));
    }
    if (mStream != nullptr)
    {
        cudaStreamDestroy(static_cast<cudaStream_t>(mStream));
    }
}

bool DeviceIo::allocate(
    int32_t device, std::vector<HostTensor> const& inputs, std::vector<HostTensor> const& outputs, std::string& error)
{
    if (!check(cudaSetDevice(device), "cudaSetDevice (--device)", error))
    {
        return false;
    }
    cudaStream_t stream = nullptr;
    if (!check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate", error))
    {
        return false;
    }
    mStream = stream;
    for (void*& slot : mEvents)
    {
        cudaEvent_t event = nullptr;
        if (!check(cudaEventCreate(&event), "cudaEventCreate", error))
        {
            return false;
        }
        slot = event;
    }
    auto allocateAll = [&](std::vector<HostTensor> const& tensors, std::vector<void*>& pointers) {
        for (HostTensor const& t : tensors)
        {
            void* p = nullptr;
            // At least one byte, so empty tensors still get a distinct address.
            if (!check(cudaMalloc(&p, std::max<size_t>(t.bytes.size(), 1)), "cudaMalloc", error))
            {
                return false;
            }
            pointers.push_back(p);
        }
        return true;
    };
    return allocateAll(inputs, mInputs) && allocateAll(outputs, mOutputs);
}

bool DeviceIo::infer(std::function<bool(cudaStream_t)> const& enqueue, std::vector<HostTensor> const& inputs,
    std::vector<HostTensor>& outputs, bool transfers, bool spinWait, std::chrono::steady_clock::time_point origin,
    InferenceTrace& trace, std::string& error)
{
    auto stream = static_cast<cudaStream_t>(mStream);
    auto event = [&](int i) { return static_cast<cudaEvent_t>(mEvents[i]); };
    // The stream is idle here (each inference waits for the one before), so the first event marks
    // the current host time on the device's timeline too.
    trace.h2dStart = msSince(origin);
    bool ok = check(cudaEventRecord(event(0), stream), "cudaEventRecord", error);
    for (size_t i = 0; ok && transfers && i < inputs.size(); ++i)
    {
        ok = check(
            cudaMemcpyAsync(mInputs[i], inputs[i].bytes.data(), inputs[i].bytes.size(), cudaMemcpyHostToDevice, stream),
            "cudaMemcpyAsync (inputs)", error);
    }
    ok = ok && check(cudaEventRecord(event(1), stream), "cudaEventRecord", error);
    trace.enqStart = msSince(origin);
    if (ok && !enqueue(stream))
    {
        error = "enqueueV3 failed (see the error above)";
        ok = false;
    }
    trace.enqEnd = msSince(origin);
    ok = ok && check(cudaEventRecord(event(2), stream), "cudaEventRecord", error);
    for (size_t i = 0; ok && transfers && i < outputs.size(); ++i)
    {
        ok = check(cudaMemcpyAsync(
                       outputs[i].bytes.data(), mOutputs[i], outputs[i].bytes.size(), cudaMemcpyDeviceToHost, stream),
            "cudaMemcpyAsync (outputs)", error);
    }
    ok = ok && check(cudaEventRecord(event(3), stream), "cudaEventRecord", error);
    if (!ok)
    {
        cudaStreamSynchronize(stream);
        return false;
    }
    if (spinWait)
    {
        cudaError_t status = cudaErrorNotReady;
        while ((status = cudaEventQuery(event(3))) == cudaErrorNotReady)
        {
        }
        ok = check(status, "cudaEventQuery", error);
    }
    else
    {
        ok = check(cudaEventSynchronize(event(3)), "cudaEventSynchronize", error);
    }
    float h2d = 0;
    float compute = 0;
    float d2h = 0;
    ok = ok && check(cudaEventElapsedTime(&h2d, event(0), event(1)), "cudaEventElapsedTime", error)
        && check(cudaEventElapsedTime(&compute, event(1), event(2)), "cudaEventElapsedTime", error)
        && check(cudaEventElapsedTime(&d2h, event(2), event(3)), "cudaEventElapsedTime", error);
    trace.h2dEnd = trace.computeStart = trace.h2dStart + h2d;
    trace.computeEnd = trace.d2hStart = trace.computeStart + compute;
    trace.d2hEnd = trace.d2hStart + d2h;
    return ok;
}

bool DeviceIo::download(std::vector<HostTensor>& outputs, std::string& error)
{
    for (size_t i = 0; i < outputs.size(); ++i)
    {
        if (!check(cudaMemcpy(outputs[i].bytes.data(), mOutputs[i], outputs[i].bytes.size(), cudaMemcpyDeviceToHost),
                "cudaMemcpy (outputs)", error))
        {
            return false;
        }
    }
    return true;
}

bool DeviceIo::captureGraph(std::function<bool(cudaStream_t)> const& enqueue, std::string& error)
{
    auto stream = static_cast<cudaStream_t>(mStream);
    // One inference first, outside the capture: it makes the allocations a graph must not contain.
    if (!enqueue(stream) || !check(cudaStreamSynchronize(stream), "cudaStreamSynchronize", error))
    {
        error = error.empty() ? "enqueueV3 failed (see the error above)" : error;
        return false;
    }
    if (!check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture", error))
    {
        return false;
    }
    bool const enqueued = enqueue(stream);
    cudaGraph_t graph = nullptr;
    cudaError_t const ended = cudaStreamEndCapture(stream, &graph);
    if (!enqueued || ended != cudaSuccess)
    {
        error = !enqueued ? "enqueueV3 failed while capturing (see the error above)"
                          : std::string("capturing the inference failed: ") + cudaGetErrorString(ended);
        if (graph != nullptr)
        {
            cudaGraphDestroy(graph);
        }
        cudaGetLastError(); // the failed capture's error is reported here, not by a later call
        return false;
    }
    cudaGraphExec_t exec = nullptr;
    if (!check(cudaGraphInstantiate(&exec, graph, 0), "cudaGraphInstantiate", error))
    {
        cudaGraphDestroy(graph);
        return false;
    }
    mGraph = graph;
    mGraphExec = exec;
    return true;
}

bool DeviceIo::launchGraph(cudaStream_t stream)
{
    return cudaGraphLaunch(static_cast<cudaGraphExec_t>(mGraphExec), stream) == cudaSuccess;
}

#else // no CUDA in this build

namespace
{
constexpr char const* kNoCuda = "this build of Kiln has no CUDA support, so kiln cannot use GPU memory";
}

DeviceIo::~DeviceIo() = default;

bool DeviceIo::allocate(int32_t, std::vector<HostTensor> const&, std::vector<HostTensor> const&, std::string& error)
{
    error = kNoCuda;
    return false;
}

bool DeviceIo::infer(std::function<bool(cudaStream_t)> const&, std::vector<HostTensor> const&, std::vector<HostTensor>&,
    bool, bool, std::chrono::steady_clock::time_point, InferenceTrace&, std::string& error)
{
    error = kNoCuda;
    return false;
}

bool DeviceIo::download(std::vector<HostTensor>&, std::string& error)
{
    error = kNoCuda;
    return false;
}

bool DeviceIo::captureGraph(std::function<bool(cudaStream_t)> const&, std::string& error)
{
    error = kNoCuda;
    return false;
}

bool DeviceIo::launchGraph(cudaStream_t)
{
    return false;
}

#endif

} // namespace kiln::cli
