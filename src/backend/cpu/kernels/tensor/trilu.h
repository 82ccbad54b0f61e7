// ONNX Trilu (no TensorRT layer of its own; the parser may lower it here or to a select).
//
// Over the last two dims (rows i, columns j): upper keeps j - i >= k, lower keeps j - i <= k; everything
// else becomes zero bytes. Copies bytes, so every byte-addressable type works (zero bytes are 0 in each).
#pragma once

#include "backend/cpu/tensor_view.h"

#include <cstdint>

namespace kiln::cpu
{

struct Trilu
{
    bool upper{true};
    int64_t k{0};
};

void trilu(ConstTensorView const& input, TensorView const& output, Trilu const& params);

} // namespace kiln::cpu
