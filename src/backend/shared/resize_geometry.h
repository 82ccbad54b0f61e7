// IResizeLayer's output shape and scales (network/layers/resize.h), from its parameters and shapes alone: both
// backends shape and check a resize through these, and map output coordinates to input coordinates by the same
// scales (the CPU reference's header, backend/cpu/kernels/tensor/resize.h, gives the mapping).
#pragma once

#include "core/tensor_view.h"
#include "network/layers/resize.h"

#include <vector>

namespace kiln::backend
{

//! Output dimensions as given (by the parameters or input 1), checked against the input's rank.
Shape resizeOutputDimensions(Shape const& input, Shape const& dimensions);

//! The output shape the static parameters give. Throws where they do not fit the input's rank, or set both output
//! dimensions and scales.
Shape resizeOutputShape(Shape const& input, network::ResizeParams const& params);

//! The scale that maps each dim's output coordinates to input coordinates: the given scale where scales decide the
//! output shape, else output extent / input extent. hasShapeInput: whether input 1 gives the output shape.
std::vector<double> resizeScales(
    network::ResizeParams const& params, bool hasShapeInput, Shape const& input, Shape const& output);

} // namespace kiln::backend
