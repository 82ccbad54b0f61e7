// What the plan reader checks once a plan's bytes parsed: the cross-references that the syntax cannot guarantee
// (tensor and expression indices, views, symbols, profiles, refittable weights), that values flow from the network's
// inputs through the layers in their order, and each layer record against its kind's contract (layer_contracts.h).
// A plan that passes holds nothing a backend has to check again.
#pragma once

#include "plan/plan_model.h"

#include <string>

namespace kiln::plan
{

//! False with `error` naming the first record that breaks a rule, and how.
bool validatePlan(PlanModel const& model, std::string& error);

} // namespace kiln::plan
