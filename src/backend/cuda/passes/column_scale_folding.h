// A product by a constant per output column after a linear layer folded into the layer's weights: (x W + b) * g is
// x (W g) + b g, g scaling column n of W and b's element n. ConvNeXt scales each block's branch per channel (its
// layer scale, gamma) right after its second linear layer, once the scale runs before the transpose back
// (constant_before_transpose.h): folded, that product runs nowhere.
#pragma once

#include "plan/plan_model.h"

#include <cstddef>

namespace kiln::cuda
{

//! Folds, in place, each element-wise product that alone reads a matrix multiply's output (or the sum of that output
//! and a bias), by a constant that scales the columns: its extents 1 but the last, which is the product's column
//! count. The matrix multiply's second operand and the bias must be FP32 or FP16 constants that are fixed (not
//! refittable) and read by nothing else, and so must the scale (folded in FP32, stored in the weights' type); nothing
//! folded may be seen by the application. Runs before the matrix multiply fusions, which then take the bias. Returns
//! how many products it folded.
size_t foldColumnScalesIntoProducts(plan::PlanModel& model);

} // namespace kiln::cuda
