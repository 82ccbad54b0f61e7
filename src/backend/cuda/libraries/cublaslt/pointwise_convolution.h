// A 1x1 convolution with stride 1 and no padding over channels-last data is a matrix product: the input is [N H W, C]
// row-major, the kernel [K, C], the output [N H W, K]. Run as one cuBLASLt GEMM, its bias, ReLU and residual fuse into
// the library's epilogue (the residual as the product's C, added with beta 1), so the layer reads and writes each
// tensor once. cuDNN's kernels for ResNet's first-stage 1x1 convolutions with their residual (64 to 256 maps at
// 56 x 56) moved their bytes at about half the memory's rate. The builder times this beside cuDNN's algorithms and
// keeps the fastest (convolution_timing.h).
#pragma once

#include "backend/cuda/libraries/cublaslt/matrix_multiply_descriptors.h"
#include "backend/cuda/libraries/cudnn/convolution_descriptors.h"
#include "core/tensor_view.h"
#include "network/layers/convolution.h"
#include "plan/plan_model.h"

#include <cublasLt.h>
#include <cuda_runtime_api.h>

namespace kiln::cuda
{

class PointwiseConvolution
{
public:
    //! Whether `params` with `epilogue` on an input of `inputShape` in `type`, stored in `format`, is such a product:
    //! FP16 or FP32 in kHWC, a 1x1 kernel, stride 1, no padding, no groups, and an epilogue of a ReLU at most beside
    //! the bias and residual.
    static bool takes(network::ConvolutionParams const& params, plan::Epilogue const& epilogue, Shape const& inputShape,
        nvinfer1::DataType type, TensorFormat format);

    //! Prepared for `geometry` (convolutionGeometry at the input shape) in `type`, adding `bias` (device memory, K
    //! values of `type`; nullptr for none) and applying a ReLU where `relu`; cuBLASLt's heuristics choose the algorithm
    //! through `handle`. Throws std::invalid_argument for a geometry `takes` refuses.
    PointwiseConvolution(ConvolutionGeometry const& geometry, nvinfer1::DataType type, void const* bias, bool relu,
        cublasLtHandle_t handle);
    PointwiseConvolution(PointwiseConvolution const&) = delete;
    PointwiseConvolution& operator=(PointwiseConvolution const&) = delete;

    //! The workspace the chosen algorithm uses (at most kMaxGemmWorkspaceBytes): what `run` is given.
    size_t workspaceBytes() const
    {
        return mWorkspaceBytes;
    }

    //! Queues output = relu(input . kernel^T + bias + residual): `kernel` [K, C] (uploadKernel's channels-last order),
    //! `residual` shaped as the output or nullptr. Chooses the algorithm again, within the same workspace, where the
    //! addresses are aligned less than those it was chosen for.
    void run(cublasLtHandle_t handle, void const* input, void const* kernel, void const* residual, void* output,
        void* workspace, cudaStream_t stream);

private:
    MatrixMultiplyDescriptors mDescriptors;
    GemmAlignments mAlignments; //!< those the algorithm was chosen for
    cublasLtMatmulAlgo_t mAlgorithm{};
    size_t mWorkspaceBytes{0};
};

} // namespace kiln::cuda
