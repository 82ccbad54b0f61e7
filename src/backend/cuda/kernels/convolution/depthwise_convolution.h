// Kiln's own kernel for a depthwise convolution (one input channel per group, one output map per channel): the
// middle layer of MobileNet's and EfficientNet's inverted-residual blocks. Such a layer does a few multiply-adds per
// byte read, so it runs at memory's rate at best, but cuDNN's algorithms run it as a GEMM of one column per group:
// EfficientNet-B0 at batch 8 in FP16 channels-last spends 0.84 ms in its eight largest (0.185 ms for 96 channels at
// 112 x 112, stride 2, where reading the input once takes about 0.01 ms), more than the same layers take in FP32.
// This kernel reads each output position's window directly: channels-last data a vector of channels a thread (8 FP16
// values in 16 bytes where the channels allow), with its weights stored tap by tap so that a tap's weights for those
// channels are one vector too; channels-first data one output value a thread along the rows; FP32 accumulation; the
// bias and a ReLU in the epilogue. Windows 3, 5 or 7 wide of stride 1 or 2 (channels-last: FP16) may also run in
// strips: a thread computes up to four neighbouring positions of a row, whose windows share most of their input; wider
// strips load less but leave fewer threads to fill the GPU. The builder times the kernel, in each strip it offers,
// beside cuDNN's algorithms and keeps the fastest (convolution_timing.h).
#pragma once

#include "backend/cuda/libraries/cudnn/convolution_descriptors.h"
#include "core/tensor_view.h"
#include "network/layers/convolution.h"
#include "plan/plan_model.h"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

namespace kiln::cuda
{

class DepthwiseConvolution
{
public:
    //! Whether this kernel runs `params` with `epilogue` on an input of `inputShape` (the layer's [N, C, H, W]) in
    //! `type`, stored in `format`: FP32 or FP16, two spatial axes, C groups of one channel and one output map each,
    //! kLINEAR or kHWC (channels stored unpadded), and an epilogue of a bias and a ReLU at most (no residual).
    static bool takes(network::ConvolutionParams const& params, plan::Epilogue const& epilogue, Shape const& inputShape,
        nvinfer1::DataType type, TensorFormat format);

    //! The layer's kernel [C, 1, k...] uploaded in `type` in the order this kernel reads it for data in `format`:
    //! [C, taps] for kLINEAR, [taps, C] for kHWC (each tap's channels side by side, as the data's).
    static DeviceBuffer uploadKernel(
        network::ConvolutionParams const& params, nvinfer1::DataType type, TensorFormat format);

    //! The strips (output positions a thread computes along a row) the kernel offers for `geometry` on data of `type`
    //! in `format`: 0, the one-position kernel, always; 1, 2 and 4 for kLINEAR data and for FP16 kHWC data in vectors
    //! of eight channels, windows 3, 5 or 7 wide, undilated along the rows, of stride 1 (2 at most at stride 2, whose
    //! windows share less and, channels-last, would take more registers than two blocks a multiprocessor leave).
    static std::vector<int32_t> strips(
        ConvolutionGeometry const& geometry, nvinfer1::DataType type, TensorFormat format);

    //! Prepared for `geometry` (convolutionGeometry at the input shape) on data of `type` stored in `format`, in strips
    //! of `strip` positions; `relu` applies the fused ReLU. Throws std::invalid_argument for a geometry `takes`
    //! refuses or a strip `strips` does not offer.
    DepthwiseConvolution(
        ConvolutionGeometry const& geometry, nvinfer1::DataType type, TensorFormat format, bool relu, int32_t strip);

    //! Queues the convolution: `input` [N, C, H, W] in the format, `kernel` as uploadKernel arranges it,
    //! `bias` C values or nullptr, `output` [N, C, P, Q] in the format; all of the type.
    void run(void const* input, void const* kernel, void const* bias, void* output, cudaStream_t stream) const;

    //! The sizes the kernel reads.
    struct Problem
    {
        int64_t outputs{0}; //!< N * C * P * Q
        int32_t channels{0};
        int32_t height{0};
        int32_t width{0};
        int32_t outHeight{0};
        int32_t outWidth{0};
        int32_t kernelHeight{0};
        int32_t kernelWidth{0};
        int32_t strideY{0};
        int32_t strideX{0};
        int32_t padY{0};
        int32_t padX{0};
        int32_t dilationY{0};
        int32_t dilationX{0};
        bool relu{false};
        //! Output positions a thread computes along a row (strips); 0: the one-position kernel.
        int32_t strip{0};
    };

private:
    Problem mProblem;
    nvinfer1::DataType mType;
    TensorFormat mFormat;
};

} // namespace kiln::cuda
