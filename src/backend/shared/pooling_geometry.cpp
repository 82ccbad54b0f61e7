#include "backend/shared/pooling_geometry.h"

#include "core/dims_text.h"
#include "network/layers/layer_utils.h"

#include <stdexcept>
#include <string>

namespace kiln::backend
{

PoolingGeometry poolingGeometry(Shape const& inputShape, network::PoolingParams const& params)
{
    Shape const windowSize = network::dimsToVector(params.windowSize);
    size_t const spatialRank = windowSize.size();
    if (spatialRank == 0 || inputShape.size() < spatialRank)
    {
        throw std::invalid_argument("pooling: window " + shapeText(windowSize) + " for input " + shapeText(inputShape));
    }
    size_t const leadingRank = inputShape.size() - spatialRank;
    PoolingGeometry geometry;
    geometry.stride = spatialParameter(params.stride, spatialRank, 1, "pooling stride");
    Shape const inputSize(inputShape.begin() + static_cast<std::ptrdiff_t>(leadingRank), inputShape.end());
    geometry.window = forwardWindowGeometry(inputSize, windowSize, geometry.stride,
        spatialParameter(params.prePadding, spatialRank, 0, "pooling prePadding"),
        spatialParameter(params.postPadding, spatialRank, 0, "pooling postPadding"), params.paddingMode);
    geometry.outputShape.assign(inputShape.begin(), inputShape.begin() + static_cast<std::ptrdiff_t>(leadingRank));
    geometry.outputShape.insert(
        geometry.outputShape.end(), geometry.window.outputSize.begin(), geometry.window.outputSize.end());
    return geometry;
}

Shape poolingOutputShape(Shape const& inputShape, network::PoolingParams const& params)
{
    return poolingGeometry(inputShape, params).outputShape;
}

} // namespace kiln::backend
