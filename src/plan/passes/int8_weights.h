// INT8 and FP8 weights recovered from the FP32 values a layer holds. Quantized models store weights quantized (an
// INT8 or FP8 constant behind a DequantizeLinear, or FP32 behind a QuantizeLinear/DequantizeLinear pair); the ONNX
// parser, like an application using the network API, gives the layer the dequantized values q * s (q an integer in
// [-127, 127] or an FP8 E4M3FN value, one scale s per output channel). A quantized kernel needs q and s back: this
// finds them where they exist exactly.
#pragma once

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
std::optional<Int8Weights> recoverInt8Weights(std::vector<float> const& weights, int64_t channels);

struct Fp8Weights
{
    std::vector<uint8_t> values; //!< FP8 E4M3FN bits, as the FP32 weights are laid out
    std::vector<float> scales;   //!< one per channel
};

//! The same for FP8 E4M3FN: values and one scale per channel such that dequantizeFp8(q, s) gives every weight back
//! bit for bit. The scales tried are the channel's largest magnitude over 448 (FP8's largest value, where max
//! calibration puts it) and its nearest FP32 neighbours, then the same for each smaller FP8 magnitude in turn: Model
//! Optimizer's FP8 weights do not always reach 448. Any scale found gives the weights back exactly, which is all a
//! kernel needs of it.
std::optional<Fp8Weights> recoverFp8Weights(std::vector<float> const& weights, int64_t channels);

} // namespace kiln::plan
