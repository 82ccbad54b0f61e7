// Where IPoolingLayer's windows fall (network/layers/pooling.h): N-d windows over the last windowSize.nbDims axes,
// every axis before them pooled independently. Empty stride and padding (nbDims 0) mean 1 and 0 on every spatial
// axis. Both backends check the parameters and shape their output through it.
#pragma once

#include "backend/shared/sliding_window.h"
#include "core/tensor_view.h"
#include "network/layers/pooling.h"

namespace kiln::backend
{

//! The window's stride and placement for one input shape, and the pooled output's shape.
struct PoolingGeometry
{
    Shape stride;
    WindowGeometry window;
    Shape outputShape;
};

//! Checks the parameters against `inputShape` and places the window; throws std::invalid_argument starting with
//! "pooling" on inconsistent parameters.
PoolingGeometry poolingGeometry(Shape const& inputShape, network::PoolingParams const& params);

//! The input shape with its last windowSize.nbDims extents replaced by the pooled extents; throws
//! std::invalid_argument on inconsistent parameters.
Shape poolingOutputShape(Shape const& inputShape, network::PoolingParams const& params);

} // namespace kiln::backend
