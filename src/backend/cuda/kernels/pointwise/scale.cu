#include "backend/cuda/kernels/pointwise/scale.h"

#include "backend/cuda/cuda_error.h"
#include "backend/cuda/kernels/device_access.cuh"
#include "backend/cuda/kernels/strided_index.cuh"

#include <stdexcept>
#include <string>

namespace kiln::cuda
{
namespace
{

using device::DataType;

// Element i uses weight (i / repeat) % weightCount: kCHANNEL repeats each weight over the volume after the channel
// axis; kUNIFORM and kELEMENTWISE cycle through the weights (repeat 1), as the CPU reference does.
__global__ void scaleKernel(void const* input, DataType inType, void* output, DataType outType, DeviceScaleWeights w,
    int64_t repeat, int64_t weightCount, int64_t count)
{
    KILN_GRID_STRIDE_LOOP(i, count)
    {
        int64_t const k = (i / repeat) % weightCount;
        float value = device::loadFloat(input, inType, i);
        // No fused multiply-add: the CPU rounds the product before adding the shift.
        value = __fadd_rn(__fmul_rn(value, w.scaleCount ? w.scale[k] : 1.0F), w.shiftCount ? w.shift[k] : 0.0F);
        if (w.powerCount)
        {
            value = powf(value, w.power[k]);
        }
        device::storeFloat(output, outType, i, value);
    }
}

} // namespace

void scaleOnDevice(nvinfer1::ScaleMode mode, int32_t channelAxis, DeviceScaleWeights const& weights,
    ConstTensorView const& input, TensorView const& output, cudaStream_t stream)
{
    if (input.shape != output.shape || !isFloatType(input.type) || !isFloatType(output.type))
    {
        throw std::invalid_argument("scale: input and output must be FP32, FP16 or BF16 of one shape");
    }
    if (channelAxis < 0 || channelAxis >= input.rank())
    {
        throw std::invalid_argument("scale: channelAxis " + std::to_string(channelAxis) + " is outside the input");
    }
    int64_t after = 1; // the volume after the channel axis
    for (size_t d = static_cast<size_t>(channelAxis) + 1; d < input.shape.size(); ++d)
    {
        after *= input.shape[d];
    }
    int64_t const channels = input.shape[static_cast<size_t>(channelAxis)];
    int64_t weightCount = 1;
    int64_t repeat = 1;
    switch (mode)
    {
    case nvinfer1::ScaleMode::kUNIFORM: break;
    case nvinfer1::ScaleMode::kCHANNEL:
        weightCount = channels;
        repeat = after;
        break;
    case nvinfer1::ScaleMode::kELEMENTWISE: weightCount = channels * after; break;
    default: throw std::invalid_argument("scale: unknown ScaleMode");
    }
    for (int64_t given : {weights.shiftCount, weights.scaleCount, weights.powerCount})
    {
        if (given != 0 && given != weightCount)
        {
            throw std::invalid_argument("scale: a weight list holds " + std::to_string(given)
                + " values, expected 0 or " + std::to_string(weightCount));
        }
    }
    int64_t const count = input.count();
    if (count == 0)
    {
        return;
    }
    scaleKernel<<<device::blocksFor(count), device::kThreadsPerBlock, 0, stream>>>(
        input.data, input.type, output.data, output.type, weights, repeat, weightCount, count);
    check(cudaGetLastError(), "scale: launching the kernel");
}

} // namespace kiln::cuda
