// Reading a layer's shape-tensor input (TopK's k, Resize's output shape, Fill's dimensions, OneHot's depth) while
// shapes are inferred: such an input decides output extents, so its values must be known as expressions (computed
// from shapes and constants), the way IShuffleLayer's reshape input is.
#pragma once

#include "network/inference.h"

#include <vector>

namespace kiln::network
{

//! The values of input `index`, which must be an INT32 or INT64 shape tensor of the given rank (0 or 1). False,
//! with ctx.fail naming `what` and the input, when it is not such a tensor or its values are not known.
bool shapeInputValues(InferenceContext& ctx, int32_t index, int32_t rank, char const* what, std::vector<Dim>& values);

} // namespace kiln::network
