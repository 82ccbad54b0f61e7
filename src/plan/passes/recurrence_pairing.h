// Recurrent sequences that read nothing of each other run as one layer (network::RecurrentSequencePairParams): the two
// directions of a bidirectional LSTM, GRU or RNN, each of which recurrence fusion (recurrence_fusion.h) made one layer.
// A backend whose kernel waits between steps for every state of the step (the CUDA kernel's grid barrier) then waits
// once a step for both directions, where it waited once a step for each.
#pragma once

#include "plan/plan_model.h"

#include <cstddef>

namespace kiln::plan
{

//! Pairs each recurrent sequence layer of `model` with the next one of the same gates, precision and guards that
//! neither it nor any layer between them reads an output of; the pair takes the later one's place. Returns how many
//! pairs were made.
size_t pairRecurrences(PlanModel& model);

} // namespace kiln::plan
