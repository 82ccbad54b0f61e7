// Implicit quantization (BuilderFlag::kINT8 with dynamic ranges, set by ITensor::setDynamicRange or calibrated): the
// layers TensorRT runs in INT8 compute as if Q/DQ pairs stood on their inputs. Kiln writes those pairs into the plan,
// before the backend's passes, so that implicit and explicit quantization are one thing from there on: the CPU
// reference computes them as ONNX defines QuantizeLinear and DequantizeLinear, and the passes that turn DQ ->
// convolution or matrix multiply into INT8 kernels see the same graph a Q/DQ model gives them.
//
// Each convolution and matrix multiply whose floating-point activation inputs all have a scale (range / 127) reads
// each of them through a quantize and a dequantize layer of that scale (one pair per tensor, shared by its readers),
// and its weights (a convolution's kernel; a matrix multiply's constant operand) hold their values quantized per
// output channel with s_c = max|W_c| / 127: exactly q * s_c, q = round(W / s_c) in [-127, 127]. Q/DQ pairs commute
// with the layers that only move data (shuffles, slices, concatenation of equal scales, max pooling, padding), so
// a data-movement layer between two quantized layers computes on the quantized values as TensorRT's INT8 one does,
// and the second layer's input quantizes with the range of that layer's output. A layer's output is quantized where
// the next quantized layer reads it: TensorRT's INT8 layer writing INT8 for an INT8 reader computes the same.
// Layers with an input without a scale (or a scale of 0), a kernel given as a tensor, or refittable weights stay
// in floating point, as TensorRT falls back to a non-INT8 implementation for them.
#pragma once

#include "plan/plan_model.h"

#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace kiln::builder
{

struct ImplicitQuantization
{
    size_t quantizedLayers{0};
    //! The tensors the pass added and, for each, the tensor whose shape it has (for the builder's shape tables).
    std::vector<std::pair<int32_t, int32_t>> addedTensors;
    //! The convolutions and matrix multiplies left in floating point, each with why.
    std::vector<std::string> unquantized;
};

//! Rewrites the plan's convolutions and matrix multiplies as described above, with `scales` by tensor name.
ImplicitQuantization quantizeImplicitly(plan::PlanModel& model, std::unordered_map<std::string, float> const& scales);

//! `values` quantized per channel, element i in channel (i / channelStride) % channels (the channel axis of a
//! row-major tensor: its extent, and the product of the extents after it; 1 and 1 for per tensor): exactly q * s_c,
//! s_c = max|W_c| / 127, q = round(W / s_c) half to even. A channel of zeros stays zeros.
std::vector<float> quantizeWeightsPerChannel(std::vector<float> const& values, int64_t channels, int64_t channelStride);

} // namespace kiln::builder
