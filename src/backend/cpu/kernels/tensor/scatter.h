// IScatterLayer (ONNX ScatterND, ScatterElements, Scatter), in the modes network/layers/scatter.h describes.
//
// The output starts as a copy of the data. Each update then lands, in row-major order of the updates, on the element
// its indices pick: with kNONE it replaces the element (bytes are copied, so every byte-addressable type is served),
// so that of duplicate indices the last update in order wins (ONNX leaves this undefined; the CUDA kernel keeps any
// one of them). A reduction (kiln/ScatterReduction.h) combines the element with each update in turn, as
// backend/shared/scatter_combine.h says: FLOAT, HALF and BF16 compute in FP32 and round once per update, INT8, UINT8,
// INT32 and INT64 wrap to their width. A negative index counts from the end of its axis; one still out of range throws,
// naming the index, its position in the indices and the axis, before any output is written (the CUDA kernel, which
// cannot report it, skips that update: backend/cuda/kernels/tensor/scatter.cu).
#pragma once

#include "core/tensor_view.h"
#include "network/layers/scatter.h"

namespace kiln::cpu
{

//! Checks the tensors and parameters through backend::scatterGeometry (backend/shared/scatter_geometry.h), as the
//! CUDA kernel does, then scatters.
void scatter(ConstTensorView const& data, ConstTensorView const& indices, ConstTensorView const& updates,
    TensorView const& output, network::ScatterParams const& params);

} // namespace kiln::cpu
