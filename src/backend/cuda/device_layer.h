// One built-in layer as a context of the CUDA backend runs it: made once per execution context (uploading weights,
// making library descriptors, choosing algorithms; see layer_kernels.h), run for every inference.
#pragma once

#include "core/tensor_view.h"

#include <cuda_runtime_api.h>

#include <vector>

namespace kiln::cuda
{

class DeviceLayer
{
public:
    virtual ~DeviceLayer() = default;
    //! Queues the layer's work on `stream`. Throws std::invalid_argument or std::runtime_error saying what is wrong.
    virtual void run(
        std::vector<ConstTensorView> const& inputs, std::vector<TensorView> const& outputs, cudaStream_t stream)
        = 0;
};

} // namespace kiln::cuda
