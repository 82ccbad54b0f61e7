// The layers that only move data, as the propagation of Q/DQ (quantization_propagation.h) sees them: a shuffle
// (transposes and reshapes), a slice that reads only its input, a concatenation and a max pooling. Each output element
// is one input element (or, for the pooling, the largest of some), so an element-wise map applied before the layer
// gives what it gives applied after: exactly, for any map (the pooling: any non-decreasing one).
//
// A per-channel quantization is element-wise too, but its scale follows one axis: it commutes with the layer only
// where that axis comes out of the layer whole, its indices in their order (carriedAxis).
#pragma once

#include "plan/plan_model.h"

#include <cstdint>
#include <optional>

namespace kiln::plan
{

//! Whether `layer` is one of the layers above: a shuffle, a slice of any mode but kFILL (whose fill value would have
//! to be quantized too), a concatenation, or a max pooling; one output, no fused epilogue.
bool movesDataOnly(LayerRecord const& layer);

//! Where axis `inputAxis` of data-movement layer `layer`'s input `input` lies in its output, where it comes through
//! whole: every index of it, in order, on one output axis, with the other axes' elements moving alike for each index.
//! Extents must be build-time constants where the answer depends on them (a shuffle's reshape, a slice's bounds).
std::optional<int32_t> carriedAxis(PlanModel const& model, LayerRecord const& layer, size_t input, int32_t inputAxis);

} // namespace kiln::plan
