// INT8 and FP8 weights recovered from the floating-point values a layer holds. Quantized models store weights
// quantized (an INT8 or FP8 constant behind a DequantizeLinear, or FP32 behind a QuantizeLinear/DequantizeLinear
// pair); the ONNX parser, like an application using the network API, gives the layer the dequantized values q * s (q
// an integer in [-127, 127] or an FP8 E4M3FN value, one scale s per output channel), which an FP16 or BF16 build may
// then have rounded into that type. A quantized kernel needs q and s back: this finds them where they exist exactly.
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

struct Fp8Weights
{
    std::vector<uint8_t> values; //!< FP8 E4M3FN bits, as the FP32 weights are laid out
    std::vector<float> scales;   //!< one per channel
};

//! The same for FP8 E4M3FN: values and one scale per channel such that dequantizeFp8(q, s) gives every weight back
//! bit for bit. The scales tried are the channel's largest magnitude over 448 (FP8's largest value, where max
//! calibration puts it) and its nearest FP32 neighbours, then the same for each smaller FP8 magnitude in turn: Model
//! Optimizer's FP8 weights do not always reach 448. Any scale found gives the weights back exactly, which is all a
//! kernel needs of it. Weights held in FP16 or BF16 come back as INT8 ones do: the FP8 values are the model's (FP8's
//! values lie at least 1/16 apart relatively, FP16 rounds by 2^-11), the scale within that type's rounding of its.
std::optional<Fp8Weights> recoverFp8Weights(
    std::vector<float> const& weights, int64_t channels, nvinfer1::DataType storedIn = nvinfer1::DataType::kFLOAT);

} // namespace kiln::plan
