#include "backend/cuda/kernels.h"

#include "backend/cuda/layer_kernels.h"
#include "backend/cuda/cuda_error.h"
#include "backend/cuda/device_access.cuh"

#include <cmath>
#include <cstring>
#include <stdexcept>

namespace kiln::cuda
{
namespace
{

using device::DataType;

__device__ int64_t saturatingTruncate(double value, DataType to)
{
    if (isnan(value))
    {
        return 0;
    }
    double low = -9.2233720368547758e18;
    double high = 9.2233720368547748e18;
    switch (to)
    {
    case DataType::kINT8:
        low = -128.0;
        high = 127.0;
        break;
    case DataType::kUINT8:
        low = 0.0;
        high = 255.0;
        break;
    case DataType::kINT32:
        low = -2147483648.0;
        high = 2147483647.0;
        break;
    default: break;
    }
    return static_cast<int64_t>(trunc(fmin(fmax(value, low), high)));
}

__global__ void castKernel(void const* input, DataType from, void* output, DataType to, int64_t count)
{
    for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < count;
         i += static_cast<int64_t>(blockDim.x) * gridDim.x)
    {
        bool const fromFloat = isFloatType(from);
        if (to == DataType::kBOOL)
        {
            bool const truth = fromFloat
                ? device::loadFloat(input, from, i) != 0.0F || isnan(device::loadFloat(input, from, i))
                : device::loadInteger(input, from, i) != 0;
            device::storeInteger(output, to, i, truth ? 1 : 0);
        }
        else if (isFloatType(to))
        {
            float const value = fromFloat ? device::loadFloat(input, from, i)
                                          : static_cast<float>(device::loadInteger(input, from, i));
            device::storeFloat(output, to, i, value);
        }
        else
        {
            int64_t const value = fromFloat ? saturatingTruncate(device::loadFloat(input, from, i), to)
                                            : device::loadInteger(input, from, i);
            device::storeInteger(output, to, i, value);
        }
    }
}

} // namespace

void castOnDevice(ConstTensorView const& input, TensorView const& output, cudaStream_t stream)
{
    if (input.shape != output.shape)
    {
        throw std::invalid_argument("cast: the output's shape differs from the input's");
    }
    if (!isNumericType(input.type) || !isNumericType(output.type))
    {
        throw std::invalid_argument("cast: a type is not one of FP32, FP16, BF16, INT8, UINT8, INT32, INT64, BOOL");
    }
    int64_t const count = input.count();
    if (count == 0)
    {
        return;
    }
    if (input.type == output.type)
    {
        check(cudaMemcpyAsync(output.data, input.data, static_cast<size_t>(count) * elementSize(input.type),
                  cudaMemcpyDeviceToDevice, stream),
            "cast: copying");
        return;
    }
    castKernel<<<device::blocksFor(count), device::kThreadsPerBlock, 0, stream>>>(
        input.data, input.type, output.data, output.type, count);
    check(cudaGetLastError(), "cast: launching the kernel");
}

void run(network::IdentityParams const& /*params*/, LayerInputs const& inputs, LayerOutputs const& outputs,
    cudaStream_t stream)
{
    castOnDevice(inputs[0], outputs[0], stream);
}

void run(
    network::CastParams const& /*params*/, LayerInputs const& inputs, LayerOutputs const& outputs, cudaStream_t stream)
{
    castOnDevice(inputs[0], outputs[0], stream);
}

} // namespace kiln::cuda
