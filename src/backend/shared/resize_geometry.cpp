#include "backend/shared/resize_geometry.h"

#include "backend/shared/kernel_checks.h"
#include "network/layers/layer_utils.h"

#include <cmath>
#include <string>

namespace kiln::backend
{
namespace
{

using kernel_checks::expectValidShape;
using kernel_checks::fail;

constexpr char const* kKernel = "resize";

} // namespace

Shape resizeOutputDimensions(Shape const& input, Shape const& dimensions)
{
    expectValidShape(dimensions, kKernel, "outputDimensions");
    if (dimensions.size() != input.size())
    {
        fail(kKernel,
            "outputDimensions " + shapeText(dimensions) + " do not match rank " + std::to_string(input.size()));
    }
    return dimensions;
}

Shape resizeOutputShape(Shape const& input, network::ResizeParams const& params)
{
    if (params.hasOutputDimensions && !params.scales.empty())
    {
        fail(kKernel, "set exactly one of outputDimensions and scales");
    }
    if (params.hasOutputDimensions)
    {
        return resizeOutputDimensions(input, network::dimsToVector(params.outputDimensions));
    }
    if (params.scales.empty())
    {
        return input;
    }
    if (params.scales.size() != input.size())
    {
        fail(kKernel, std::to_string(params.scales.size()) + " scales for rank " + std::to_string(input.size()));
    }
    Shape output(input.size());
    for (size_t d = 0; d < input.size(); ++d)
    {
        if (!(params.scales[d] > 0.0f))
        {
            fail(kKernel, "scales must be positive");
        }
        output[d] = static_cast<int64_t>(std::floor(static_cast<double>(input[d]) * params.scales[d]));
    }
    return output;
}

std::vector<double> resizeScales(
    network::ResizeParams const& params, bool hasShapeInput, Shape const& input, Shape const& output)
{
    bool const givenScales = !hasShapeInput && !params.hasOutputDimensions && !params.scales.empty();
    if (output.size() != input.size() || (givenScales && params.scales.size() != input.size()))
    {
        fail(kKernel, "scales need an input and an output of one rank, and one scale per dim");
    }
    std::vector<double> scales(input.size());
    for (size_t d = 0; d < input.size(); ++d)
    {
        scales[d] = givenScales ? static_cast<double>(params.scales[d])
                                : static_cast<double>(output[d]) / static_cast<double>(input[d]);
    }
    return scales;
}

} // namespace kiln::backend
