// IActivationLayer on the GPU, with the CPU reference's formulas (backend/cpu/kernels/nn/activation.h).
#include "backend/cuda/layer_kernels.h"
#include "backend/cuda/cuda_error.h"
#include "backend/cuda/device_access.cuh"

#include <stdexcept>
#include <string>

namespace kiln::cuda
{
namespace
{

using nvinfer1::ActivationType;

// log(1 + exp(z)) without overflow for large z, and without losing small results for very negative z.
__device__ float softplusUnit(float z)
{
    return z > 0.0F ? z + log1pf(expf(-z)) : log1pf(expf(z));
}

__device__ float sigmoid(float x)
{
    // Both branches keep exp's argument non-positive, so nothing overflows.
    if (x >= 0.0F)
    {
        return 1.0F / (1.0F + expf(-x));
    }
    float const e = expf(x);
    return e / (1.0F + e);
}

// The formulas of the CPU reference (backend/cpu/kernels/nn/activation.cpp), in float.
__device__ float activate(ActivationType type, float alpha, float beta, float x)
{
    switch (type)
    {
    case ActivationType::kRELU: return isnan(x) ? x : fmaxf(x, 0.0F);
    case ActivationType::kSIGMOID: return sigmoid(x);
    case ActivationType::kTANH: return tanhf(x);
    case ActivationType::kLEAKY_RELU: return x >= 0.0F ? x : alpha * x;
    case ActivationType::kELU: return x >= 0.0F ? x : alpha * expm1f(x);
    case ActivationType::kSELU: return x > 0.0F ? beta * x : beta * alpha * expm1f(x);
    case ActivationType::kSOFTSIGN: return x / (1.0F + fabsf(x));
    case ActivationType::kSOFTPLUS: return alpha * softplusUnit(beta * x);
    case ActivationType::kCLIP: return isnan(x) ? x : fmaxf(alpha, fminf(beta, x));
    case ActivationType::kHARD_SIGMOID: return isnan(x) ? x : fmaxf(0.0F, fminf(1.0F, alpha * x + beta));
    case ActivationType::kSCALED_TANH: return alpha * tanhf(beta * x);
    case ActivationType::kTHRESHOLDED_RELU: return x > alpha ? x : (isnan(x) ? x : 0.0F);
    case ActivationType::kGELU_ERF: return 0.5F * x * (1.0F + erff(x * 0.70710678118654752F));
    case ActivationType::kGELU_TANH:
        return 0.5F * x * (1.0F + tanhf(0.79788456080286536F * (x + 0.044715F * x * x * x)));
    }
    return x;
}

__global__ void activationKernel(ActivationType type, float alpha, float beta, void const* input,
    device::DataType inType, void* output, device::DataType outType, int64_t count)
{
    for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < count;
         i += static_cast<int64_t>(blockDim.x) * gridDim.x)
    {
        device::storeFloat(output, outType, i, activate(type, alpha, beta, device::loadFloat(input, inType, i)));
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

void run(network::ActivationParams const& params, LayerInputs const& inputs, LayerOutputs const& outputs, cudaStream_t stream)
{
    activationOnDevice(params.activation, params.alpha, params.beta, inputs[0], outputs[0], stream);
}

} // namespace kiln::cuda
