#include "backend/cuda/scale_layer.h"

#include "backend/cpu/kernels/nn/element_access.h"
#include "backend/cuda/scale.h"

#include <stdexcept>

namespace kiln::cuda
{

std::vector<float> packScaleWeights(network::ScaleParams const& params)
{
    std::vector<float> packed;
    for (network::WeightsBuffer const* weights : {&params.shift, &params.scale, &params.power})
    {
        if (!weights->empty() && weights->count() > 0)
        {
            std::vector<float> const values = cpu::loadAllAsFloat(
                ConstTensorView(weights->type(), Shape{weights->count()}, weights->data()));
            packed.insert(packed.end(), values.begin(), values.end());
        }
    }
    return packed;
}

void runScaleLayerOnDevice(network::ScaleParams const& params, void const* packed, ConstTensorView const& input,
    TensorView const& output, cudaStream_t stream)
{
    if (packed == nullptr)
    {
        throw std::invalid_argument("scale: the weights were not uploaded to the device");
    }
    DeviceScaleWeights weights;
    auto const* next = static_cast<float const*>(packed);
    auto take = [&next](network::WeightsBuffer const& buffer, float const*& pointer, int64_t& count) {
        count = buffer.empty() ? 0 : buffer.count();
        pointer = count > 0 ? next : nullptr;
        next += count;
    };
    take(params.shift, weights.shift, weights.shiftCount);
    take(params.scale, weights.scale, weights.scaleCount);
    take(params.power, weights.power, weights.powerCount);
    scaleOnDevice(params.mode, params.channelAxis, weights, input, output, stream);
}

} // namespace kiln::cuda
