// IUnaryLayer on the GPU, with the CPU reference's types and rules (backend/cpu/kernels/nn/unary.h).
#pragma once

#include "core/tensor_view.h"

#include <NvInferLayerEnums.h>
#include <cuda_runtime_api.h>

namespace kiln::cuda
{

//! Every UnaryOperation: floating-point tensors computed in float (kISINF/kISNAN write BOOL), kABS/kNEG/kSIGN on
//! INT8/INT32/INT64 (wrapping), kNOT on BOOL. Throws std::invalid_argument for types the CPU reference refuses.
void unaryOnDevice(nvinfer1::UnaryOperation op, ConstTensorView const& input, TensorView const& output,
    cudaStream_t stream);

} // namespace kiln::cuda
