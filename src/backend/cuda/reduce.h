// IReduceLayer on the GPU, as the CPU reference (backend/cpu/kernels/tensor/reduce.h).
#pragma once

#include "core/tensor_view.h"

#include <NvInferLayerEnums.h>
#include <cuda_runtime_api.h>

#include <cstdint>

namespace kiln::cuda
{

//! Every ReduceOperation over the axes bit i of `axes` names; the output has the kept dims (and 1 for each reduced
//! one with keepDimensions). FP32/FP16/BF16 accumulate in double (max/min propagate NaN; avg of nothing is NaN);
//! INT32/INT64 wrap and avg truncates toward zero. Reducing nothing gives the operation's identity. The input may be
//! stored kLINEAR or kHWC (read through its strides); the output is kLINEAR.
void reduceOnDevice(nvinfer1::ReduceOperation op, uint32_t axes, bool keepDimensions,
    ConstTensorView const& input, TensorView const& output, cudaStream_t stream);

} // namespace kiln::cuda
