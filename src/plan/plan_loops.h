// Loops in a plan (network/layers/loop.h). A plan holds a loop as its boundary layers, which name it by number, and
// its body: every layer that depends on the loop's recurrences or iterators, or that belongs to a loop nested in it.
// Nothing records the body; these functions find it from the graph, so that the backends' passes, which know
// nothing of loops, may rewrite the layers between the boundaries. The builder orders each loop's layers into one
// contiguous range (orderLoops); the plan reader checks that they are (findLoops), and the execution context runs
// each range once per iteration.
#pragma once

#include "plan/plan_model.h"

#include <cstddef>
#include <string>
#include <vector>

namespace kiln::plan
{

//! Whether `layer` is a loop's boundary layer: the execution context runs it, not a backend.
bool isLoopBoundary(LayerRecord const& layer);

//! A loop of an ordered plan: its layers are [begin, end); its boundary layers lie at its own level of that range.
struct LoopRange
{
    int32_t number{-1}; //!< the loop's number (the boundary layers' `loop`)
    int32_t parent{-1}; //!< the index of the loop it is nested in; -1 at the top level
    size_t begin{0};
    size_t end{0};
    std::vector<size_t> recurrences;
    std::vector<size_t> iterators;
    std::vector<size_t> outputs;
    int64_t countLimit{-1}; //!< the kCOUNT trip limit's layer, if any
    int64_t whileLimit{-1}; //!< the kWHILE trip limit's layer, if any
};

//! The loops of `model`, outer loops before the loops nested in them, with each layer's innermost loop (an index into
//! `loops`, -1 for none). False with `error` naming what breaks TensorRT's rules: a loop without a trip limit, a
//! recurrence without its next value, a value computed in a loop read outside it other than through a loop output
//! (a network output among them), an initial value, trip count, iterated tensor or length computed inside the loop,
//! loops that overlap. With `ordered`, also that each loop's layers are contiguous in the plan's order.
bool findLoops(PlanModel const& model, bool ordered, std::vector<LoopRange>& loops, std::vector<int32_t>& innermost,
    std::string& error);

//! Reorders `model`'s layers so that each loop's layers are contiguous, in an order the execution context runs it by:
//! the recurrences first, then what the kWHILE trip limit's condition needs and the limit itself, then the rest of
//! the body, then the loop outputs. False with `error` as findLoops.
bool orderLoops(PlanModel& model, std::string& error);

} // namespace kiln::plan
