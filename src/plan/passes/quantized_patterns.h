// What the quantized fusion passes (quantized_fusion.h, quantized_matrix_multiply_fusion.h) look for around the layer
// they fuse: a dequantization of an INT8 (or FP8) tensor by one constant scale that it reads, the floating-point
// layers after it that may join it, and a quantization into INT8 (or FP8) by one constant scale that ends the chain.
#pragma once

#include "network/layers/activation.h"
#include "network/weights_buffer.h"
#include "plan/passes/pattern_graph.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace kiln::plan
{

//! A dequantization of an INT8 or FP8 tensor by one constant scale (zero point none or zero), into FP32 (or FP16).
struct Dequantization
{
    size_t layer;
    int32_t source; //!< the INT8 or FP8 tensor
    float scale;
    nvinfer1::DataType quantizedType{nvinfer1::DataType::kINT8}; //!< the source's type
    nvinfer1::DataType floatType{nvinfer1::DataType::kFLOAT};    //!< the type it writes
};

//! The per-tensor scale of a quantize or dequantize layer's scale and zero-point inputs: a constant, and a zero point
//! that is absent or a constant zero.
std::optional<float> perTensorScale(PatternGraph const& graph, LayerRecord const& record);

//! The dequantization that writes tensor `t`, where it is one (INT8 into FP32, per-tensor scale) not yet absorbed.
std::optional<Dequantization> int8DequantizationOf(PatternGraph const& graph, int32_t t);

//! The same for INT8 or FP8 into FP32 or FP16, the type of each in the result.
std::optional<Dequantization> dequantizationOf(PatternGraph const& graph, int32_t t);

//! Whether the dequantization's output is read by `reader` alone and not observed: it leaves with the fusion.
bool readOnlyBy(PatternGraph const& graph, Dequantization const& dq, size_t reader);

//! Whether layer `next` may join the chain of layer `anchor`: not yet absorbed, computing in `type` (FP32 unless
//! given) on `type` under the anchor's guards.
bool joinsInFloat(PatternGraph const& graph, std::optional<size_t> next, size_t anchor,
    nvinfer1::DataType type = nvinfer1::DataType::kFLOAT);

//! Whether layer `l` quantizes FP32 into INT8 by one constant scale under layer `anchor`'s guards.
bool isInt8Quantization(PatternGraph const& graph, std::optional<size_t> l, size_t anchor);

//! Whether layer `l` quantizes `floatType` into `quantizedType` by one constant scale under layer `anchor`'s guards.
bool isQuantization(PatternGraph const& graph, std::optional<size_t> l, size_t anchor, nvinfer1::DataType quantizedType,
    nvinfer1::DataType floatType);

//! The fused layers' weights as they hold them: INT8 or FP8 values, and FP32 scales or bias.
network::WeightsBuffer int8WeightsBuffer(std::vector<int8_t> const& values);
network::WeightsBuffer fp8WeightsBuffer(std::vector<uint8_t> const& values);
network::WeightsBuffer floatWeightsBuffer(std::vector<float> const& values);

//! Takes an absorbed activation into a fused quantized layer's parameters (its activates, activation, alpha, beta).
template <typename Params>
void takeActivation(Params& params, network::ActivationParams const& activation)
{
    params.activates = true;
    params.activation = activation.activation;
    params.alpha = activation.alpha;
    params.beta = activation.beta;
}

//! The plan-only record that replaces the `absorbed` layers: a layer of `type` computing in FP32 under `anchor`'s
//! guards, reading `inputs`, writing what the last absorbed layer wrote, named after every absorbed layer.
LayerRecord fusedChainRecord(PatternGraph const& graph, nvinfer1::LayerType type, LayerRecord const& anchor,
    std::vector<int32_t> inputs, std::vector<size_t> const& absorbed,
    std::shared_ptr<network::LayerParams const> params);

//! A dequantization that several fused layers read as INT8 (a ResNet block's input, BERT's normalized input to its
//! three projections) was left for the others each time; once none reads it, it goes.
void dropUnreadDequantizations(PlanModel& model);

} // namespace kiln::plan
