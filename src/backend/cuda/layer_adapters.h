// The layers whose parameters need more than a field copy to become their CUDA kernel's:
// what layer_runner.cpp calls for them, kept apart so the dispatch stays one line per case.
#pragma once

#include "core/tensor_view.h"
#include "network/layers/layer_kinds.h"

#include <cuda_runtime_api.h>

#include <vector>

namespace kiln::cuda
{

//! The transposes for the input's and the output's ranks; the output shape already holds the resolved reshape.
void runShuffleLayerOnDevice(network::ShuffleParams const& params, std::vector<ConstTensorView> const& in,
    std::vector<TensorView> const& out, cudaStream_t stream);

//! Static start/stride, or inputs 1 and 3 (device tensors) when given; the size is the output's shape; input 4 is
//! the fill value.
void runSliceLayerOnDevice(network::SliceParams const& params, std::vector<ConstTensorView> const& in,
    std::vector<TensorView> const& out, cudaStream_t stream);

void runPoolingLayerOnDevice(network::PoolingParams const& params, std::vector<ConstTensorView> const& in,
    std::vector<TensorView> const& out, cudaStream_t stream);

} // namespace kiln::cuda
