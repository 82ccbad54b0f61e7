// ISelectLayer on the GPU, as the CPU reference (backend/cpu/kernels/tensor/select.h):
// output = condition ? then : else, element by element, with numpy broadcasting of all three.
#pragma once

#include "core/tensor_view.h"

#include <cuda_runtime_api.h>

namespace kiln::cuda
{

//! The condition is BOOL (any nonzero byte is true); then, else and output share one byte-addressable type.
//! Inputs of lower rank are aligned to the output's last dims. Throws std::invalid_argument otherwise.
void selectOnDevice(ConstTensorView const& condition, ConstTensorView const& thenInput,
    ConstTensorView const& elseInput, TensorView const& output, cudaStream_t stream);

} // namespace kiln::cuda
