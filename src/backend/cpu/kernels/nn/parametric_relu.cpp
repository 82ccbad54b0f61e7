// IParametricReLULayer on the CPU: the point-wise program its parameters describe (network/layers/parametric_relu.h).
#include "backend/cpu/kernels/nn/pointwise.h"
#include "backend/cpu/layer_kernels.h"

namespace kiln::cpu
{

void run(network::ParametricReLUParams const& /*params*/, LayerInputs const& inputs, LayerOutputs const& outputs)
{
    runPointwise(network::ParametricReLUParams::program(), inputs, outputs.at(0));
}

} // namespace kiln::cpu
