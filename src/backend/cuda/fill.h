// IFillLayer on the GPU, as the CPU reference computes it (backend/cpu/kernels/tensor/fill.h and random_fill.h):
// kLINSPACE into FP32, FP16, BF16, INT32 or INT64; kRANDOM_UNIFORM and kRANDOM_NORMAL into FP32, FP16 or BF16, with
// the CPU's own generator (counter_random.h), so both backends give the same tensor.
#pragma once

#include "core/tensor_view.h"

#include <NvInferLayerEnums.h>
#include <cuda_runtime_api.h>

namespace kiln::cuda
{

//! A fill's alpha or beta: the layer's static value, or its tensor input when one is given (device memory, read by
//! the kernel, so the queueing thread never waits for the GPU). A kLINSPACE beta input holds one delta per output
//! dim; every other input is 0-D. Inputs may be FP32, FP16, BF16, INT32 or INT64.
struct FillOperand
{
    double value{0.0};
    ConstTensorView input{}; //!< the default view (no data, one element) stands for no input

    //! As the CPU reference decides it (hasInput, backend/cpu/kernels/layer_inputs.h): a given input has data, or no elements (and then may have no data).
    bool fromInput() const
    {
        return input.data != nullptr || input.count() == 0;
    }
};

//! The output's shape is the fill's (its shape input, when given, is not read). Throws std::invalid_argument for
//! what the CPU reference refuses when it can be seen on the host: output types, a static kLINSPACE beta for an
//! output of rank > 1, a beta input of the wrong length, and static random bounds that are not finite, a uniform
//! minimum above its maximum or a negative deviation. Random bounds from inputs are checked on the device: where
//! the CPU would refuse them, every output element is NaN instead.
void fillOnDevice(nvinfer1::FillOperation operation, FillOperand const& alpha, FillOperand const& beta,
    TensorView const& output, cudaStream_t stream);

} // namespace kiln::cuda
