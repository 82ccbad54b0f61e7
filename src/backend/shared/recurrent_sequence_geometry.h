// The extents of a recurrent sequence layer (network/fused/recurrent_sequence.h), checked once from its tensors'
// shapes, so that the CPU reference and the CUDA kernel read them alike. Plain C++.
#pragma once

#include "core/tensor_view.h"
#include "network/fused/recurrent_sequence.h"

#include <cstdint>
#include <vector>

namespace kiln::backend
{

struct RecurrentSequenceGeometry
{
    int64_t steps{0};      //!< the loop's trip count: the stacked output's first extent
    int64_t inputSteps{0}; //!< the gates' inputs' first extent, at least `steps`
    int64_t batch{0};
    int64_t hidden{0};

    //! Element (step row, b, j) of a gate's input ([inputSteps, B, H]).
    int64_t inputAt(int64_t row, int64_t b, int64_t j) const
    {
        return (row * batch + b) * hidden + j;
    }
    //! The row step `k` reads from the gates' inputs, and the row of the stacked output it writes.
    int64_t inputRow(network::RecurrentSequenceParams const& params, int64_t k) const
    {
        return params.iteratesBackwards ? inputSteps - 1 - k : k;
    }
    int64_t stackedRow(network::RecurrentSequenceParams const& params, int64_t k) const
    {
        return params.stacksBackwards ? steps - 1 - k : k;
    }
};

//! The geometry of a layer with `params` whose inputs (by slot; an absent one empty) and outputs have these shapes.
//! Throws std::invalid_argument naming the tensor whose shape does not fit.
RecurrentSequenceGeometry recurrentSequenceGeometry(network::RecurrentSequenceParams const& params,
    std::vector<Shape const*> const& inputs, std::vector<Shape const*> const& outputs);

//! The same from the layer's tensors, where an input without data that has elements is absent.
RecurrentSequenceGeometry recurrentSequenceGeometry(network::RecurrentSequenceParams const& params,
    std::vector<ConstTensorView> const& inputs, std::vector<TensorView> const& outputs);

} // namespace kiln::backend
