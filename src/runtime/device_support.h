// What the runtime needs from the CUDA backend, declared for every build: in builds
// without CUDA these throw std::runtime_error, and no CUDA plan gets this far anyway.
#pragma once

#include "plugin/adapter/plugin_adapter.h"
#include "runtime/layer_executor.h"
#include "runtime/reformatter.h"

#include <memory>

namespace kiln::runtime
{

//! Converts in device memory, queued on the stream; its scratch comes from `allocator`, which must outlive it.
std::unique_ptr<Reformatter> makeDeviceReformatter(nvinfer1::IGpuAllocator& allocator);

//! The CUDA backend's executor for `engine`; it fills in `resources` (handles, allocator) for the context's
//! plugins. Throws std::runtime_error when there is no usable GPU or no memory.
std::unique_ptr<LayerExecutor> makeCudaExecutor(Engine const& engine, plugin::ContextResources& resources);

} // namespace kiln::runtime
