#include "allocation_counter.h"

#include <atomic>
#include <cstdlib>
#include <new>

namespace
{

std::atomic<uint64_t> gAllocations{0};

void* allocate(std::size_t bytes)
{
    gAllocations.fetch_add(1, std::memory_order_relaxed);
    return std::malloc(bytes == 0 ? 1 : bytes);
}

void* allocateAligned(std::size_t bytes, std::align_val_t alignment)
{
    gAllocations.fetch_add(1, std::memory_order_relaxed);
    auto const align = static_cast<std::size_t>(alignment);
    // aligned_alloc wants a size that is a multiple of the alignment.
    return std::aligned_alloc(align, (bytes + align - 1) / align * align + (bytes == 0 ? align : 0));
}

} // namespace

namespace kiln_bench
{

uint64_t allocationCount()
{
    return gAllocations.load(std::memory_order_relaxed);
}

} // namespace kiln_bench

// The replacements. The throwing forms throw std::bad_alloc as the standard ones do; every delete frees.
void* operator new(std::size_t bytes)
{
    if (void* memory = allocate(bytes))
    {
        return memory;
    }
    throw std::bad_alloc();
}
void* operator new[](std::size_t bytes)
{
    return operator new(bytes);
}
void* operator new(std::size_t bytes, std::nothrow_t const&) noexcept
{
    return allocate(bytes);
}
void* operator new[](std::size_t bytes, std::nothrow_t const&) noexcept
{
    return allocate(bytes);
}
void* operator new(std::size_t bytes, std::align_val_t alignment)
{
    if (void* memory = allocateAligned(bytes, alignment))
    {
        return memory;
    }
    throw std::bad_alloc();
}
void* operator new[](std::size_t bytes, std::align_val_t alignment)
{
    return operator new(bytes, alignment);
}
void* operator new(std::size_t bytes, std::align_val_t alignment, std::nothrow_t const&) noexcept
{
    return allocateAligned(bytes, alignment);
}
void* operator new[](std::size_t bytes, std::align_val_t alignment, std::nothrow_t const&) noexcept
{
    return allocateAligned(bytes, alignment);
}
void operator delete(void* memory) noexcept
{
    std::free(memory);
}
void operator delete[](void* memory) noexcept
{
    std::free(memory);
}
void operator delete(void* memory, std::size_t) noexcept
{
    std::free(memory);
}
void operator delete[](void* memory, std::size_t) noexcept
{
    std::free(memory);
}
void operator delete(void* memory, std::align_val_t) noexcept
{
    std::free(memory);
}
void operator delete[](void* memory, std::align_val_t) noexcept
{
    std::free(memory);
}
void operator delete(void* memory, std::size_t, std::align_val_t) noexcept
{
    std::free(memory);
}
void operator delete[](void* memory, std::size_t, std::align_val_t) noexcept
{
    std::free(memory);
}
void operator delete(void* memory, std::nothrow_t const&) noexcept
{
    std::free(memory);
}
void operator delete[](void* memory, std::nothrow_t const&) noexcept
{
    std::free(memory);
}
void operator delete(void* memory, std::align_val_t, std::nothrow_t const&) noexcept
{
    std::free(memory);
}
void operator delete[](void* memory, std::align_val_t, std::nothrow_t const&) noexcept
{
    std::free(memory);
}
