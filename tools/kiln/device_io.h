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
    //! How many inferences a stream keeps queued: the host prepares the next while the GPU runs the last, as
    //! trtexec's loop does, so that throughput measures the GPU rather than a host round trip per inference.
    static constexpr int32_t kDepth = 2;

    DeviceIo() = default;
    ~DeviceIo();
    DeviceIo(DeviceIo const&) = delete;
    DeviceIo& operator=(DeviceIo const&) = delete;

    //! Selects `device`, creates the stream and events, allocates a device copy of every tensor and a pinned host
    //! copy (copies from pinned memory run asynchronously, from pageable memory they block the host), and fills the
    //! pinned inputs with `inputs`.
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

    //! Queues one inference without waiting for it: copies the inputs in (unless !transfers), calls enqueue on the
    //! stream and copies the outputs out (unless !transfers). At most kDepth may be queued; finish the oldest first.
    bool start(std::function<bool(cudaStream_t)> const& enqueue, bool transfers,
        std::chrono::steady_clock::time_point origin, std::string& error);
    //! Waits (spinning if spinWait) for the oldest queued inference and fills its trace, in ms since the origin
    //! given to start.
    bool finish(bool spinWait, InferenceTrace& trace, std::string& error);
    int32_t inFlight() const
    {
        return mInFlight;
    }
    //! Waits until everything queued on the stream has run (nothing when no stream was made).
    void synchronize();

    //! Copies what the last inference with transfers copied out into `outputs`, once none is queued.
    void readOutputs(std::vector<HostTensor>& outputs) const;
    //! Copies the outputs from the device (after runs without transfers).
    bool download(std::vector<HostTensor>& outputs, std::string& error);

    //! --useCudaGraph: records what `enqueue` queues on the stream into a CUDA graph; false with `error` when the
    //! work cannot be captured (the caller then enqueues directly, as trtexec does).
    bool captureGraph(std::function<bool(cudaStream_t)> const& enqueue, std::string& error);
    //! Launches the captured graph on `stream` (an enqueue function for start).
    bool launchGraph(cudaStream_t stream);

private:
    //! One queued inference: events before H2D, after H2D, after compute and after D2H, and its host times.
    struct Slot
    {
        void* events[4]{};
        InferenceTrace trace;
    };

    std::vector<void*> mInputs;
    std::vector<void*> mOutputs;
    std::vector<void*> mPinnedInputs;
    std::vector<void*> mPinnedOutputs;
    std::vector<size_t> mInputBytes;
    std::vector<size_t> mOutputBytes;
    void* mStream{nullptr};
    Slot mSlots[kDepth];
    int32_t mOldest{0};   //!< the slot finish waits for next
    int32_t mInFlight{0}; //!< queued slots, from mOldest on
    //! Recorded when the stream is idle, at mOriginMs on the host's clock: device events are placed on the host's
    //! timeline by their time after it.
    void* mOriginEvent{nullptr};
    double mOriginMs{0};
    void* mGraph{nullptr};     //!< the captured graph (cudaGraph_t), with --useCudaGraph
    void* mGraphExec{nullptr}; //!< its executable instance (cudaGraphExec_t)
};

} // namespace kiln::cli
