// Activation memory for layers that add a residual in place: the output of such a layer takes the bytes of its
// residual input where nothing after the layer reads the residual, so the kernel adds the residual where it lies
// instead of first copying it into the output (a ResNet block's shortcut: tens of megabytes a run at batch 8).
#pragma once

#include "backend/backend.h"
#include "builder/memory_plan.h"
#include "plan/plan_model.h"

#include <cstddef>
#include <vector>

namespace kiln::builder
{

//! A tensor that lives in the bytes of another.
struct SharedBuffer
{
    size_t tensor; //!< a layer's output
    size_t owner;  //!< the tensor whose bytes it takes, itself in bytes of its own
};

//! Merges the buffer request of each output that takes its residual's bytes into the request of the residual's owner
//! (the residual itself, or the tensor it shares in turn: ResNet's blocks make chains), which then covers both
//! lifetimes, and removes the output's request from `requests` and `requestTensor` (the tensor of each request).
//! An output of layer l takes its residual's bytes where the backend writes l's output over its residual
//! (backend::Implementation::writesOverResidual), the residual's request ends at l (no later layer, view or loop
//! reads it), l reads the residual at no other input, and both tensors are in activation memory (neither I/O, a view,
//! a bound constant nor a debug tensor), of one type and format, the output no larger than the owner.
std::vector<SharedBuffer> shareResidualBuffers(plan::PlanModel const& model, backend::Implementation const& backend,
    std::vector<BufferRequest>& requests, std::vector<size_t>& requestTensor);

} // namespace kiln::builder
