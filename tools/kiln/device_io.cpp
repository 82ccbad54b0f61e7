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

void destroyEvent(void* event)
{
    if (event != nullptr)
    {
        cudaEventDestroy(static_cast<cudaEvent_t>(event));
    }
}

bool createEvent(void*& event, std::string& error)
{
    cudaEvent_t created = nullptr;
    if (!check(cudaEventCreate(&created), "cudaEventCreate", error))
    {
        return false;
    }
    event = created;
    return true;
}

} // namespace

DeviceIo::~DeviceIo()
{
    synchronize(); // queued inferences still write the buffers freed below
    for (void* p : mInputs)
    {
        cudaFree(p);
    }
    for (void* p : mOutputs)
    {
        cudaFree(p);
    }
    for (void* p : mPinnedInputs)
    {
        cudaFreeHost(p);
    }
    for (void* p : mPinnedOutputs)
    {
        cudaFreeHost(p);
    }
    for (Slot& slot : mSlots)
    {
        for (void* event : slot.events)
        {
            destroyEvent(event);
        }
    }
    destroyEvent(mOriginEvent);
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
    if (!createEvent(mOriginEvent, error))
    {
        return false;
    }
    for (Slot& slot : mSlots)
    {
        for (void*& event : slot.events)
        {
            if (!createEvent(event, error))
            {
                return false;
            }
        }
    }
    auto allocateAll
        = [&](std::vector<HostTensor> const& tensors, std::vector<void*>& onDevice, std::vector<void*>& pinned) {
              for (HostTensor const& t : tensors)
              {
                  // At least one byte, so empty tensors still get a distinct address.
                  size_t const bytes = std::max<size_t>(t.bytes.size(), 1);
                  void* p = nullptr;
                  if (!check(cudaMalloc(&p, bytes), "cudaMalloc", error))
                  {
                      return false;
                  }
                  onDevice.push_back(p);
                  if (!check(cudaMallocHost(&p, bytes), "cudaMallocHost", error))
                  {
                      return false;
                  }
                  pinned.push_back(p);
              }
              return true;
          };
    if (!allocateAll(inputs, mInputs, mPinnedInputs) || !allocateAll(outputs, mOutputs, mPinnedOutputs))
    {
        return false;
    }
    for (size_t i = 0; i < inputs.size(); ++i)
    {
        std::copy(inputs[i].bytes.begin(), inputs[i].bytes.end(), static_cast<uint8_t*>(mPinnedInputs[i]));
        mInputBytes.push_back(inputs[i].bytes.size());
    }
    for (HostTensor const& output : outputs)
    {
        mOutputBytes.push_back(output.bytes.size());
    }
    return true;
}

bool DeviceIo::start(std::function<bool(cudaStream_t)> const& enqueue, bool transfers,
    std::chrono::steady_clock::time_point origin, std::string& error)
{
    if (mInFlight == kDepth)
    {
        error = "internal error: an inference was started with " + std::to_string(kDepth) + " already queued";
        return false;
    }
    auto stream = static_cast<cudaStream_t>(mStream);
    Slot& slot = mSlots[(mOldest + mInFlight) % kDepth];
    auto event = [&](int i) { return static_cast<cudaEvent_t>(slot.events[i]); };
    bool ok = true;
    if (mInFlight == 0)
    {
        // Nothing is queued, so the stream is idle and an event recorded now passes at once: at this host time.
        mOriginMs = msSince(origin);
        ok = check(cudaEventRecord(static_cast<cudaEvent_t>(mOriginEvent), stream), "cudaEventRecord", error);
    }
    ok = ok && check(cudaEventRecord(event(0), stream), "cudaEventRecord", error);
    for (size_t i = 0; ok && transfers && i < mInputs.size(); ++i)
    {
        ok = check(cudaMemcpyAsync(mInputs[i], mPinnedInputs[i], mInputBytes[i], cudaMemcpyHostToDevice, stream),
            "cudaMemcpyAsync (inputs)", error);
    }
    ok = ok && check(cudaEventRecord(event(1), stream), "cudaEventRecord", error);
    slot.trace.enqStart = msSince(origin);
    if (ok && !enqueue(stream))
    {
        error = "enqueueV3 failed (see the error above)";
        ok = false;
    }
    slot.trace.enqEnd = msSince(origin);
    ok = ok && check(cudaEventRecord(event(2), stream), "cudaEventRecord", error);
    for (size_t i = 0; ok && transfers && i < mOutputs.size(); ++i)
    {
        ok = check(cudaMemcpyAsync(mPinnedOutputs[i], mOutputs[i], mOutputBytes[i], cudaMemcpyDeviceToHost, stream),
            "cudaMemcpyAsync (outputs)", error);
    }
    ok = ok && check(cudaEventRecord(event(3), stream), "cudaEventRecord", error);
    if (!ok)
    {
        // What is queued is given up: the caller stops at the first error.
        cudaStreamSynchronize(stream);
        mInFlight = 0;
        return false;
    }
    ++mInFlight;
    return true;
}

void DeviceIo::synchronize()
{
    if (mStream != nullptr)
    {
        cudaStreamSynchronize(static_cast<cudaStream_t>(mStream));
    }
}

bool DeviceIo::finish(bool spinWait, InferenceTrace& trace, std::string& error)
{
    if (mInFlight == 0)
    {
        error = "internal error: waiting for an inference when none is queued";
        return false;
    }
    Slot const& slot = mSlots[mOldest];
    mOldest = (mOldest + 1) % kDepth;
    --mInFlight;
    auto event = [&](int i) { return static_cast<cudaEvent_t>(slot.events[i]); };
    bool ok = true;
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
    // Each event's time on the host's clock: the origin event's host time plus the device time between them.
    float times[4] = {};
    for (int i = 0; ok && i < 4; ++i)
    {
        ok = check(cudaEventElapsedTime(&times[i], static_cast<cudaEvent_t>(mOriginEvent), event(i)),
            "cudaEventElapsedTime", error);
    }
    trace = slot.trace;
    trace.h2dStart = mOriginMs + times[0];
    trace.h2dEnd = trace.computeStart = mOriginMs + times[1];
    trace.computeEnd = trace.d2hStart = mOriginMs + times[2];
    trace.d2hEnd = mOriginMs + times[3];
    return ok;
}

void DeviceIo::readOutputs(std::vector<HostTensor>& outputs) const
{
    for (size_t i = 0; i < outputs.size(); ++i)
    {
        auto const* pinned = static_cast<uint8_t const*>(mPinnedOutputs[i]);
        std::copy(pinned, pinned + outputs[i].bytes.size(), outputs[i].bytes.begin());
    }
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

bool DeviceIo::start(
    std::function<bool(cudaStream_t)> const&, bool, std::chrono::steady_clock::time_point, std::string& error)
{
    error = kNoCuda;
    return false;
}

bool DeviceIo::finish(bool, InferenceTrace&, std::string& error)
{
    error = kNoCuda;
    return false;
}

void DeviceIo::synchronize() { }

void DeviceIo::readOutputs(std::vector<HostTensor>&) const { }

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
