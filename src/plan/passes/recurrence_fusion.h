// Loops that run a recurrent cell over a sequence become one layer (network::RecurrentSequenceParams): the loops that
// the ONNX importer builds for LSTM, GRU with linear_before_reset (PyTorch's form) and RNN, one per direction, and
// any loop of the network API made of the same layers. A loop matches when it has a kCOUNT trip limit alone, one
// iterator per gate over the gate's precomputed input (axis 0, all in one direction), the hidden state (and an LSTM's
// cell state) as its recurrences, a body that is exactly the cell (each gate's input plus the product of the hidden
// state with the transposed [H, H] weights, its activations, the cell's sums and products), and as its outputs the
// stacked hidden states (required, its length the trip limit's) and the last hidden and cell states. Loops with
// anything more (LSTM's peepholes, clip, sequence lengths, GRU's default form, whose reset gate multiplies the state
// before the product) keep running as loops. The backend's kernel then runs every step without returning to the host.
#pragma once

#include "network/fused/recurrent_sequence.h"
#include "plan/plan_model.h"

#include <cstddef>
#include <cstdint>
#include <functional>

namespace kiln::plan
{

struct RecurrenceFusionRules
{
    //! Whether the backend runs a recurrent sequence of `cell` (its gates and functions; the outputs are not yet set)
    //! computing in `type` with `hidden` units.
    std::function<bool(network::RecurrentSequenceParams const& cell, nvinfer1::DataType type, int64_t hidden)> runs;
};

//! Rewrites `model`'s layer list in place; runs before the other fusions, which would change the loops' bodies.
//! Returns how many loops became one layer.
size_t fuseRecurrences(PlanModel& model, RecurrenceFusionRules const& rules);

} // namespace kiln::plan
