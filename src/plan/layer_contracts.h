// Each layer record of a plan checked against its kind's contract before any backend sees it: the kind's own
// shape-and-type inference (network::LayerParams::infer, which the network API runs when the layer is added) is run
// again on the facts the plan records for the layer's inputs, and must accept them and agree with the recorded
// outputs (how many, and their ranks; an output's type may be one the application asked for). A plan that passes holds
// no record a kernel cannot take: a convolution without its input, an activation reading INT64. Most kinds only plans
// hold (fusions' point-wise chains, attention, fused normalization) have no network inference; their records are
// checked against what their headers describe. The quantized convolution's inference checks its records itself.
#pragma once

#include "plan/plan_model.h"

#include <string>

namespace kiln::plan
{

//! False with `error` naming the first layer whose record breaks its kind's contract, and how. Runs after the
//! plan's cross-references (tensor and expression indices) were checked.
bool validateLayerContracts(PlanModel const& model, std::string& error);

} // namespace kiln::plan
