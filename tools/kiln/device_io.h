// The CUDA backend's side of an inference stream: device copies of the I/O tensors, a CUDA
// stream, and events that time the input copies, the compute and the output copies as trtexec
// does. In builds without CUDA every call fails with a message saying so.
#pragma once

#include "host_tensor.h"
#include "inference_trace.h"

#include <NvInferRuntime.h>

#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace kiln::cli
{

class DeviceIo
{
public:
    DeviceIo() = default;
    ~DeviceIo();
    DeviceIo(DeviceIo const&) = delete;
    DeviceIo& operator=(DeviceIo const&) = delete;

    //! Selects `device`, creates the stream and events, and allocates a device copy of every tensor.
    bool allocate(int32_t device, std::vector<HostTensor> const& inputs, std::vector<HostTensor> const& outputs,
        std::string& error);
    void* inputAddress(size_t i) const
    {
        return mInputs[i];
    }
    void* outputAddress(size_t i) const
    {
        return mOutputs[i];
    }

    //! One inference: copies the inputs in (unless !transfers), calls enqueue on the stream, copies the
    //! outputs back (unless !transfers), waits (spinning if spinWait) and fills trace, in ms since origin.
    bool infer(std::function<bool(cudaStream_t)> const& enqueue, std::vector<HostTensor> const& inputs,
        std::vector<HostTensor>& outputs, bool transfers, bool spinWait, std::chrono::steady_clock::time_point origin,
        InferenceTrace& trace, std::string& error);

    //! Copies the outputs from the device (after runs without transfers).
    bool download(std::vector<HostTensor>& outputs, std::string& error);

    //! --useCudaGraph: records what `enqueue` queues on the stream into a CUDA graph; false with `error` when the
    //! work cannot be captured (the caller then enqueues directly, as trtexec does).
    bool captureGraph(std::function<bool(cudaStream_t)> const& enqueue, std::string& error);
    //! Launches the captured graph on `stream` (an enqueue function for infer).
    bool launchGraph(cudaStream_t stream);

private:
    std::vector<void*> mInputs;
    std::vector<void*> mOutputs;
    void* mStream{nullptr};
    void* mEvents[4]{}; //!< before H2D, after H2D, after compute, after D2H
    void* mGraph{nullptr};     //!< the captured graph (cudaGraph_t), with --useCudaGraph
    void* mGraphExec{nullptr}; //!< its executable instance (cudaGraphExec_t)
};

} // namespace kiln::cli
