// PluginTensorDesc::scale as TensorRT fills it for a plugin's INT8 (and FP8) tensors: in an explicitly quantized
// network, the scale of the quantize layer that writes the tensor (a plugin's input) or of the dequantize layer that
// reads it (a plugin's output); with implicit quantization, the tensor's dynamic range / 127
// (ITensor::setDynamicRange); -1 where the tensor has neither, or is of another type.
#pragma once

#include "network/layer.h"
#include "network/tensor.h"

#include <vector>

namespace kiln::builder
{

//! The scale of `tensor`, stored in `type`, among the network's `layers` (those that may read it).
float pluginTensorScale(
    network::Tensor const& tensor, nvinfer1::DataType type, std::vector<network::Layer const*> const& layers);

} // namespace kiln::builder
