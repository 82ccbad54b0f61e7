// IReverseSequenceLayer (ONNX ReverseSequence).
//
// The output has the input's shape and type. For each index b along params.batchAxis, with L = sequenceLens[b], the
// element at position t < L along params.sequenceAxis comes from position L - 1 - t, and every element at t >= L is
// copied where it is. sequenceLens is 1-D INT32 or INT64 and holds one length per batch index; a length below 0 or
// above the sequence axis' extent is an error, named with its batch index (the CUDA kernel, which cannot report one,
// clamps it instead: backend/cuda/kernels/tensor/reverse_sequence.cu). Elements are copied as bytes, so every
// byte-addressable type is served. An empty output returns after the lengths are checked, before any data is touched.
#pragma once

#include "core/tensor_view.h"
#include "network/layers/reverse_sequence.h"

namespace kiln::cpu
{

void reverseSequence(ConstTensorView const& input, ConstTensorView const& sequenceLens, TensorView const& output,
    network::ReverseSequenceParams const& params);

} // namespace kiln::cpu
