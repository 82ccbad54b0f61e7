// IActivationLayer on the GPU, with the CPU reference's formulas (backend/cpu/kernels/nn/activation.h).
#include "backend/cuda/layer_kernels.h"
#include "backend/cuda/cuda_error.h"
#include "backend/cuda/device_access.cuh"
#include "backend/cuda/pointwise_math.cuh"
#include "backend/cuda/prepared_kernel_layer.h"

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
class ActivationLayer final : public PreparedKernelLayer
{
public:
    explicit ActivationLayer(network::ActivationParams const& params)
        : mParams(params)
    {
    }

private:
    void prepare(LayerInputs const& inputs, LayerOutputs const& outputs) override
    {
        ConstTensorView const& input = inputs[0];
        TensorView const& output = outputs[0];
        if (input.shape != output.shape)
        {
            throw std::invalid_argument("activation: the output's shape differs from the input's");
        }
        if (!isFloatType(input.type) || !isFloatType(output.type))
        {
            throw std::invalid_argument("activation: the CUDA backend takes FP32, FP16 or BF16 tensors");
        }
        auto const type = static_cast<int32_t>(mParams.activation);
        if (type < 0 || type >= nvinfer1::EnumMax<ActivationType>())
        {
            throw std::invalid_argument("activation: unknown ActivationType " + std::to_string(type));
        }
        mInput = input.data;
        mInputType = input.type;
        mOutput = output.data;
        mOutputType = output.type;
        mCount = input.count();
    }

    void launch(cudaStream_t stream) override
    {
        if (mCount == 0)
        {
            return;
        }
        activationKernel<<<device::blocksFor(mCount), device::kThreadsPerBlock, 0, stream>>>(
            mParams.activation, mParams.alpha, mParams.beta, mInput, mInputType, mOutput, mOutputType, mCount);
        check(cudaGetLastError(), "activation: launching the kernel");
    }

    network::ActivationParams const& mParams;
    void const* mInput{nullptr};
    device::DataType mInputType{device::DataType::kFLOAT};
    void* mOutput{nullptr};
    device::DataType mOutputType{device::DataType::kFLOAT};
    int64_t mCount{0};
};

} // namespace

std::unique_ptr<DeviceLayer> lower(network::ActivationParams const& params, LayerContext const& /*context*/)
{
    return std::make_unique<ActivationLayer>(params);
}

} // namespace kiln::cuda
