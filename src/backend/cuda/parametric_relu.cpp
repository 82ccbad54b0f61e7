// IParametricReLULayer on the GPU: the point-wise program its parameters describe (network/layers/parametric_relu.h).
#include "backend/cuda/layer_kernels.h"

namespace kiln::cuda
{

void run(network::ParametricReLUParams const& /*params*/, LayerInputs const& inputs, LayerOutputs const& outputs,
    cudaStream_t stream)
{
    run(network::ParametricReLUParams::program(), inputs, outputs, stream);
}

} // namespace kiln::cuda
