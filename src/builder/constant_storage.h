// Constants stored in the type their readers read them in. An FP16 plan computes in half, but a constant keeps the
// type of its weights (FP32 initializers, for ONNX exports), so each layer reading it would convert the whole
// constant at every inference: an FP16 BERT's word-embedding Gather converted its 30,522 x 768 table on every run
// (90 us of its 1.1 ms). Converting once when the plan is built saves that, halves the plan's weights, and lets the
// backend bind the constant to its weights (plan::outputsItsWeights).
#pragma once

#include "plan/plan_model.h"

#include <cstddef>

namespace kiln::builder
{

//! Stores every constant of floating-point weights whose readers all read it in one other floating-point type in
//! that type (rounded to nearest even, as the runtime's conversion rounds), and returns how many it converted.
//! Constants that are network outputs, that a reader takes in their own type (a layer's parameter input), or that
//! readers take in different types are left as they are.
size_t storeConstantsAsRead(plan::PlanModel& model);

} // namespace kiln::builder
