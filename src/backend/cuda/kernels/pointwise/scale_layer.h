// IScaleLayer on the GPU: its shift, scale and power weights are packed as floats and uploaded once per execution
// context; every run reads them there.
#pragma once

#include "backend/cuda/device_layer.h"
#include "backend/cuda/memory/device_buffer.h"
#include "network/layers/scale.h"

namespace kiln::cuda
{

class ScaleLayer final : public DeviceLayer
{
public:
    explicit ScaleLayer(network::ScaleParams const& params);
    void run(std::vector<ConstTensorView> const& inputs, std::vector<TensorView> const& outputs,
        cudaStream_t stream) override;

private:
    network::ScaleParams const& mParams;
    DeviceBuffer mPacked; //!< shift, scale and power as floats, one list after the other (absent ones take no room)
};

} // namespace kiln::cuda
