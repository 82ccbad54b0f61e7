#include "backend/cuda/kernels/pointwise/scale_layer.h"

#include "backend/cuda/cuda_error.h"
#include "backend/cuda/kernels/pointwise/scale.h"
#include "backend/cuda/layer_kernels.h"

namespace kiln::cuda
{
namespace
{

//! The shift, scale and power weights as floats, one list after the other.
std::vector<float> packed(network::ScaleParams const& params)
{
    std::vector<float> values;
    for (network::WeightsBuffer const* weights : {&params.shift, &params.scale, &params.power})
    {
        if (!weights->empty())
        {
            std::vector<float> const floats = weights->toFloat();
            values.insert(values.end(), floats.begin(), floats.end());
        }
    }
    return values;
}

} // namespace

ScaleLayer::ScaleLayer(network::ScaleParams const& params)
    : mParams(params)
{
    std::vector<float> const values = packed(params);
    mPacked = DeviceBuffer(values.size() * sizeof(float), "the scale layer's weights");
    check(cudaMemcpy(mPacked.data(), values.data(), values.size() * sizeof(float), cudaMemcpyHostToDevice),
        "uploading a scale layer's weights");
}

void ScaleLayer::run(
    std::vector<ConstTensorView> const& inputs, std::vector<TensorView> const& outputs, cudaStream_t stream)
{
    DeviceScaleWeights weights;
    auto const* next = static_cast<float const*>(static_cast<void const*>(mPacked.data()));
    auto take = [&next](network::WeightsBuffer const& buffer, float const*& pointer, int64_t& count) {
        count = buffer.count();
        pointer = count > 0 ? next : nullptr;
        next += count;
    };
    take(mParams.shift, weights.shift, weights.shiftCount);
    take(mParams.scale, weights.scale, weights.scaleCount);
    take(mParams.power, weights.power, weights.powerCount);
    scaleOnDevice(mParams.mode, mParams.channelAxis, weights, inputs.at(0), outputs.at(0), stream);
}

std::unique_ptr<DeviceLayer> lower(network::ScaleParams const& params, LayerContext const& /*context*/)
{
    return std::make_unique<ScaleLayer>(params);
}

} // namespace kiln::cuda
