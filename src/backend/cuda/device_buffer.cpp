#include "backend/cuda/device_buffer.h"

#include "backend/cuda/cuda_error.h"

#include <utility>

namespace kiln::cuda
{

DeviceBuffer::DeviceBuffer(size_t bytes)
    : mSize(bytes)
{
    void* memory = nullptr;
    // One byte at least, so that an empty buffer still has a distinct, valid address.
    check(cudaMalloc(&memory, bytes > 0 ? bytes : 1), "allocating device memory");
    mData = static_cast<std::byte*>(memory);
}

DeviceBuffer::~DeviceBuffer()
{
    // Synchronous: the streams of past work may be gone by now, and destruction is not on the hot path.
    cudaFree(mData);
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : mData(std::exchange(other.mData, nullptr))
    , mSize(std::exchange(other.mSize, 0))
    , mStream(other.mStream)
{
}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept
{
    if (this != &other)
    {
        cudaFree(mData);
        mData = std::exchange(other.mData, nullptr);
        mSize = std::exchange(other.mSize, 0);
        mStream = other.mStream;
    }
    return *this;
}

void DeviceBuffer::reserve(size_t bytes, cudaStream_t stream)
{
    if (bytes <= mSize && mData != nullptr)
    {
        mStream = stream;
        return;
    }
    // The application orders a context's enqueues, so the old memory's last use is on the stream of the last call.
    if (mData != nullptr)
    {
        cudaFreeAsync(mData, mStream);
        mData = nullptr;
        mSize = 0;
    }
    void* memory = nullptr;
    check(cudaMallocAsync(&memory, bytes > 0 ? bytes : 1, stream), "allocating device memory");
    mData = static_cast<std::byte*>(memory);
    mSize = bytes;
    mStream = stream;
}

} // namespace kiln::cuda
