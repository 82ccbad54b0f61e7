// What the passes that move transposes and reshapes around (reshape_before_transpose.h, row_transposes.h) ask of a
// shuffle, and how they state a reshape again once the extents around it have moved.
#pragma once

#include "plan/plan_model.h"

#include <NvInferRuntimeBase.h>

#include <optional>
#include <vector>

namespace kiln::cuda
{

//! Whether `layer` is a shuffle of one tensor into one other, nothing fused into it, that runs whenever the network
//! does.
bool plainShuffle(plan::LayerRecord const& layer);

//! Whether `layer` reads and writes its tensors' own type, one type (it converts nothing).
bool keepsType(plan::PlanModel const& model, plan::LayerRecord const& layer);

//! Reshape dimensions, as a shuffle states them, that turn a tensor of extents `input` into one of `extents` (both
//! expression nodes): each extent a constant, else copied from the input's same axis (0), else inferred (-1, once).
//! None where two extents would need inferring, or one is empty (0 would copy).
std::optional<nvinfer1::Dims> reshapeDimensions(
    plan::PlanModel const& model, std::vector<int32_t> const& input, std::vector<int32_t> const& extents);

//! Makes shuffle `layer` read no shape input (its parameters must say all it does now), dropping that input's slot from
//! its I/O types and formats. Nothing where it reads none.
void dropShapeInput(plan::LayerRecord& layer);

//! Makes shuffle `layer` reshape by `dimensions` alone (0 a placeholder), reading no shape input.
void restateReshape(plan::LayerRecord& layer, nvinfer1::Dims const& dimensions);

} // namespace kiln::cuda
