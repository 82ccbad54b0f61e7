// The attributes Conv, ConvTranspose and the pooling ops share: strides, pads, dilations, auto_pad.
#pragma once

#include "onnx/node.h"

#include <NvInfer.h>

#include <vector>

namespace kiln::onnxparser
{

struct WindowAttributes
{
    nvinfer1::Dims kernel{};
    nvinfer1::Dims strides{};
    nvinfer1::Dims prePadding{};
    nvinfer1::Dims postPadding{};
    nvinfer1::Dims dilations{};
    //! kSAME_UPPER / kSAME_LOWER for auto_pad SAME_*, else explicit padding.
    nvinfer1::PaddingMode mode{nvinfer1::PaddingMode::kEXPLICIT_ROUND_DOWN};
};

//! Reads the attributes for `kernel.size()` spatial axes; fails naming the attribute when a length is wrong.
WindowAttributes readWindowAttributes(Node const& node, std::vector<int64_t> const& kernel);

//! A Dims of the given values.
nvinfer1::Dims toDims(std::vector<int64_t> const& values);

} // namespace kiln::onnxparser
