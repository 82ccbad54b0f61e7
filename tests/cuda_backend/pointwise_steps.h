// Steps of a point-wise chain (network::PointwiseParams) written as the tests read them: binary(kSUM, in(0),
// result(1)) adds the chain's first input to its second step's result.
#pragma once

#include "network/fused/pointwise.h"

#include <NvInfer.h>

#include <cstdint>

namespace kiln::test
{

inline network::PointwiseStep binary(nvinfer1::ElementWiseOperation op, int32_t first, int32_t second)
{
    network::PointwiseStep step;
    step.kind = nvinfer1::LayerType::kELEMENTWISE;
    step.operation = static_cast<int32_t>(op);
    step.first = first;
    step.second = second;
    return step;
}

inline network::PointwiseStep unary(nvinfer1::UnaryOperation op, int32_t first)
{
    network::PointwiseStep step;
    step.kind = nvinfer1::LayerType::kUNARY;
    step.operation = static_cast<int32_t>(op);
    step.first = first;
    return step;
}

inline network::PointwiseStep activation(
    nvinfer1::ActivationType type, int32_t first, float alpha = 0.0F, float beta = 0.0F)
{
    network::PointwiseStep step;
    step.kind = nvinfer1::LayerType::kACTIVATION;
    step.operation = static_cast<int32_t>(type);
    step.first = first;
    step.alpha = alpha;
    step.beta = beta;
    return step;
}

//! A Q -> DQ pair of `scale` into codes of `codes`, its input held in `valueType`.
inline network::PointwiseStep quantizeDequantize(
    int32_t first, float scale, nvinfer1::DataType codes, nvinfer1::DataType valueType = nvinfer1::DataType::kHALF)
{
    network::PointwiseStep step;
    step.kind = nvinfer1::LayerType::kQUANTIZE;
    step.operation = static_cast<int32_t>(codes);
    step.alpha = scale;
    step.first = first;
    step.valueType = valueType;
    return step;
}

//! The chain's input `index` as an operand.
constexpr int32_t in(int32_t index)
{
    return network::PointwiseOperand::input(index);
}

//! Step `index`'s result as an operand.
constexpr int32_t result(int32_t index)
{
    return network::PointwiseOperand::step(index);
}

} // namespace kiln::test
