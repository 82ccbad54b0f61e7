// Kiln extension: how the CUDA backend stores the tensors of FP16 convolution chains.
// TensorRT chooses formats by timing; so does Kiln by default. The other choices fix the
// layout, for comparing the two or for tests that must exercise one.
#pragma once

#include <NvInfer.h>

namespace kiln
{

enum class ConvolutionLayout : int32_t
{
    //! Channels-last (kHWC) where the builder's timings of the convolutions say it is faster than linear (NCHW);
    //! channels-last where nothing can be timed (no GPU and no timing-cache entry).
    kBY_TIMING = 0,
    kCHANNELS_LAST = 1, //!< always channels-last: cuDNN's FP16 tensor-core kernels are made for it
    kLINEAR = 2,        //!< always linear
};

//! Sets how buildSerializedNetwork lays out FP16 convolution chains of CUDA plans. False if config is not Kiln's.
bool setConvolutionLayout(nvinfer1::IBuilderConfig& config, ConvolutionLayout layout) noexcept;
ConvolutionLayout getConvolutionLayout(nvinfer1::IBuilderConfig const& config) noexcept;

} // namespace kiln
