#include "backend/cuda/kernels/kernels.h"

#include "backend/cuda/cuda_error.h"
#include "backend/cuda/kernels/device_access.cuh"
#include "backend/cuda/layer_kernels.h"
#include "backend/cuda/prepared_kernel_layer.h"

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

//! A cast (or an identity) as it is launched: a copy where the types agree, else the cast kernel.
struct CastLaunch
{
    void const* input{nullptr};
    DataType from{DataType::kFLOAT};
    void* output{nullptr};
    DataType to{DataType::kFLOAT};
    int64_t count{0};
};

CastLaunch prepareCast(ConstTensorView const& input, TensorView const& output)
{
    if (input.shape != output.shape)
    {
        throw std::invalid_argument("cast: the output's shape differs from the input's");
    }
    if (!isNumericType(input.type) || !isNumericType(output.type))
    {
        throw std::invalid_argument("cast: a type is not one of FP32, FP16, BF16, INT8, UINT8, INT32, INT64, BOOL");
    }
    return CastLaunch{input.data, input.type, output.data, output.type, input.count()};
}

void launchCast(CastLaunch const& launch, cudaStream_t stream)
{
    if (launch.count == 0)
    {
        return;
    }
    if (launch.from == launch.to)
    {
        copyOnDevice(launch.output, launch.input, static_cast<size_t>(launch.count) * elementSize(launch.from), stream);
        return;
    }
    castKernel<<<device::blocksFor(launch.count), device::kThreadsPerBlock, 0, stream>>>(
        launch.input, launch.from, launch.output, launch.to, launch.count);
    check(cudaGetLastError(), "cast: launching the kernel");
}

//! ICastLayer and IIdentityLayer, which differ only in their descriptions: both convert (or copy) their input.
class CastLayer final : public PreparedKernelLayer
{
private:
    void prepare(LayerInputs const& inputs, LayerOutputs const& outputs) override
    {
        mLaunch = prepareCast(inputs[0], outputs[0]);
    }
    void launch(cudaStream_t stream) override
    {
        launchCast(mLaunch, stream);
    }

    CastLaunch mLaunch;
};

} // namespace

void castOnDevice(ConstTensorView const& input, TensorView const& output, cudaStream_t stream)
{
    launchCast(prepareCast(input, output), stream);
}

std::unique_ptr<DeviceLayer> lower(network::IdentityParams const& /*params*/, LayerContext const& /*context*/)
{
    return std::make_unique<CastLayer>();
}

std::unique_ptr<DeviceLayer> lower(network::CastParams const& /*params*/, LayerContext const& /*context*/)
{
    return std::make_unique<CastLayer>();
}

} // namespace kiln::cuda
