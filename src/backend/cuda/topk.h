// ITopKLayer on the GPU, as the CPU reference (backend/cpu/kernels/tensor/top_k.h): the k largest (kMAX) or
// smallest (kMIN) elements along one axis, best first, with their indices. Any k up to the axis extent (no 3840
// cap); equal values come out lower index first; NaN ranks above every number (first for kMAX, last for kMIN);
// -0 and +0 are equal.
#pragma once

#include "core/tensor_view.h"
#include "backend/cuda/device_buffer.h"
#include "backend/cuda/device_layer.h"
#include "network/layers/top_k.h"

#include <NvInferLayerEnums.h>
#include <cuda_runtime_api.h>

#include <cstdint>

namespace kiln::cuda
{

//! k is the outputs' extent along the axis (a k from the layer's shape-tensor input is already resolved into it);
//! it must be 1 to the axis extent. Values have the input's type (FP32, FP16, BF16, INT32, INT64) and are copied
//! exactly; indices are INT32 or INT64. Large k sorts every row with CUB, in `scratch` (grown on the stream as
//! needed). Throws std::invalid_argument for what the CPU reference refuses.
void topKOnDevice(nvinfer1::TopKOperation operation, uint32_t reduceAxes, ConstTensorView const& input,
    TensorView const& values, TensorView const& indices, DeviceBuffer& scratch, cudaStream_t stream);

//! The layer in one execution context. Its only state is the sort's scratch memory: kept for the context's life,
//! so that runs after the first allocate nothing, and allocated through the context's allocator (a DeviceBuffer
//! made while the context makes its layers), as all the backend's device memory is.
class TopKLayer final : public DeviceLayer
{
public:
    explicit TopKLayer(network::TopKParams const& params)
        : mOperation(params.operation)
        , mReduceAxes(params.reduceAxes)
    {
    }

    //! Input 1, when given, held k; the outputs' shape already has it.
    void run(std::vector<ConstTensorView> const& inputs, std::vector<TensorView> const& outputs,
        cudaStream_t stream) override;

private:
    nvinfer1::TopKOperation mOperation;
    uint32_t mReduceAxes;
    DeviceBuffer mScratch;
};

} // namespace kiln::cuda
