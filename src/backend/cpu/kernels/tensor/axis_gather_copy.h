// A byte copy where every output coordinate along each axis reads one input coordinate chosen by a
// table (or none, for a fill value). Slice, pad, tile and nearest resize are all this copy.
#pragma once

#include "core/tensor_view.h"

#include <cstdint>
#include <vector>

namespace kiln::cpu::tensor_detail
{

//! sourceCoordinate[d][o] is the input coordinate along dim d read by output coordinate o, or -1 to
//! write `fillBytes` (one element of the output type; may be null only when no -1 occurs).
void copyByAxisTables(ConstTensorView const& input, TensorView const& output,
    std::vector<std::vector<int64_t>> const& sourceCoordinate, uint8_t const* fillBytes);

} // namespace kiln::cpu::tensor_detail
