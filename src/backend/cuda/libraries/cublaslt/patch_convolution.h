// A convolution whose windows do not overlap (strides at least the window, no padding or dilation: a vision
// transformer's patch embedding, ConvNeXt's and Swin's 4x4 stems, a 1x1 convolution of stride 2) is a 1x1 convolution
// over its windows: each output position's window, unfolded into one row of kh * kw * C values, times the kernel stored
// channels-last ([K, kh, kw, C]). Over channels-last data each window row is kw * C adjacent values, so the rows are
// gathered by a plain copy into the workspace (window_rows.h), and PointwiseConvolution multiplies them, its bias,
// ReLU and residual fused in cuBLASLt's epilogue. ViT-B/16's 16x16 stride-16 patch embedding over an RGB
// image (FP16, kHWC8) is a product of 1568 x 2048 by 2048 x 768 at batch 8; in cuDNN's fastest algorithm it was the
// slowest layer of the model's profile on an H200, and the model runs 59 us faster at batch 8 (44 us at batch 1) with
// this product (docs/performance.md). The builder times it beside cuDNN's algorithms and keeps the fastest
// (convolution_timing.h).
#pragma once

#include "backend/cuda/kernels/convolution/window_rows.h"
#include "backend/cuda/libraries/cublaslt/pointwise_convolution.h"

namespace kiln::cuda
{

class PatchConvolution
{
public:
    //! Whether `params` with `epilogue` on an input of `inputShape` in `type`, stored in `format`, is such a product:
    //! FP16 in kHWC or kHWC8 (FP32 plans keep convolutions kLINEAR), two spatial axes, strides at least the window (a
    //! window of more than one position, or a stride above 1), no padding, dilation or groups, and an epilogue of a
    //! ReLU at most beside the bias and residual. (A 1x1 convolution of stride 1 is PointwiseConvolution's: it has
    //! nothing to gather.)
    static bool takes(network::ConvolutionParams const& params, plan::Epilogue const& epilogue, Shape const& inputShape,
        nvinfer1::DataType type, TensorFormat format);

    //! Prepared for `geometry` (convolutionGeometry at the input shape, its channels as stored) in `type` (FP16 or
    //! FP32), adding `bias` (device memory, K values of `type`; nullptr for none) and applying a ReLU where `relu`.
    //! Throws std::invalid_argument for a geometry `takes` refuses, std::runtime_error where cuBLASLt has no algorithm.
    PatchConvolution(ConvolutionGeometry const& geometry, nvinfer1::DataType type, void const* bias, bool relu,
        cublasLtHandle_t handle);

    //! The workspace `run` is given: the unfolded rows, then the product's.
    size_t workspaceBytes() const
    {
        return mRowsBytes + mProduct.workspaceBytes();
    }

    //! Queues output = relu(windows(input) . kernel^T + bias + residual): `kernel` [K, kh, kw, C] (uploadKernel's
    //! channels-last order), `residual` shaped as the output or nullptr; `workspace` aligned to 256 bytes.
    void run(cublasLtHandle_t handle, void const* input, void const* kernel, void const* residual, void* output,
        void* workspace, cudaStream_t stream);

private:
    WindowRows mWindows;
    size_t mRowsBytes{0}; //!< the rows' bytes, rounded up to keep the product's workspace aligned
    PointwiseConvolution mProduct;
};

} // namespace kiln::cuda
