// What the CUDA backend says runs a layer of its plans, for the engine inspector's "TacticName": the library and
// algorithm the builder chose for a convolution, deconvolution, matrix multiply or attention, as the plan keeps it
// (algorithm_choice.h). A context may still fall back where its GPU or libraries cannot run that choice.
#pragma once

#include "plan/plan_model.h"

#include <string>

namespace kiln::cuda
{

//! The builder's choice for `layer` in words; empty for layers Kiln's own kernels run without a choice, and for a
//! choice the plan holds malformed.
std::string tacticName(plan::LayerRecord const& layer);

} // namespace kiln::cuda
