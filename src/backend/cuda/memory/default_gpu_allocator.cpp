#include "backend/cuda/memory/default_gpu_allocator.h"

#include <cuda_runtime_api.h>

#include <cstdint>

namespace kiln::cuda
{
namespace
{

class DefaultGpuAllocator final : public nvinfer1::IGpuAllocator
{
public:
    void* allocateAsync(uint64_t const size, uint64_t const alignment, nvinfer1::AllocatorFlags const,
        cudaStream_t stream) noexcept override
    {
        if (size == 0)
        {
            return nullptr;
        }
        void* memory = nullptr;
        if (cudaMallocAsync(&memory, size, stream) != cudaSuccess)
        {
            // Out of memory is not a sticky error: clear it, so that it is not blamed on the next kernel checked.
            cudaGetLastError();
            return nullptr;
        }
        // The pool aligns as cudaMalloc does (256 bytes at least); a stricter request is one it cannot promise.
        if (alignment > 1 && reinterpret_cast<uintptr_t>(memory) % alignment != 0)
        {
            cudaFreeAsync(memory, stream);
            return nullptr;
        }
        return memory;
    }

    bool deallocateAsync(void* const memory, cudaStream_t stream) noexcept override
    {
        return memory == nullptr || cudaFreeAsync(memory, stream) == cudaSuccess;
    }

    // The synchronous calls use the legacy default stream, whose work waits for the work already queued on every
    // blocking stream: memory is then ready for (or released after) the work of every such stream.
    void* allocate(
        uint64_t const size, uint64_t const alignment, nvinfer1::AllocatorFlags const flags) noexcept override
    {
        void* const memory = allocateAsync(size, alignment, flags, nullptr);
        if (memory != nullptr && cudaStreamSynchronize(nullptr) != cudaSuccess)
        {
            cudaFreeAsync(memory, nullptr);
            return nullptr;
        }
        return memory;
    }

    bool deallocate(void* const memory) noexcept override
    {
        return deallocateAsync(memory, nullptr);
    }
};

} // namespace

nvinfer1::IGpuAllocator& defaultGpuAllocator()
{
    static DefaultGpuAllocator allocator;
    return allocator;
}

} // namespace kiln::cuda
