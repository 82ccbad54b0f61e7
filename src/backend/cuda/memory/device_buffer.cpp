#include "backend/cuda/memory/device_buffer.h"

#include "backend/cuda/cuda_error.h"
#include "backend/cuda/memory/default_gpu_allocator.h"

#include <stdexcept>
#include <string>
#include <utility>

namespace kiln::cuda
{
namespace
{

// Every allocation is aligned for any element type and for cuDNN/cuBLAS, as cudaMalloc's are.
constexpr uint64_t kAlignment = 256;

thread_local nvinfer1::IGpuAllocator* tScopedAllocator = nullptr;

nvinfer1::IGpuAllocator& allocatorInScope()
{
    return tScopedAllocator != nullptr ? *tScopedAllocator : defaultGpuAllocator();
}

[[noreturn]] void outOfMemory(size_t bytes, char const* what)
{
    // An allocator that failed inside CUDA may have left the error set: it is reported here, not at the next kernel.
    cudaGetLastError();
    throw std::runtime_error(
        "out of device memory: the GPU allocator could not allocate " + std::to_string(bytes) + " bytes for " + what);
}

} // namespace

DeviceBuffer::DeviceBuffer()
    : mAllocator(&allocatorInScope())
{
}

DeviceBuffer::DeviceBuffer(nvinfer1::IGpuAllocator& allocator)
    : mAllocator(&allocator)
{
}

DeviceBuffer::DeviceBuffer(size_t bytes, char const* what)
    : DeviceBuffer(allocatorInScope(), bytes, what)
{
}

DeviceBuffer::DeviceBuffer(nvinfer1::IGpuAllocator& allocator, size_t bytes, char const* what)
    : mAllocator(&allocator)
{
    // One byte at least, so that an empty buffer still has a distinct, valid address (and allocate(0) means failure).
    size_t const size = bytes > 0 ? bytes : 1;
    mData = static_cast<std::byte*>(mAllocator->allocate(size, kAlignment, 0));
    if (mData == nullptr)
    {
        outOfMemory(size, what);
    }
    mSize = bytes;
}

DeviceBuffer::~DeviceBuffer()
{
    release();
}

void DeviceBuffer::release()
{
    if (mData != nullptr)
    {
        // Synchronous: the streams of past work may be gone by now, and destruction is not on the hot path.
        mAllocator->deallocate(mData);
        mData = nullptr;
        mSize = 0;
    }
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : mAllocator(other.mAllocator)
    , mData(std::exchange(other.mData, nullptr))
    , mSize(std::exchange(other.mSize, 0))
{
}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept
{
    if (this != &other)
    {
        release();
        mAllocator = other.mAllocator;
        mData = std::exchange(other.mData, nullptr);
        mSize = std::exchange(other.mSize, 0);
    }
    return *this;
}

void DeviceBuffer::reserve(size_t bytes, cudaStream_t stream, char const* what)
{
    if (bytes <= mSize && mData != nullptr)
    {
        return;
    }
    // Memory allocated while the stream is captured would belong to the graph, not to this buffer.
    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    if (cudaStreamIsCapturing(stream, &capture) == cudaSuccess && capture != cudaStreamCaptureStatusNone)
    {
        throw std::runtime_error(std::string(what) + ": " + std::to_string(bytes)
            + " bytes of scratch must be allocated, which cannot happen while the stream is captured into a CUDA "
              "graph; run enqueueV3 once with these shapes before capturing (as TensorRT asks too)");
    }
    // The application orders a context's enqueues (the work of the last one is done, or `stream` waits for it), so
    // released on `stream` the old memory is past its last use; the stream of the last call may be gone by now.
    if (mData != nullptr)
    {
        mAllocator->deallocateAsync(mData, stream);
        mData = nullptr;
        mSize = 0;
    }
    size_t const size = bytes > 0 ? bytes : 1;
    mData = static_cast<std::byte*>(mAllocator->allocateAsync(size, kAlignment, 0, stream));
    if (mData == nullptr)
    {
        outOfMemory(size, what);
    }
    mSize = bytes;
}

AllocatorScope::AllocatorScope(nvinfer1::IGpuAllocator& allocator)
    : mOuter(std::exchange(tScopedAllocator, &allocator))
{
}

AllocatorScope::~AllocatorScope()
{
    tScopedAllocator = mOuter;
}

DeviceBuffer& grownZeroed(DeviceBuffer& buffer, size_t bytes, nvinfer1::IGpuAllocator* allocator, char const* what)
{
    if (buffer.size() < bytes)
    {
        buffer = allocator != nullptr ? DeviceBuffer(*allocator, bytes, what) : DeviceBuffer(bytes, what);
        check(cudaMemset(buffer.data(), 0, bytes), what);
    }
    return buffer;
}

DeviceBuffer uploadedCopy(void const* values, size_t bytes, char const* what)
{
    DeviceBuffer buffer(bytes, what);
    check(cudaMemcpy(buffer.data(), values, bytes, cudaMemcpyHostToDevice), what);
    return buffer;
}

} // namespace kiln::cuda
