// How an execution context runs a plan's layers on one backend: the context's
// activation memory, and each layer's work (the CUDA backend lowers each layer once, when
// the context is made; the CPU backend calls the layer's reference kernel at every run).
// The context itself (shapes, addresses, the layer loop, profiling) is the same for
// every backend.
#pragma once

#include "core/tensor_view.h"
#include "network/layer.h"
#include "plan/plan_model.h"
#include "plugin/adapter/plugin_adapter.h"

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace kiln::backend
{

//! What an executor needs of a loaded plan (runtime::Engine gives it): the plan (its plugins recreated), the size of a
//! context's memory and where the plugins' workspace starts in it, and the runtime's allocator.
struct LoadedPlan
{
    plan::PlanModel const* model{nullptr};
    int64_t contextMemoryBytes{0}; //!< the activations (the plan's arena), then the plugins' workspace
    int64_t workspaceOffset{0};
    nvinfer1::IGpuAllocator* allocator{nullptr}; //!< IRuntime::setGpuAllocator's; nullptr: Kiln's default

    network::LayerParams const& params(size_t layer) const
    {
        return *model->layers[layer].params;
    }
};

class Executor
{
public:
    virtual ~Executor() = default;

    //! The context's memory, LoadedPlan::contextMemoryBytes: the activations (the plan's arena), then the plugins'
    //! workspace at LoadedPlan::workspaceOffset. Host memory on the CPU backend, device memory on the CUDA backend.
    //! Null while a kUSER_MANAGED context has been given none.
    std::byte* contextMemory() const
    {
        return mContextMemory;
    }
    //! Memory the application owns and gives the context (kUSER_MANAGED).
    void useContextMemory(std::byte* memory)
    {
        mContextMemory = memory;
    }
    //! Allocates the context memory, which the executor then owns (kSTATIC and kON_PROFILE_CHANGE). Throws
    //! std::runtime_error naming the size when out of memory.
    virtual void allocateContextMemory() = 0;

    //! Where constant layer `l`'s weights are, as its output reads them, where the backend binds constants
    //! (Implementation::bindsConstants); nullptr otherwise.
    virtual void const* constantAddress(size_t /*l*/) const
    {
        return nullptr;
    }

    //! Sets the most threads the executor's host kernels run on (0: the cores available), and whether a run may take
    //! fewer where that has timed faster (`adaptive`); false where its backend does not run layers on the host.
    virtual bool setThreads(int32_t /*threads*/, bool /*adaptive*/)
    {
        return false;
    }
    //! The most threads it runs on, 0 resolved; 0 where its backend does not run layers on the host.
    virtual int32_t threads() const
    {
        return 0;
    }
    //! Whether its runs may take fewer threads than threads().
    virtual bool adaptiveThreads() const
    {
        return false;
    }
    //! Called before a run's first layer and after its last (after a layer that failed too).
    virtual void beginRun() { }
    virtual void endRun() { }

    //! Runs layer `l`. The views describe its tensors in the backend's memory; on the CUDA backend the work is
    //! queued on `stream` and the call returns without waiting for it.
    virtual bool runLayer(size_t l, std::vector<ConstTensorView> const& inputs, std::vector<TensorView> const& outputs,
        cudaStream_t stream, std::string& error)
        = 0;

    //! Waits for the work queued on `stream` (executeV2 is synchronous); false with `error` if it failed.
    virtual bool synchronize(cudaStream_t stream, std::string& error) = 0;

    //! Stores the values of shape tensor `tensor` (the plan's index), computed on the host, into `output` (INT32 or
    //! INT64).
    virtual void writeShapeValues(
        int32_t tensor, TensorView const& output, std::vector<int64_t> const& values, cudaStream_t stream)
        = 0;

    //! The value of a 0-D INT32, INT64 or BOOL tensor a layer wrote (a size tensor, a conditional's condition), once
    //! the work queued on `stream` before this call is done: the CUDA backend copies it to the host and waits for the
    //! stream. Throws std::runtime_error if that work failed.
    virtual int64_t readScalar(ConstTensorView const& view, cudaStream_t stream) = 0;
    //! Copies `from` into `to` (one shape, both in the backend's memory), converting the type and the format where
    //! they differ, in stream order.
    virtual void copyTensor(ConstTensorView const& from, TensorView const& to, cudaStream_t stream) = 0;
    //! Sets `bytes` of the backend's memory at `destination` to zero, in stream order.
    virtual void zeroBytes(void* destination, size_t bytes, cudaStream_t stream) = 0;
    //! Copies `bytes` from the backend's memory (`source`) to memory of the same kind the application gave (an
    //! output allocator's), in stream order.
    virtual void copyBytes(void* destination, void const* source, size_t bytes, cudaStream_t stream) = 0;

    //! Profiling: the start and the end of layer `l`'s work on `stream`.
    virtual void beginTiming(size_t l, cudaStream_t stream) = 0;
    virtual void endTiming(size_t l, cudaStream_t stream) = 0;
    //! Layer `l`'s time between its last begin and end, in milliseconds: host time on the CPU backend, GPU time
    //! on the CUDA backend (where this waits for that work to finish).
    virtual float elapsedMs(size_t l) = 0;

protected:
    std::byte* mContextMemory{nullptr};
};

} // namespace kiln::backend
