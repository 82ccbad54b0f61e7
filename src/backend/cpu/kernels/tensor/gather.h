// IGatherLayer (ONNX Gather, GatherElements, GatherND). Indices are INT32 or INT64; a negative index
// counts from the end of its axis (as ONNX allows); an index still out of range throws.
//
// kDEFAULT  out = data[:axis] + indices + data[axis+1:]; with numElementWiseDims = 1 the first dim of
//           data and indices is a shared batch dim: out = data[0] + data[1:axis] + indices[1:] + ...
// kELEMENT  out has the indices' shape; out[i] = data[i with i[axis] replaced by indices[i]].
// kND       b = numElementWiseDims batch dims shared by data and indices; the last indices dim (k) holds
//           coordinates into data[b:b+k]; out = indices[:-1] + data[b+k:].
// Copies bytes, so the data may be of every byte-addressable type.
#pragma once

#include "core/tensor_view.h"
#include "network/layers/gather.h"

namespace kiln::cpu
{

Shape gatherOutputShape(Shape const& data, Shape const& indices, network::GatherParams const& params);

void gather(ConstTensorView const& data, ConstTensorView const& indices, TensorView const& output,
    network::GatherParams const& params);

} // namespace kiln::cpu
