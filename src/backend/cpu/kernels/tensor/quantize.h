// IQuantizeLayer and IDequantizeLayer (ONNX QuantizeLinear and DequantizeLinear), element by element:
//   quantize    FLOAT/HALF/BF16 -> INT8 or FP8 E4M3FN: saturate(round(x / scale) + zeroPoint)
//   dequantize  INT8 or FP8 E4M3FN -> FLOAT/HALF/BF16: (q - zeroPoint) * scale, rounded once into the output type
// in FP32, with core/quantization.h's rounding: INT8 half to even, saturated to [-128, 127]; FP8 to nearest even,
// saturated to +-448, NaN kept; every FP8 value decoded exactly. The scale (FLOAT, HALF or BF16) holds one
// coefficient or one per index of `axis` (backend/shared/quantization_geometry.h); the zero point, optional, has the
// scale's shape and the quantized type.
#pragma once

#include "core/tensor_view.h"

#include <cstdint>

namespace kiln::cpu
{

//! zeroPoint: nullptr for none.
void quantize(ConstTensorView const& input, ConstTensorView const& scale, ConstTensorView const* zeroPoint,
    TensorView const& output, int32_t axis);

void dequantize(ConstTensorView const& input, ConstTensorView const& scale, ConstTensorView const* zeroPoint,
    TensorView const& output, int32_t axis);

} // namespace kiln::cpu
