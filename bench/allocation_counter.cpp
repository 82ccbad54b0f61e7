#include "allocation_counter.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <execinfo.h>
#include <new>
#include <unistd.h>

namespace
{

std::atomic<uint64_t> gAllocations{0};
std::atomic<bool> gTracing{false};
std::atomic<bool> gAttributing{false};
std::atomic<uint64_t> gLibraryAllocations{0};

//! Counts the allocation apart when `caller` (the code that called operator new) lies in cuDNN or cuBLAS.
void attribute(void const* caller)
{
    if (!gAttributing.load(std::memory_order_relaxed))
    {
        return;
    }
    Dl_info library{};
    if (dladdr(caller, &library) != 0 && library.dli_fname != nullptr
        && (std::strstr(library.dli_fname, "libcudnn") != nullptr
            || std::strstr(library.dli_fname, "libcublas") != nullptr))
    {
        gLibraryAllocations.fetch_add(1, std::memory_order_relaxed);
    }
}

//! Writes the caller's stack when tracing. backtrace may allocate itself (its first call loads the unwinder), so a
//! thread already writing a stack counts that allocation without writing another.
void traceCaller()
{
    thread_local bool writing = false;
    if (!gTracing.load(std::memory_order_relaxed) || writing)
    {
        return;
    }
    writing = true;
    void* frames[32];
    int const depth = backtrace(frames, 32);
    static char const header[] = "-- operator new called from:\n";
    [[maybe_unused]] ssize_t const written = write(STDERR_FILENO, header, sizeof(header) - 1);
    backtrace_symbols_fd(frames + 2, depth - 2, STDERR_FILENO); // without traceCaller and allocate
    writing = false;
}

void* allocate(std::size_t bytes, void const* caller)
{
    gAllocations.fetch_add(1, std::memory_order_relaxed);
    attribute(caller);
    traceCaller();
    return std::malloc(bytes == 0 ? 1 : bytes);
}

void* allocateAligned(std::size_t bytes, std::align_val_t alignment, void const* caller)
{
    gAllocations.fetch_add(1, std::memory_order_relaxed);
    attribute(caller);
    traceCaller();
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

void attributeAllocations(bool on)
{
    gAttributing.store(on, std::memory_order_relaxed);
}

uint64_t libraryAllocationCount()
{
    return gLibraryAllocations.load(std::memory_order_relaxed);
}

void traceAllocations(bool on)
{
    gTracing.store(on, std::memory_order_relaxed);
}

} // namespace kiln_bench

// The replacements. The throwing forms throw std::bad_alloc as the standard ones do; every delete frees. Each passes
// its caller (__builtin_return_address(0)) on, for attributeAllocations.
namespace
{

void* orThrow(void* memory)
{
    if (memory == nullptr)
    {
        throw std::bad_alloc();
    }
    return memory;
}

} // namespace

void* operator new(std::size_t bytes)
{
    return orThrow(allocate(bytes, __builtin_return_address(0)));
}
void* operator new[](std::size_t bytes)
{
    return orThrow(allocate(bytes, __builtin_return_address(0)));
}
void* operator new(std::size_t bytes, std::nothrow_t const&) noexcept
{
    return allocate(bytes, __builtin_return_address(0));
}
void* operator new[](std::size_t bytes, std::nothrow_t const&) noexcept
{
    return allocate(bytes, __builtin_return_address(0));
}
void* operator new(std::size_t bytes, std::align_val_t alignment)
{
    return orThrow(allocateAligned(bytes, alignment, __builtin_return_address(0)));
}
void* operator new[](std::size_t bytes, std::align_val_t alignment)
{
    return orThrow(allocateAligned(bytes, alignment, __builtin_return_address(0)));
}
void* operator new(std::size_t bytes, std::align_val_t alignment, std::nothrow_t const&) noexcept
{
    return allocateAligned(bytes, alignment, __builtin_return_address(0));
}
void* operator new[](std::size_t bytes, std::align_val_t alignment, std::nothrow_t const&) noexcept
{
    return allocateAligned(bytes, alignment, __builtin_return_address(0));
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
