// BatchNormalization (folded into a per-channel scale), and Instance/Layer/Group/MeanVariance
// normalization through INormalizationLayer.
#include "onnx/importer_table.h"
#include "onnx/import_error.h"
#include "onnx/network_helpers.h"

#include <cmath>

namespace kiln::onnxparser
{
namespace
{

using nvinfer1::DataType;
using nvinfer1::ElementWiseOperation;
using nvinfer1::ITensor;

//! A per-channel vector [C] as a tensor that broadcasts along axis 1 of a rank-`rank` input.
ITensor& channelTensor(ImportContext& ctx, ITensor& vector, int32_t rank)
{
    std::vector<int32_t> axes{0};
    for (int32_t axis = 2; axis < rank; ++axis)
    {
        axes.push_back(axis);
    }
    return insertOnes(ctx, vector, axes);
}

std::vector<Value> importBatchNormalization(ImportContext& ctx, Node const& node)
{
    if (node.attrInt("training_mode", 0) != 0 || node.wantsOutput(1) || node.wantsOutput(2))
    {
        fail(ErrorCode::kUNSUPPORTED_NODE, "BatchNormalization in training mode is not supported");
    }
    ITensor& input = inputTensor(ctx, node, 0);
    float const epsilon = node.attrFloat("epsilon", 1e-5F);
    int32_t const rank = rankOf(input);
    bool const folded = isConstantInput(node, 1) && isConstantInput(node, 2) && isConstantInput(node, 3)
        && isConstantInput(node, 4) && input.getType() == DataType::kFLOAT;
    if (folded)
    {
        // y = x * scale' + shift' with scale' = scale / sqrt(var + eps), shift' = bias - mean * scale'.
        std::vector<float> const scale = constantFloats(node, 1, "scale");
        std::vector<float> const bias = constantFloats(node, 2, "bias");
        std::vector<float> const mean = constantFloats(node, 3, "mean");
        std::vector<float> const variance = constantFloats(node, 4, "variance");
        size_t const channels = scale.size();
        if (bias.size() != channels || mean.size() != channels || variance.size() != channels)
        {
            fail(ErrorCode::kINVALID_NODE, "scale, bias, mean and variance must have the same length");
        }
        std::vector<float> combinedScale(channels);
        std::vector<float> combinedShift(channels);
        for (size_t c = 0; c < channels; ++c)
        {
            combinedScale[c] = static_cast<float>(scale[c] / std::sqrt(static_cast<double>(variance[c]) + epsilon));
            combinedShift[c] = bias[c] - mean[c] * combinedScale[c];
        }
        auto const count = static_cast<int64_t>(channels);
        ConstantData const scaleData = ctx.store().keepValues(DataType::kFLOAT, {count}, combinedScale);
        ConstantData const shiftData = ctx.store().keepValues(DataType::kFLOAT, {count}, combinedShift);
        nvinfer1::Weights const power{DataType::kFLOAT, nullptr, 0};
        auto& layer = ctx.check(ctx.network().addScaleNd(input, nvinfer1::ScaleMode::kCHANNEL, shiftData.weights(),
                                    scaleData.weights(), power, rank > 1 ? 1 : 0),
            "scale");
        return single(*layer.getOutput(0));
    }
    // Statistics computed at run time: the same formula with element-wise layers.
    ITensor& scale = channelTensor(ctx, inputTensor(ctx, node, 1), rank);
    ITensor& bias = channelTensor(ctx, inputTensor(ctx, node, 2), rank);
    ITensor& mean = channelTensor(ctx, inputTensor(ctx, node, 3), rank);
    ITensor& variance = channelTensor(ctx, inputTensor(ctx, node, 4), rank);
    ITensor& eps = scalarConstant(ctx, epsilon, variance.getType(), rank);
    ITensor& deviation
        = unary(ctx, elementWise(ctx, variance, eps, ElementWiseOperation::kSUM), nvinfer1::UnaryOperation::kSQRT);
    ITensor& centered = elementWise(ctx, input, mean, ElementWiseOperation::kSUB);
    ITensor& normalized = elementWise(ctx, centered, deviation, ElementWiseOperation::kDIV);
    ITensor& scaled = elementWise(ctx, normalized, scale, ElementWiseOperation::kPROD);
    return single(elementWise(ctx, scaled, bias, ElementWiseOperation::kSUM));
}

ITensor& normalize(
    ImportContext& ctx, ITensor& input, ITensor& scale, ITensor& bias, uint32_t axes, float epsilon, int64_t groups = 1)
{
    auto& layer = ctx.check(ctx.network().addNormalization(input, scale, bias, axes), "normalization");
    layer.setEpsilon(epsilon);
    layer.setNbGroups(groups);
    return *layer.getOutput(0);
}

uint32_t axesFrom(int32_t first, int32_t rank)
{
    uint32_t axes = 0;
    for (int32_t axis = first; axis < rank; ++axis)
    {
        axes |= 1U << axis;
    }
    return axes;
}

std::vector<Value> importInstanceNormalization(ImportContext& ctx, Node const& node)
{
    ITensor& input = inputTensor(ctx, node, 0);
    int32_t const rank = rankOf(input);
    if (rank < 3)
    {
        fail(ErrorCode::kINVALID_NODE, "InstanceNormalization needs an input of rank 3 or more");
    }
    ITensor& scale = channelTensor(ctx, castTo(ctx, inputTensor(ctx, node, 1), input.getType()), rank);
    ITensor& bias = channelTensor(ctx, castTo(ctx, inputTensor(ctx, node, 2), input.getType()), rank);
    return single(normalize(ctx, input, scale, bias, axesFrom(2, rank), node.attrFloat("epsilon", 1e-5F)));
}

std::vector<Value> importLayerNormalization(ImportContext& ctx, Node const& node)
{
    ITensor& input = inputTensor(ctx, node, 0);
    int32_t const rank = rankOf(input);
    int32_t const axis = normalizeAxis(node.attrInt("axis", -1), rank);
    float const epsilon = node.attrFloat("epsilon", 1e-5F);
    ITensor& scale = prependOnes(ctx, castTo(ctx, inputTensor(ctx, node, 1), input.getType()), rank);
    ITensor& bias = node.hasInput(2) ? prependOnes(ctx, castTo(ctx, inputTensor(ctx, node, 2), input.getType()), rank)
                                     : scalarConstant(ctx, 0, input.getType(), rank);
    std::vector<Value> outputs = single(normalize(ctx, input, scale, bias, axesFrom(axis, rank), epsilon));
    if (node.wantsOutput(1) || node.wantsOutput(2))
    {
        // The optional statistics: mean and 1 / sqrt(variance + epsilon), with the normalized axes kept as 1.
        auto average = [&](ITensor& t) -> ITensor& {
            return *ctx.check(ctx.network().addReduce(t, nvinfer1::ReduceOperation::kAVG, axesFrom(axis, rank), true),
                           "reduce")
                        .getOutput(0);
        };
        ITensor& mean = average(input);
        ITensor& centered = elementWise(ctx, input, mean, ElementWiseOperation::kSUB);
        ITensor& variance = average(elementWise(ctx, centered, centered, ElementWiseOperation::kPROD));
        ITensor& shifted = elementWise(
            ctx, variance, scalarConstant(ctx, epsilon, input.getType(), rank), ElementWiseOperation::kSUM);
        ITensor& invStdDev
            = unary(ctx, unary(ctx, shifted, nvinfer1::UnaryOperation::kSQRT), nvinfer1::UnaryOperation::kRECIP);
        outputs.emplace_back(&mean);
        outputs.emplace_back(&invStdDev);
    }
    return outputs;
}

//! Opset 18 gives scale and bias per group, opset 21 per channel; Kiln's layer takes them per channel.
std::vector<Value> importGroupNormalization(ImportContext& ctx, Node const& node)
{
    ITensor& input = inputTensor(ctx, node, 0);
    int32_t const rank = rankOf(input);
    int64_t const groups = node.attrInt("num_groups");
    int64_t const channels = staticExtent(input, 1);
    if (rank < 3 || channels < 0 || groups < 1 || channels % groups != 0)
    {
        fail(ErrorCode::kINVALID_NODE, "GroupNormalization needs a known channel count divisible by num_groups");
    }
    auto perChannel = [&](int32_t index) -> ITensor& {
        std::vector<float> values = constantFloats(node, index, index == 1 ? "scale" : "bias");
        if (static_cast<int64_t>(values.size()) == groups && groups != channels)
        {
            std::vector<float> expanded;
            for (float value : values)
            {
                expanded.insert(expanded.end(), static_cast<size_t>(channels / groups), value);
            }
            values = expanded;
        }
        if (static_cast<int64_t>(values.size()) != channels)
        {
            fail(ErrorCode::kINVALID_NODE, "scale and bias need one value per group or per channel");
        }
        ConstantData const data = ctx.store().keepValues(DataType::kFLOAT, {channels}, values);
        return channelTensor(ctx, castTo(ctx, ctx.tensor(Value(data)), input.getType()), rank);
    };
    ITensor& scale = perChannel(1);
    ITensor& bias = perChannel(2);
    return single(normalize(ctx, input, scale, bias, axesFrom(2, rank), node.attrFloat("epsilon", 1e-5F), groups));
}

std::vector<Value> importMeanVarianceNormalization(ImportContext& ctx, Node const& node)
{
    ITensor& input = inputTensor(ctx, node, 0);
    int32_t const rank = rankOf(input);
    uint32_t const axes = axesMask(node.attrInts("axes", {0, 2, 3}), rank);
    ITensor& one = scalarConstant(ctx, 1, input.getType(), rank);
    ITensor& zero = scalarConstant(ctx, 0, input.getType(), rank);
    // ONNX divides by the standard deviation alone; a tiny epsilon keeps constant inputs finite.
    return single(normalize(ctx, input, one, zero, axes, 1e-9F));
}

} // namespace

ImporterRegistration const kNormalizationImporters([](ImporterTable& table) {
    table.add("BatchNormalization", importBatchNormalization);
    table.add("InstanceNormalization", importInstanceNormalization);
    table.add("LayerNormalization", importLayerNormalization);
    table.add("GroupNormalization", importGroupNormalization);
    table.add("MeanVarianceNormalization", importMeanVarianceNormalization);
});

} // namespace kiln::onnxparser
