// The part of a fused convolution's epilogue that cuDNN's precompiled graph engines leave out:
// adding the residual (a ResNet shortcut) and the ReLU after it, in one pass over the output.
#pragma once

#include <NvInferRuntimeBase.h>
#include <cuda_runtime_api.h>

#include <cstdint>

namespace kiln::cuda
{

//! output = relu(output + residual) (output + residual where `relu` is false) over `count` FP32 or FP16 values,
//! computed in float; a NaN stays NaN through the ReLU, as on the CPU reference. Throws std::invalid_argument for
//! another type.
void addResidualOnDevice(
    void* output, void const* residual, int64_t count, nvinfer1::DataType type, bool relu, cudaStream_t stream);

} // namespace kiln::cuda
