// What the runtime needs from the CUDA backend, declared for every build: in builds
// without CUDA these throw std::runtime_error, and no CUDA plan gets this far anyway.
#pragma once

#include "runtime/layer_executor.h"
#include "runtime/reformatter.h"

#include <cstddef>
#include <memory>

namespace kiln::runtime
{

//! `bytes` of device memory (at least one byte), released when the last owner lets go.
std::shared_ptr<std::byte> allocateDeviceMemory(size_t bytes);

//! Converts in device memory, queued on the stream.
std::unique_ptr<Reformatter> makeDeviceReformatter();

//! The CUDA backend's executor for `engine`. Throws std::runtime_error when there is no usable GPU.
std::unique_ptr<LayerExecutor> makeCudaExecutor(Engine const& engine);

} // namespace kiln::runtime
