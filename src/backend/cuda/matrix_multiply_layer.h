// IMatrixMultiplyLayer on the GPU through cuBLAS: one strided-batched GEMM over the batch
// axes, an operand with batch extents of 1 repeated by a stride of 0. FP32 accumulates in
// FP32 without TF32, FP16 on tensor cores with FP32 accumulation.
#pragma once

#include "backend/cuda/device_layer.h"
#include "network/layers/matrix_multiply.h"

namespace kiln::cuda
{

class MatrixMultiplyLayer final : public DeviceLayer
{
public:
    MatrixMultiplyLayer(network::MatrixMultiplyParams const& params, LibraryHandles& handles)
        : mParams(params)
        , mHandles(handles)
    {
    }

    void run(std::vector<cpu::ConstTensorView> const& inputs, std::vector<cpu::TensorView> const& outputs,
        cudaStream_t stream) override;

private:
    network::MatrixMultiplyParams const& mParams;
    LibraryHandles& mHandles;
};

} // namespace kiln::cuda
