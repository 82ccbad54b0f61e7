// IActivationLayer on the GPU, with the CPU reference's formulas (backend/cpu/kernels/nn/activation.h).
#include "backend/cuda/layer_kernels.h"
#include "backend/cuda/cuda_error.h"
#include "backend/cuda/device_access.cuh"
#include "backend/cuda/pointwise_math.cuh"

#include <stdexcept>
#include <string>

namespace kiln::cuda
{
namespace
{

using nvinfer1::ActivationType;

__global__ void activationKernel(ActivationType type, float alpha, float beta, void const* input,
    device::DataType inType, void* output, device::DataType outType, int64_t count)
{
    for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < count;
         i += static_cast<int64_t>(blockDim.x) * gridDim.x)
    {
        float const x = device::loadFloat(input, inType, i);
        device::storeFloat(output, outType, i, device::activate(type, alpha, beta, x));
    }
}

//! Every ActivationType, computed in float over FP32, FP16 or BF16 tensors.
void activationOnDevice(nvinfer1::ActivationType type, float alpha, float beta, ConstTensorView const& input,
    TensorView const& output, cudaStream_t stream)
{
    if (input.shape != output.shape)
    {
        throw std::invalid_argument("activation: the output's shape differs from the input's");
    }
    if (!isFloatType(input.type) || !isFloatType(output.type))
    {
        throw std::invalid_argument("activation: the CUDA backend takes FP32, FP16 or BF16 tensors");
    }
    if (static_cast<int32_t>(type) < 0 || static_cast<int32_t>(type) >= nvinfer1::EnumMax<ActivationType>())
    {
        throw std::invalid_argument("activation: unknown ActivationType " + std::to_string(static_cast<int32_t>(type)));
    }
    int64_t const count = input.count();
    if (count == 0)
    {
        return;
    }
    activationKernel<<<device::blocksFor(count), device::kThreadsPerBlock, 0, stream>>>(
        type, alpha, beta, input.data, input.type, output.data, output.type, count);
    check(cudaGetLastError(), "activation: launching the kernel");
}

} // namespace

void run(network::ActivationParams const& params, LayerInputs const& inputs, LayerOutputs const& outputs,
    cudaStream_t stream)
{
    activationOnDevice(params.activation, params.alpha, params.beta, inputs[0], outputs[0], stream);
}

} // namespace kiln::cuda
