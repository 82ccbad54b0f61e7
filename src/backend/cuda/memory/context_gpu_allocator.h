// The allocator one execution context allocates through and lends its plugins: it forwards
// to the runtime's allocator (or Kiln's default) and never lets an exception out.
#pragma once

#include <NvInferRuntime.h>

namespace kiln::cuda
{

//! One per execution context, so that its address is distinct for contexts that exist at the same time: TensorRT
//! promises plugins that, and some key per-context resources (their own cuBLAS handle, say) on it.
class ContextGpuAllocator final : public nvinfer1::IGpuAllocator
{
public:
    //! `target` must outlive this allocator (TensorRT asks the same of an application's allocator).
    explicit ContextGpuAllocator(nvinfer1::IGpuAllocator& target)
        : mTarget(target)
    {
    }

    // An application's allocator that throws fails the allocation instead (the API is noexcept).
    void* allocate(
        uint64_t const size, uint64_t const alignment, nvinfer1::AllocatorFlags const flags) noexcept override
    {
        try
        {
            return mTarget.allocate(size, alignment, flags);
        }
        catch (...)
        {
            return nullptr;
        }
    }
    void* reallocate(void* const memory, uint64_t alignment, uint64_t newSize) noexcept override
    {
        try
        {
            return mTarget.reallocate(memory, alignment, newSize);
        }
        catch (...)
        {
            return nullptr;
        }
    }
    bool deallocate(void* const memory) noexcept override
    {
        try
        {
            return mTarget.deallocate(memory);
        }
        catch (...)
        {
            return false;
        }
    }
    void* allocateAsync(uint64_t const size, uint64_t const alignment, nvinfer1::AllocatorFlags const flags,
        cudaStream_t stream) noexcept override
    {
        try
        {
            return mTarget.allocateAsync(size, alignment, flags, stream);
        }
        catch (...)
        {
            return nullptr;
        }
    }
    bool deallocateAsync(void* const memory, cudaStream_t stream) noexcept override
    {
        try
        {
            return mTarget.deallocateAsync(memory, stream);
        }
        catch (...)
        {
            return false;
        }
    }

private:
    nvinfer1::IGpuAllocator& mTarget;
};

} // namespace kiln::cuda
