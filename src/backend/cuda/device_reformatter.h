// The CUDA backend's reformatter: type and format conversions in device memory, queued on the stream, into scratch
// that comes from the context's allocator.
#pragma once

#include "backend/reformatter.h"

#include <NvInferRuntime.h>

#include <memory>

namespace kiln::cuda
{

//! `allocator` must outlive the reformatter.
std::unique_ptr<backend::Reformatter> makeDeviceReformatter(nvinfer1::IGpuAllocator& allocator);

} // namespace kiln::cuda
