// What the tests that call a CUDA kernel directly share: the kernel and the CPU reference run on the same layer
// parameters and tensors, the device tensors placed where the test says (device_tensor.h), the outputs compared
// within the output type's rounding and the bytes around them checked untouched.
#pragma once

#include "backend_comparison.h"
#include "device_tensor.h"
#include "expect_close.h"

#include "backend/cpu/layer_kernels.h"
#include "backend/cuda/layer_kernels.h"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace kiln::test
{

//! `count` values in [low, high] in an order without pattern (a multiplicative hash), so that a row's maximum and
//! the values around it sit anywhere in it.
inline std::vector<float> scattered(size_t count, float low, float high, uint32_t seed = 0)
{
    std::vector<float> values(count);
    for (size_t i = 0; i < count; ++i)
    {
        uint32_t hash = (static_cast<uint32_t>(i) + seed * 7919U) * 2654435761U;
        hash ^= hash >> 15;
        values[i] = low + (high - low) * static_cast<float>(hash % 10007U) / 10006.0F;
    }
    return values;
}

//! Where the GPU's float result and the reference's may part: FP32 by float evaluation order and library functions,
//! FP16 and BF16 by that and one unit in the last place of the stored value (both round a float they computed apart).
//! The absolute part is float evaluation's for every type: library functions differ by an ulp of 1 (CUDA's erff and
//! the C library's), which cancellation (1 + erf(x) for x near -4, GELU's tail) turns into differences near 1e-7 in
//! results near 1e-5, a few units of FP16's subnormals.
inline Tolerance toleranceFor(nvinfer1::DataType type)
{
    switch (type)
    {
    case nvinfer1::DataType::kHALF: return Tolerance{1e-6, 1e-3};
    case nvinfer1::DataType::kBF16: return Tolerance{1e-6, 8e-3};
    default: return Tolerance{1e-6, 2e-4};
    }
}

//! `tensor`'s elements moved between the [N, C, spatial...] order (kLINEAR) and [N, spatial..., C] (kHWC); the
//! shape stays the logical one.
inline HostTensor reorderedChannels(HostTensor const& tensor, bool toChannelsLast)
{
    HostTensor reordered = tensor;
    size_t const bytes = kiln::elementSize(tensor.type);
    int64_t const batch = tensor.shape[0];
    int64_t const channels = tensor.shape[1];
    int64_t const positions = batch * channels == 0 ? 0 : kiln::volume(tensor.shape) / (batch * channels);
    for (int64_t n = 0; n < batch; ++n)
    {
        for (int64_t c = 0; c < channels; ++c)
        {
            for (int64_t p = 0; p < positions; ++p)
            {
                auto const linear = static_cast<size_t>((n * channels + c) * positions + p);
                auto const channelsLast = static_cast<size_t>((n * positions + p) * channels + c);
                size_t const from = toChannelsLast ? linear : channelsLast;
                size_t const to = toChannelsLast ? channelsLast : linear;
                std::memcpy(reordered.bytes.data() + to * bytes, tensor.bytes.data() + from * bytes, bytes);
            }
        }
    }
    return reordered;
}

//! One tensor of a direct kernel test: its values, and where its device copy starts.
struct Placed
{
    HostTensor tensor;
    size_t offsetElements{0};
};

//! Queues `params`'s CUDA kernel on the default stream: its stateless kernel, or the layer it lowers to (a kind whose
//! launch is prepared once per shape and addresses, prepared_kernel_layer.h), made here with no library handle used.
//! Returns that layer, which the caller keeps until the GPU has finished with it.
template <typename Params>
std::unique_ptr<cuda::DeviceLayer> runOnDevice(
    Params const& params, cuda::LayerInputs const& inputs, cuda::LayerOutputs const& outputs)
{
    if constexpr (requires { cuda::run(params, inputs, outputs, cudaStream_t{}); })
    {
        cuda::run(params, inputs, outputs, nullptr);
        return nullptr;
    }
    else
    {
        plan::LayerRecord const record;
        cuda::LibraryHandles handles;
        cuda::DeviceBuffer scratch;
        nvinfer1::DataType const type = inputs.empty() ? nvinfer1::DataType::kFLOAT : inputs.front().type;
        cuda::LayerContext const context{record, type, TensorFormat::kLINEAR, handles, scratch};
        std::unique_ptr<cuda::DeviceLayer> layer = cuda::lower(params, context);
        layer->run(inputs, outputs, nullptr);
        return layer;
    }
}

//! Runs `params` on the CPU reference and on the CUDA kernel, each output given as a type and shape placed
//! `outputOffset` elements past an aligned address, and returns both backends' outputs (CPU first). With `inPlace`,
//! the GPU's single output is written over its first input, as a plan that shares their memory does.
template <typename Params>
std::pair<std::vector<HostTensor>, std::vector<HostTensor>> runBothKernels(Params const& params,
    std::vector<Placed> const& inputs, std::vector<HostTensor> const& outputs, size_t outputOffset,
    bool inPlace = false)
{
    std::vector<HostTensor> cpuOutputs = outputs;
    cpu::LayerInputs cpuIn;
    cpu::LayerOutputs cpuOut;
    for (Placed const& input : inputs)
    {
        cpuIn.push_back(input.tensor.constView());
    }
    for (HostTensor& output : cpuOutputs)
    {
        cpuOut.push_back(output.view());
    }
    cpu::run(params, cpuIn, cpuOut);

    std::vector<std::unique_ptr<DeviceTensor>> deviceInputs;
    std::vector<std::unique_ptr<DeviceTensor>> deviceOutputs;
    cuda::LayerInputs gpuIn;
    cuda::LayerOutputs gpuOut;
    for (Placed const& input : inputs)
    {
        deviceInputs.push_back(std::make_unique<DeviceTensor>(input.tensor, input.offsetElements));
        gpuIn.push_back(deviceInputs.back()->constView());
    }
    for (HostTensor const& output : outputs)
    {
        if (!inPlace)
        {
            deviceOutputs.push_back(std::make_unique<DeviceTensor>(output.shape, output.type, outputOffset));
        }
        gpuOut.push_back(inPlace ? deviceInputs.front()->view() : deviceOutputs.back()->view());
    }
    std::unique_ptr<cuda::DeviceLayer> const layer = runOnDevice(params, gpuIn, gpuOut);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    std::vector<HostTensor> gpuOutputs;
    for (size_t i = 0; i < outputs.size(); ++i)
    {
        gpuOutputs.push_back(inPlace ? deviceInputs.front()->read() : deviceOutputs[i]->read());
        EXPECT_TRUE(inPlace || deviceOutputs[i]->guardsIntact()) << "output " << i << " was written outside";
    }
    for (auto const& input : deviceInputs)
    {
        EXPECT_TRUE(input->guardsIntact()) << "an input was written outside";
    }
    return {cpuOutputs, gpuOutputs};
}

} // namespace kiln::test
