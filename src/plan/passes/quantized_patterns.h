// What the quantized fusion passes (quantized_fusion.h, quantized_matrix_multiply_fusion.h) look for around the layer
// they fuse: a dequantization of an INT8 (or FP8) tensor by one constant scale that it reads, the floating-point
// layers after it that may join it, and a quantization into INT8 (or FP8) by one constant scale that ends the chain.
//
// The layers of a chain compute in one floating-point type: FP32, or FP16 or BF16 where the builder reduced the
// precision between the Q/DQ pairs (kFP16, kBF16, a strongly typed network's DQ into HALF). A fused INT8 layer
// computes as the FP32 chain would, on the exact INT8 values, as TensorRT's INT8 layers do in such builds: where it
// writes floating point, the chain's last output is stored as FP32 and its readers read it converted into their type.
// A fused FP8 product computes in its chain's type, FP32 or FP16, and writes that type.
#pragma once

#include "network/layers/activation.h"
#include "network/weights_buffer.h"
#include "plan/passes/pattern_graph.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace kiln::plan
{

//! A dequantization of an INT8 or FP8 tensor by one constant scale (zero point none or zero), into a floating-point
//! type.
struct Dequantization
{
    size_t layer;
    int32_t source; //!< the INT8 or FP8 tensor
    float scale;
    nvinfer1::DataType quantizedType{nvinfer1::DataType::kINT8}; //!< the source's type
    nvinfer1::DataType floatType{nvinfer1::DataType::kFLOAT};    //!< the type it writes
};

//! The per-tensor scale of a quantize or dequantize layer's scale and zero-point inputs: a constant, and a zero point
//! that is absent or a constant zero. `valueOf(t)` gives tensor t's one value where a constant holds it.
std::optional<float> perTensorScale(
    LayerRecord const& record, std::function<std::optional<float>(int32_t)> const& valueOf);

//! The same, the constants found through `graph`.
std::optional<float> perTensorScale(PatternGraph const& graph, LayerRecord const& record);

//! The dequantization that writes tensor `t`, where it is one (INT8 into the tensor's floating-point type, per-tensor
//! scale) not yet absorbed.
std::optional<Dequantization> int8DequantizationOf(PatternGraph const& graph, int32_t t);

//! The same for INT8 or FP8, the type of each in the result.
std::optional<Dequantization> dequantizationOf(PatternGraph const& graph, int32_t t);

//! The floating-point type `record` computes in, where it reads and writes only that type: a chain's type.
std::optional<nvinfer1::DataType> chainType(PatternGraph const& graph, LayerRecord const& record);

//! Whether the dequantization's output is read by `reader` alone and not observed: it leaves with the fusion.
bool readOnlyBy(PatternGraph const& graph, Dequantization const& dq, size_t reader);

//! Whether layer `next` may join the chain of layer `anchor`: not yet absorbed, computing in the anchor's chain type
//! under its guards.
bool joinsInFloat(PatternGraph const& graph, std::optional<size_t> next, size_t anchor);

//! Whether layer `l` quantizes the chain type of layer `anchor` into INT8 by one constant scale under its guards.
bool isInt8Quantization(PatternGraph const& graph, std::optional<size_t> l, size_t anchor);

//! Whether layer `l` quantizes the chain type of layer `anchor` into `quantizedType` (INT8 or FP8) by one constant
//! scale under its guards.
bool isQuantization(
    PatternGraph const& graph, std::optional<size_t> l, size_t anchor, nvinfer1::DataType quantizedType);

//! Whether the backend runs fused `record` (`runs`): where the record computes in FP32 and writes a tensor of FP16 or
//! BF16, that tensor is stored as FP32 for it first (PatternGraph::retype), and stays so only where the backend runs
//! the record.
bool runsWithFloatOutput(PatternGraph& graph, LayerRecord const& record,
    std::function<bool(PlanModel const&, LayerRecord const&)> const& runs);

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
