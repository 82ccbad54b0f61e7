#include "backend/cpu/kernels/layer_inputs.h"

#include "backend/cpu/kernels/tensor/element_access.h"

#include <stdexcept>
#include <string>

namespace kiln::cpu
{

bool hasInput(LayerInputs const& inputs, size_t index)
{
    return index < inputs.size() && (inputs[index].data != nullptr || inputs[index].count() == 0);
}

Shape integerValues(ConstTensorView const& view)
{
    Shape values(static_cast<size_t>(view.count()));
    for (size_t i = 0; i < values.size(); ++i)
    {
        values[i] = tensor_detail::readInteger(view.data, view.type, static_cast<int64_t>(i));
    }
    return values;
}

double numberAt(ConstTensorView const& view, int64_t index, char const* kernel)
{
    using nvinfer1::DataType;
    switch (view.type)
    {
    case DataType::kFLOAT:
    case DataType::kHALF:
    case DataType::kBF16: return tensor_detail::readFloat(view.data, view.type, index);
    case DataType::kINT32:
    case DataType::kINT64: return static_cast<double>(tensor_detail::readInteger(view.data, view.type, index));
    case DataType::kINT8: return static_cast<int8_t const*>(view.data)[index];
    case DataType::kUINT8:
    case DataType::kBOOL: return static_cast<uint8_t const*>(view.data)[index];
    default:
        throw std::invalid_argument(
            std::string(kernel) + ": a " + dataTypeName(view.type) + " value cannot be read as a number");
    }
}

double numberOr(LayerInputs const& inputs, size_t index, double fixed, char const* kernel)
{
    return hasInput(inputs, index) ? numberAt(inputs[index], 0, kernel) : fixed;
}

ConstTensorView weightsView(network::WeightsBuffer const& weights, Shape shape)
{
    if (weights.empty())
    {
        return ConstTensorView(weights.type(), Shape{0}, nullptr);
    }
    return ConstTensorView(weights.type(), std::move(shape), weights.data());
}

ConstTensorView filterWeightsView(network::WindowedFilterParams const& params, Shape const& shape, char const* kind)
{
    if (params.kernel.count() != volume(shape))
    {
        throw std::invalid_argument(std::string("the ") + kind + " kernel weights hold "
            + std::to_string(params.kernel.count()) + " values but " + std::to_string(params.nbGroups)
            + " group(s) of this input need " + std::to_string(volume(shape)) + " (is the group count set with "
            + "setNbGroups?)");
    }
    return weightsView(params.kernel, shape);
}

} // namespace kiln::cpu
