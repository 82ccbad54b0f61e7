// Which layers the CUDA backend runs, and the DeviceLayer that runs one in an execution context: found, for each
// layer kind, from the kernel layer_kernels.h declares for it.
#pragma once

#include "backend/cuda/layer_kernels.h"

#include <string>

namespace kiln::cuda
{

//! Empty when the CUDA backend runs the built-in layer `params`; else why not, for the builder's error.
std::string unsupportedReason(network::LayerParams const& params);

//! The layer `context.record` lowered for one execution context. Throws std::runtime_error when it cannot be made
//! (a kind without a CUDA kernel, memory that cannot be allocated, a library that refuses it).
std::unique_ptr<DeviceLayer> lowerLayer(LayerContext const& context);

} // namespace kiln::cuda
