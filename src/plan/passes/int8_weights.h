// INT8 weights recovered from the FP32 values a layer holds. Quantized models store weights quantized (an INT8
// constant behind a DequantizeLinear, or FP32 behind a QuantizeLinear/DequantizeLinear pair); the ONNX parser, like
// an application using the network API, gives the layer the dequantized values q * s (q an integer in [-127, 127],
// one scale s per output channel). A quantized kernel needs q and s back: this finds them where they exist exactly.
#pragma once

#include <NvInferRuntimeBase.h>

#include <cstdint>
#include <optional>
#include <vector>

namespace kiln::plan
{

struct Int8Weights
{
    std::vector<int8_t> values; //!< as the FP32 weights are laid out
    std::vector<float> scales;  //!< one per channel
};

//! `weights`, `channels` equal blocks one per output channel, as INT8 values and one scale per channel such that
//! dequantizeInt8(q, s) (core/quantization.h) gives every weight back bit for bit, with |q| <= 127; nullopt where no
//! such values exist (weights that were never quantized so, or were changed after). The scale tried is the one that
//! symmetric max calibration gives (Model Optimizer's, TensorRT's): the channel's largest magnitude over 127, and its
//! nearest FP32 neighbours, since that quotient may round away from the scale the model stored. A channel of zeros
//! gets the scale 1.
//!
//! Weights an FP16 (or BF16) layer holds (`storedIn`) are q * s rounded into that type: then dequantizeInt8(q, s)
//! rounded into it must give every weight back. The scale found is within that type's rounding of the model's, and
//! the INT8 values are the model's (127 steps of FP16's relative rounding stay far below half a step).
std::optional<Int8Weights> recoverInt8Weights(
    std::vector<float> const& weights, int64_t channels, nvinfer1::DataType storedIn = nvinfer1::DataType::kFLOAT);

} // namespace kiln::plan
