// Kiln's device memory allocator for runtimes whose application set none (IRuntime::setGpuAllocator).
#pragma once

#include <NvInferRuntime.h>

namespace kiln::cuda
{

//! The process-wide default allocator. It pools through CUDA's stream-ordered allocator: cudaMallocAsync and
//! cudaFreeAsync on the device's default memory pool. What a context releases goes back to that pool rather than to
//! the driver, so scratch that grows during enqueueV3 and contexts that come and go reuse memory without a
//! device-wide synchronisation, with no pool of Kiln's own to size, lock or trim. Thread-safe, as CUDA's pool is.
nvinfer1::IGpuAllocator& defaultGpuAllocator();

} // namespace kiln::cuda
