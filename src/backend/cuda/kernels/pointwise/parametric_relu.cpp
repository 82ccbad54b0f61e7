// IParametricReLULayer on the GPU: the point-wise program its parameters describe (network/layers/parametric_relu.h).
#include "backend/cuda/layer_kernels.h"

namespace kiln::cuda
{

std::unique_ptr<DeviceLayer> lower(network::ParametricReLUParams const& /*params*/, LayerContext const& context)
{
    return lower(network::ParametricReLUParams::program(), context); // a program that lives as long as the process
}

} // namespace kiln::cuda
