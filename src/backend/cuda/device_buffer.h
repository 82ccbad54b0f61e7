// Device memory owned by one object. Growing is stream-ordered (cudaMallocAsync and
// cudaFreeAsync), so a buffer that grows inside enqueueV3 does not synchronise the
// device, and CUDA's memory pool recycles what is released.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

namespace kiln::cuda
{

class DeviceBuffer
{
public:
    DeviceBuffer() = default;
    //! `bytes` of device memory, ready for any stream (allocated synchronously, as at context creation). Throws
    //! std::runtime_error when out of memory.
    explicit DeviceBuffer(size_t bytes);
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
    void reserve(size_t bytes, cudaStream_t stream);

private:
    std::byte* mData{nullptr};
    size_t mSize{0};
    cudaStream_t mStream{nullptr}; //!< the stream of the last reserve: where the memory was last used
};

} // namespace kiln::cuda
