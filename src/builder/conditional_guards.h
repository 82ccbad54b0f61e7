// Lazy conditionals: which layers run under which conditions. A layer's results are needed by the network's
// outputs, by the layers that read them, and, through a conditional output, by one side of a conditional only. A
// layer every use of which is on the true (false) side of some conditional runs only when that condition holds (does
// not): its guards. Guards are computed on the finished plan, so the backends' passes (fusions, conversions) are
// covered whatever they changed.
#pragma once

#include "plan/plan_model.h"

namespace kiln::builder
{

//! Sets every layer's guards. A layer whose uses need different conditions keeps the conditions they all share (it
//! may run where one use would not need it; never the reverse). A layer nothing reads runs always, as before.
void assignGuards(plan::PlanModel& model);

} // namespace kiln::builder
