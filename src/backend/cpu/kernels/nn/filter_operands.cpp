#include "backend/cpu/kernels/nn/filter_operands.h"

#include "backend/cpu/kernels/layer_inputs.h"
#include "backend/cpu/kernels/nn/element_access.h"

#include <string>

namespace kiln::cpu
{

FilterOperands loadFilterOperands(char const* layer, network::WindowedFilterParams const& params,
    Shape const& kernelShape, Shape const& outputShape, ConstTensorView const& input, TensorView const& output)
{
    std::string const name = layer;
    ConstTensorView const kernel = filterWeightsView(params, kernelShape, layer);
    // Viewed with its own count, so that a bias of the wrong length fails the shape check instead of being misread.
    ConstTensorView const bias = weightsView(params.bias, Shape{params.bias.count()});
    int64_t const outputMaps = params.nbOutputMaps;
    bool const hasBias = bias.count() > 0;
    if (hasBias)
    {
        requireShape(bias.shape, Shape{outputMaps}, (name + " bias").c_str());
        requireFloatingPoint(bias, (name + " bias").c_str());
    }
    requireShape(output.shape, outputShape, (name + " output").c_str());
    requireFloatingPoint(input, (name + " input").c_str());
    requireFloatingPoint(kernel, (name + " kernel").c_str());
    requireFloatingPoint(output, (name + " output").c_str());
    return FilterOperands{loadAllAsFloat(input), loadAllAsFloat(kernel),
        hasBias ? loadAllAsFloat(bias) : std::vector<float>(static_cast<size_t>(outputMaps), 0.0F)};
}

} // namespace kiln::cpu
