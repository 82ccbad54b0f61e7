#include "backend/shared/kernel_geometry.h"

#include "core/dims_text.h"
#include "network/layers/layer_utils.h"

#include <stdexcept>
#include <string>

namespace kiln::backend
{

KernelGeometry resolveKernelGeometry(
    char const* layer, WindowDirection direction, Shape const& inputShape, network::WindowedFilterParams const& params)
{
    std::string const name = layer;
    if (inputShape.size() < 3)
    {
        throw std::invalid_argument(
            name + ": input " + shapeText(inputShape) + " needs a batch, a channel and at least one spatial axis");
    }
    size_t const spatialRank = inputShape.size() - 2;
    Shape const kernelSize = network::dimsToVector(params.kernelSize);
    if (kernelSize.size() != spatialRank)
    {
        throw std::invalid_argument(
            name + ": kernelSize " + shapeText(kernelSize) + " for input " + shapeText(inputShape));
    }
    if (params.nbGroups < 1 || inputShape[1] % params.nbGroups != 0 || params.nbOutputMaps < 0
        || params.nbOutputMaps % params.nbGroups != 0)
    {
        throw std::invalid_argument(name + ": " + std::to_string(inputShape[1]) + " input channels and "
            + std::to_string(params.nbOutputMaps) + " output maps must both divide into "
            + std::to_string(params.nbGroups) + " groups");
    }
    KernelGeometry geometry;
    geometry.stride = spatialParameter(params.stride, spatialRank, 1, (name + " stride").c_str());
    geometry.dilation = spatialParameter(params.dilation, spatialRank, 1, (name + " dilation").c_str());
    Shape const prePadding = spatialParameter(params.prePadding, spatialRank, 0, (name + " prePadding").c_str());
    Shape const postPadding = spatialParameter(params.postPadding, spatialRank, 0, (name + " postPadding").c_str());
    Shape const inputSize(inputShape.begin() + 2, inputShape.end());
    Shape const window = dilatedWindow(kernelSize, geometry.dilation);
    geometry.window = direction == WindowDirection::kFORWARD
        ? forwardWindowGeometry(inputSize, window, geometry.stride, prePadding, postPadding, params.paddingMode)
        : transposedWindowGeometry(inputSize, window, geometry.stride, prePadding, postPadding, params.paddingMode);
    geometry.outputShape = {inputShape[0], params.nbOutputMaps};
    geometry.outputShape.insert(
        geometry.outputShape.end(), geometry.window.outputSize.begin(), geometry.window.outputSize.end());
    return geometry;
}

} // namespace kiln::backend
