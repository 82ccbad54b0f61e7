// One inference stream: an execution context with its I/O tensors. On the CPU backend tensor
// addresses are the host tensors themselves; on the CUDA backend they are device copies
// (DeviceIo), filled and read back around each inference as trtexec does.
#pragma once

#include "data_dependent_output.h"
#include "device_io.h"
#include "host_tensor.h"
#include "inference_trace.h"

#include <kiln/Backend.h>

#include <NvInferRuntime.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace kiln::cli
{

struct StreamSettings
{
    Backend backend{Backend::kCPU};
    int32_t device{0};
    bool transfers{true};     //!< CUDA: copy inputs in and outputs out at every inference (!--noDataTransfers)
    bool spinWait{false};     //!< CUDA: spin on the last event instead of blocking (--useSpinWait)
    bool cudaGraph{false};    //!< CUDA: capture one inference into a CUDA graph and replay it (--useCudaGraph)
    int32_t cpuThreads{0};    //!< CPU: the context's most threads (--threads); 0: the cores available
    bool fixedThreads{false}; //!< CPU: every run on cpuThreads (--fixedThreads)
};

class ContextBuffers
{
public:
    ContextBuffers() = default;
    //! Lets queued inferences finish, then releases the context before the stream and buffers they ran on.
    ~ContextBuffers()
    {
        mDevice.synchronize();
    }
    ContextBuffers(ContextBuffers const&) = delete;
    ContextBuffers& operator=(ContextBuffers const&) = delete;

    //! Creates a context of engine, sets the inputs' shapes, copies their data and binds every
    //! I/O tensor. False with error naming the tensor that does not fit.
    bool setUp(nvinfer1::ICudaEngine& engine, std::vector<HostTensor> const& inputs, StreamSettings const& settings,
        std::string& error);

    //! How many inferences start queues before finish must wait for one: DeviceIo::kDepth on the CUDA backend,
    //! where the host prepares the next while the GPU runs the last, and 1 on the CPU backend, which computes
    //! inside enqueueV3.
    int32_t depth() const;
    int32_t inFlight() const
    {
        return mSettings.backend == Backend::kCUDA ? mDevice.inFlight() : static_cast<int32_t>(mCpuQueued);
    }
    //! Queues one inference; at most depth() may be queued.
    bool start(std::chrono::steady_clock::time_point origin, std::string& error);
    //! Waits for the oldest queued inference and gives its timeline, in ms since the origin given to start. On the
    //! CPU backend enqueue and compute cover the same span and the transfers take no time.
    bool finish(InferenceTrace& trace, std::string& error);
    //! One inference, start to finish, with nothing else queued.
    bool infer(std::chrono::steady_clock::time_point origin, InferenceTrace& trace, std::string& error)
    {
        return start(origin, error) && finish(trace, error);
    }

    nvinfer1::IExecutionContext& context()
    {
        return *mContext;
    }
    //! Outputs in I/O order, holding what the last inference wrote, once none is queued (read back from the device
    //! first when transfers are off).
    std::vector<HostTensor> const& outputs();

private:
    //! The host buffers of the engine's outputs at the context's shapes (a data-dependent one at its largest size);
    //! false with `error` for an output whose shape is unknown.
    bool makeOutputs(nvinfer1::ICudaEngine const& engine, std::string& error);
    //! The outputs as the last inference left them: data-dependent ones in the shape it told.
    std::vector<HostTensor> const& reported();

    StreamSettings mSettings;
    DeviceIo mDevice; //!< CUDA backend only; declared before mContext, so destroyed after it
    std::unique_ptr<nvinfer1::IExecutionContext> mContext;
    std::vector<HostTensor> mInputs;
    std::vector<HostTensor> mOutputs;                              //!< data-dependent ones hold their largest size
    std::vector<bool> mDataDependent;                              //!< by output
    std::vector<std::unique_ptr<DataDependentOutput>> mAllocators; //!< by output; null for the others
    std::vector<HostTensor> mReported;
    bool mGraphCaptured{false};
    bool mCpuQueued{false};   //!< the CPU backend's inference, done by start, waits for finish
    InferenceTrace mCpuTrace; //!< its timeline
};

} // namespace kiln::cli
