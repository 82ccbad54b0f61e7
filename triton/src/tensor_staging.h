// Where an instance's engine reads its inputs and writes its outputs, and the copies between that memory and the
// requests' and responses' buffers. This is the one place where a KIND_CPU instance and a KIND_GPU instance differ:
// host memory and a direct run on the calling thread for Kiln's CPU backend; device memory, a CUDA stream and
// asynchronous copies for its CUDA backend.
#pragma once

#include "kiln_triton/triton_api.h"

#include <NvInferRuntime.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace kiln::triton
{

//! Every slot's address is a multiple of it (TensorRT's alignment for tensors).
constexpr size_t kSlotAlignment = 256;

class TensorStaging
{
public:
    virtual ~TensorStaging() = default;

    //! The memory of slot (one per engine input and output), at least bytes large; its contents do not survive a
    //! call that grows it.
    virtual void* slot(size_t index, size_t bytes) = 0;
    //! Copies bytes from source (in memory of the given type) to offset of slot index.
    virtual void copyIn(size_t index, size_t offset, void const* source, size_t bytes, TRITONSERVER_MemoryType memory)
        = 0;
    //! Runs the context on the slots' memory: a KIND_CPU instance computes it here, a KIND_GPU one queues it on its
    //! stream. False when the run failed or could not be queued (Kiln logged why).
    virtual bool run(nvinfer1::IExecutionContext& context) = 0;
    //! Copies bytes from offset of slot index to destination (in memory of the given type).
    virtual void copyOut(size_t index, size_t offset, void* destination, size_t bytes, TRITONSERVER_MemoryType memory)
        = 0;
    //! Waits for the run and every copy out (the destinations hold the outputs once it returns); throws a
    //! BackendError when either failed.
    virtual void finish() = 0;
    //! From now on, run() replays a CUDA graph per set of input shapes (at most maxGraphs of them) captured from
    //! engine's contexts; false where this staging cannot (KIND_CPU). instance names it in the log.
    virtual bool useCudaGraphs(
        std::shared_ptr<nvinfer1::ICudaEngine> const& /*engine*/, size_t /*maxGraphs*/, std::string const& /*instance*/)
    {
        return false;
    }
};

//! KIND_CPU: host memory for Kiln's CPU backend. Takes request buffers in CPU memory only.
std::unique_ptr<TensorStaging> makeHostStaging();

//! KIND_GPU: memory of device, a stream of its own, copies to and from CPU or GPU buffers. A BackendError where
//! Kiln's backend was built without CUDA.
std::unique_ptr<TensorStaging> makeDeviceStaging(int32_t device);

} // namespace kiln::triton
