// IMatrixMultiplyLayer on the GPU through cuBLASLt: one strided-batched matmul over the batch
// axes, an operand with batch extents of 1 repeated by a stride of 0. FP32 accumulates in
// FP32 without TF32, FP16 on tensor cores with FP32 accumulation. A bias and ReLU that the
// builder fused run in cuBLASLt's epilogue. The algorithm is cuBLASLt's heuristic choice,
// made again only when the shapes (or the operands' alignment) change.
#pragma once

#include "backend/cuda/device_buffer.h"
#include "backend/cuda/device_layer.h"
#include "backend/cuda/library_handles.h"
#include "backend/cuda/matrix_multiply_descriptors.h"
#include "network/layers/matrix_multiply.h"
#include "plan/plan_model.h"

#include <optional>

namespace kiln::cuda
{

class MatrixMultiplyLayer final : public DeviceLayer
{
public:
    //! `dataType`: the type the layer reads and writes, in which the fused bias is uploaded.
    MatrixMultiplyLayer(network::MatrixMultiplyParams const& params, plan::Epilogue const& epilogue,
        nvinfer1::DataType dataType, LibraryHandles& handles);

    void run(std::vector<ConstTensorView> const& inputs, std::vector<TensorView> const& outputs,
        cudaStream_t stream) override;

private:
    //! What the descriptors and the algorithm depend on.
    struct Problem
    {
        Shape input0;
        Shape input1;
        GemmAlignments alignments;

        bool operator==(Problem const&) const = default;
    };

    void prepare(Problem const& problem, GemmGeometry const& geometry);

    network::MatrixMultiplyParams const& mParams;
    plan::Epilogue const& mEpilogue;
    nvinfer1::DataType mDataType;
    LibraryHandles& mHandles;
    DeviceBuffer mBias; //!< the fused bias in mDataType; empty without one
    DeviceBuffer mWorkspace;
    std::optional<Problem> mPrepared; //!< the problem the descriptors and algorithm below are for
    MatrixMultiplyDescriptors mDescriptors;
    cublasLtMatmulAlgo_t mAlgorithm{};
    size_t mWorkspaceBytes{0};
};

} // namespace kiln::cuda
