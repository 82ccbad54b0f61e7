// Which scale coefficient (and zero point) each element of a quantize or dequantize layer uses
// (network/layers/quantize.h): one for the whole tensor, or one per index of the quantization axis. Both backends
// check the layer's tensors and index its coefficients through these, so that they refuse and compute alike.
#pragma once

#include "core/tensor_view.h"

#include <cstdint>

namespace kiln::backend
{

//! Element i of the data uses coefficient (i / inner) % channels (channels 1 for per-tensor quantization).
struct QuantizationGeometry
{
    int64_t channels{1};
    int64_t inner{1};
};

//! The geometry for data of shape `data` with a scale of shape `scale` along `axis`, and, when `zeroPoint` is not
//! null, a zero point of that shape. Throws std::invalid_argument starting with `kernel` where the scale is neither
//! one coefficient nor a 1-D tensor of the axis's extent, or the zero point's shape differs from the scale's.
QuantizationGeometry quantizationGeometry(
    Shape const& data, Shape const& scale, Shape const* zeroPoint, int32_t axis, char const* kernel);

//! The types a quantize (`quantizes`) or dequantize layer reads and writes: real data FLOAT, HALF or BF16, quantized
//! data INT8 or FP8, the scale real, the zero point (when `zeroPointType` is not null) of the quantized type.
void checkQuantizationTypes(bool quantizes, nvinfer1::DataType input, nvinfer1::DataType output,
    nvinfer1::DataType scale, nvinfer1::DataType const* zeroPointType, char const* kernel);

} // namespace kiln::backend
