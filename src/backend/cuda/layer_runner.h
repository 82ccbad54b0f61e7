// Runs one built-in layer on the GPU with Kiln's CUDA kernels: what the CUDA backend
// can run today, and the dispatch from a layer's parameters to its kernel.
#pragma once

#include "core/tensor_view.h"
#include "network/layer.h"

#include <cuda_runtime_api.h>

#include <string>
#include <vector>

namespace kiln::cuda
{

//! Empty when the CUDA backend can run the layer; else why not, for the builder's error.
std::string unsupportedReason(network::LayerParams const& params);

//! Queues the layer's work on `stream`. Constant and Scale layers read their weights from `constantData` (device
//! memory the caller uploaded). False with `error` saying what is wrong.
bool runLayer(network::LayerParams const& params, std::vector<ConstTensorView> const& inputs,
    std::vector<TensorView> const& outputs, void const* constantData, cudaStream_t stream, std::string& error);

} // namespace kiln::cuda
