// Where IScatterLayer's updates land (network/layers/scatter.h), from the tensors' types and shapes and the layer's
// parameters alone: both backends check a scatter through it before touching data, so they refuse the same ones.
#pragma once

#include "core/tensor_view.h"
#include "network/layers/scatter.h"

namespace kiln::backend
{

//! Where a scatter's updates land, from the shapes alone.
struct ScatterGeometry
{
    int32_t axis{0};            //!< kELEMENT: the axis, in [0, rank)
    int64_t coordinateCount{0}; //!< kND: k, the coordinates of each tuple
    int64_t slice{0};           //!< kND: the elements of the data slice each tuple picks (the data dims from k)
};

//! Checks the types, shapes and parameters (throws std::invalid_argument starting with "scatter: ") and returns the
//! geometry.
ScatterGeometry scatterGeometry(ConstTensorView const& data, ConstTensorView const& indices,
    ConstTensorView const& updates, TensorView const& output, network::ScatterParams const& params);

} // namespace kiln::backend
