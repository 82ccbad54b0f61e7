// One inference stream: an execution context with its I/O tensors. On the CPU backend tensor
// addresses are the host tensors themselves; on the CUDA backend they are device copies
// (DeviceIo), filled and read back around each inference as trtexec does.
#pragma once

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
    bool transfers{true}; //!< CUDA: copy inputs in and outputs out at every inference (!--noDataTransfers)
    bool spinWait{false}; //!< CUDA: spin on the last event instead of blocking (--useSpinWait)
    bool cudaGraph{false}; //!< CUDA: capture one inference into a CUDA graph and replay it (--useCudaGraph)
};

class ContextBuffers
{
public:
    //! Creates a context of engine, sets the inputs' shapes, copies their data and binds every
    //! I/O tensor. False with error naming the tensor that does not fit.
    bool setUp(nvinfer1::ICudaEngine& engine, std::vector<HostTensor> const& inputs, StreamSettings const& settings,
        std::string& error);

    //! One inference, with its timeline in ms since origin. On the CPU backend enqueueV3 computes
    //! before it returns, so enqueue and compute cover the same span and the transfers take no time.
    bool infer(std::chrono::steady_clock::time_point origin, InferenceTrace& trace, std::string& error);

    nvinfer1::IExecutionContext& context()
    {
        return *mContext;
    }
    //! Outputs in I/O order, holding what the last inference wrote (read back from the device
    //! first when transfers are off).
    std::vector<HostTensor> const& outputs();

private:
    StreamSettings mSettings;
    std::unique_ptr<nvinfer1::IExecutionContext> mContext;
    std::vector<HostTensor> mInputs;
    std::vector<HostTensor> mOutputs;
    DeviceIo mDevice; //!< CUDA backend only
    bool mGraphCaptured{false};
};

} // namespace kiln::cli
