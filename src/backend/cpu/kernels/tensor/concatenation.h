// IConcatenationLayer (ONNX Concat). Inputs agree on every dim but the axis (negative counts from the end); empty
// inputs are allowed. Copies bytes, so every byte-addressable type works.
#pragma once

#include "core/tensor_view.h"
#include "network/layers/concatenation.h"

#include <cstdint>
#include <span>

namespace kiln::cpu
{

//! TensorRT's default axis: rank - 3, or 0 for ranks below 3.
inline int32_t defaultConcatenationAxis(int32_t rank)
{
    return rank >= 3 ? rank - 3 : 0;
}

Shape concatenationOutputShape(std::span<Shape const> inputs, network::ConcatenationParams const& params);

void concatenation(
    std::span<ConstTensorView const> inputs, TensorView const& output, network::ConcatenationParams const& params);

} // namespace kiln::cpu
