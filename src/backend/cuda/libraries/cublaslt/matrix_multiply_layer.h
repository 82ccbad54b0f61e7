// IMatrixMultiplyLayer on the GPU through cuBLASLt: one strided-batched matmul over the batch
// axes, an operand with batch extents of 1 repeated by a stride of 0. FP32 accumulates in
// FP32 without TF32, FP16 on tensor cores with FP32 accumulation. A bias and ReLU that the
// builder fused run in cuBLASLt's epilogue, a bias row per matrix where products were merged. The algorithm is one of
// cuBLASLt's heuristic choices: the rank the builder's timing kept (product_timing.h), else the first; it is chosen
// again only when the shapes (or the operands' alignment) change. The checks and the operands are prepared once per
// shape and addresses.
#pragma once

#include "backend/cuda/libraries/cublaslt/matrix_multiply_descriptors.h"
#include "backend/cuda/libraries/library_handles.h"
#include "backend/cuda/memory/device_buffer.h"
#include "backend/cuda/prepared_kernel_layer.h"
#include "backend/cuda/tuning/algorithm_choice.h"
#include "network/layers/matrix_multiply.h"
#include "plan/plan_model.h"

#include <array>
#include <cstdint>
#include <optional>

namespace kiln::cuda
{

class MatrixMultiplyLayer final : public PreparedKernelLayer
{
public:
    //! `dataType`: the type the layer reads and writes, in which the fused bias is uploaded. `choice`: the builder's
    //! (AlgorithmChoice::gemm with the rank it timed fastest), or kHEURISTIC for cuBLASLt's first.
    MatrixMultiplyLayer(network::MatrixMultiplyParams const& params, plan::Epilogue const& epilogue,
        AlgorithmChoice choice, nvinfer1::DataType dataType, LibraryHandles& handles);

private:
    //! What the descriptors and the algorithm depend on.
    struct Problem
    {
        Shape input0;
        Shape input1;
        GemmAlignments alignments;
    };

    //! What a run does, prepared for the views it was given.
    struct Run
    {
        enum class Work : uint8_t
        {
            kNONE,     //!< an empty output
            kZERO,     //!< a product over an inner extent of 0: zeros
            kMULTIPLY, //!< cuBLASLt's matmul
        };
        Work work{Work::kNONE};
        void const* a{nullptr}; //!< the layer's inputs and output
        void const* b{nullptr};
        void* c{nullptr};
        size_t zeroBytes{0};
    };

    void prepare(std::vector<ConstTensorView> const& inputs, std::vector<TensorView> const& outputs) override;
    void launch(cudaStream_t stream) override;
    //! The product's geometry for inputs of these shapes, computed again only when they changed: views at new
    //! addresses (double buffering) prepare at every run, and computing it allocates.
    GemmGeometry const& geometryFor(Shape const& input0, Shape const& input1);
    //! Describes the product and chooses its algorithm, unless they are already for these shapes and alignments.
    //! `biasRowPerMatrix`: the fused bias holds a row for each matrix of the batch (plan::Epilogue::bias).
    void describe(Shape const& input0, Shape const& input1, GemmAlignments const& alignments,
        GemmGeometry const& geometry, bool biasRowPerMatrix);

    network::MatrixMultiplyParams const& mParams;
    plan::Epilogue const& mEpilogue;
    AlgorithmChoice mChoice;
    nvinfer1::DataType mDataType;
    LibraryHandles& mHandles;
    DeviceBuffer mBias; //!< the fused bias in mDataType; empty without one
    DeviceBuffer mWorkspace;
    std::optional<GemmGeometry> mGeometry; //!< for inputs of mGeometryShapes
    std::array<Shape, 2> mGeometryShapes;
    Problem mProblem; //!< the problem the descriptors and algorithm below are for, where mDescribed
    bool mDescribed{false};
    MatrixMultiplyDescriptors mDescriptors;
    cublasLtMatmulAlgo_t mAlgorithm{};
    size_t mWorkspaceBytes{0};
    Run mRun;
};

} // namespace kiln::cuda
