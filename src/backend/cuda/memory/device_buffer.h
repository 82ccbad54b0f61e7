// Device memory owned by one object, allocated through an IGpuAllocator: the execution
// context's (the runtime's allocator, or Kiln's default). Every piece of device memory the
// CUDA backend owns is a DeviceBuffer: a context's activations, uploaded weights, scratch.
// Growing is stream-ordered (allocateAsync and deallocateAsync), so a buffer that grows
// inside enqueueV3 does not synchronise the device.
#pragma once

#include <NvInferRuntime.h>

#include <cuda_runtime_api.h>

#include <cstddef>

namespace kiln::cuda
{

class DeviceBuffer
{
public:
    //! Empty. It allocates through the allocator in scope on this thread when it is made (AllocatorScope), else
    //! through Kiln's default allocator.
    DeviceBuffer();
    //! Empty. It allocates through `allocator`, which must outlive it.
    explicit DeviceBuffer(nvinfer1::IGpuAllocator& allocator);
    //! `bytes` of device memory, ready for any stream (allocated synchronously, as at context creation), through
    //! the allocator in scope as above. Throws std::runtime_error naming `what` and the size when out of memory.
    explicit DeviceBuffer(size_t bytes, char const* what = "device memory");
    DeviceBuffer(nvinfer1::IGpuAllocator& allocator, size_t bytes, char const* what);
    ~DeviceBuffer();
    DeviceBuffer(DeviceBuffer&& other) noexcept;
    DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
    DeviceBuffer(DeviceBuffer const&) = delete;
    DeviceBuffer& operator=(DeviceBuffer const&) = delete;

    std::byte* data() const
    {
        return mData;
    }
    size_t size() const
    {
        return mSize;
    }
    //! Makes the buffer at least `bytes` large for work on `stream`, without synchronising; old contents are lost.
    //! Throws std::runtime_error naming `what` and the size when out of memory, leaving the buffer empty.
    void reserve(size_t bytes, cudaStream_t stream, char const* what = "scratch memory");

private:
    void release();

    nvinfer1::IGpuAllocator* mAllocator;
    std::byte* mData{nullptr};
    size_t mSize{0};
};

//! `buffer`, replaced where it is smaller than `bytes` by a buffer of `bytes` zeros from `allocator` (nullptr: the
//! thread's allocator). The builder's timers keep their operands so: the values do not change a timing.
DeviceBuffer& grownZeroed(DeviceBuffer& buffer, size_t bytes, nvinfer1::IGpuAllocator* allocator, char const* what);

//! A device copy of `bytes` of host memory at `values`, from the allocator in scope (synchronously, as at context
//! creation). Throws std::runtime_error naming `what` when out of memory or the copy fails.
DeviceBuffer uploadedCopy(void const* values, size_t bytes, char const* what);

//! While it lives, DeviceBuffers made on this thread without an allocator allocate through `allocator`. An execution
//! context holds one while it makes its layers, so that the layers' buffers come from the context's allocator
//! without every layer constructor passing it on.
class AllocatorScope
{
public:
    explicit AllocatorScope(nvinfer1::IGpuAllocator& allocator);
    ~AllocatorScope();
    AllocatorScope(AllocatorScope const&) = delete;
    AllocatorScope& operator=(AllocatorScope const&) = delete;

private:
    nvinfer1::IGpuAllocator* mOuter; //!< the scope this one hides, restored when it ends
};

} // namespace kiln::cuda
