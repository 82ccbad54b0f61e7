// IConcatenationLayer (ONNX Concat). Inputs agree on every dim but `axis`; empty inputs are allowed.
// Copies bytes, so every byte-addressable type works.
#pragma once

#include "core/tensor_view.h"

#include <cstdint>
#include <span>

namespace kiln::cpu
{

struct Concatenation
{
    //! TensorRT's default is defaultConcatenationAxis(rank); negative values count from the end.
    int32_t axis{0};
};

//! TensorRT's default axis: rank - 3, or 0 for ranks below 3.
inline int32_t defaultConcatenationAxis(int32_t rank)
{
    return rank >= 3 ? rank - 3 : 0;
}

Shape concatenationOutputShape(std::span<Shape const> inputs, Concatenation const& params);

void concatenation(std::span<ConstTensorView const> inputs, TensorView const& output, Concatenation const& params);

} // namespace kiln::cpu
