// Runs one network on the CUDA backend and on the CPU reference and compares the outputs:
// what every CUDA backend test needs.
#pragma once

#include "expect_close.h"
#include "host_tensor.h"
#include "plan/plan_format.h"
#include "recording_output_allocator.h"
#include "test_logger.h"
#include "varied_constants.h"

#include <NvInfer.h>
#include <kiln/Backend.h>
#include <kiln/ConvolutionLayout.h>
#include <kiln/CpuBackend.h>

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace kiln::test
{

using namespace nvinfer1;

inline bool gpuPresent()
{
    int count = 0;
    return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

#define SKIP_WITHOUT_GPU()                                                                                             \
    if (!kiln::test::gpuPresent())                                                                                     \
    {                                                                                                                  \
        GTEST_SKIP() << "no CUDA GPU on this machine";                                                                 \
    }

//! Adds layers to a network and marks its outputs; the same function builds both backends' networks.
using NetworkMaker = std::function<void(INetworkDefinition&)>;
//! Sets what a test needs of the builder's configuration beyond the backend and kFP16 (may be empty).
using BuildSettings = std::function<void(IBuilderConfig&)>;

//! The extents one optimization profile gives an input.
struct InputRange
{
    std::string name;
    Dims min;
    Dims opt;
    Dims max;
};

//! The plan `maker`'s network builds into for `backend` (with kFP16 where `fp16`; with one optimization profile of
//! `ranges` where it names inputs of dynamic extents), or null with the failure checked.
inline std::unique_ptr<IHostMemory> buildPlan(RecordingLogger& logger, kiln::Backend backend, NetworkMaker const& maker,
    bool fp16, BuildSettings const& settings, std::vector<InputRange> const& ranges = {})
{
    std::unique_ptr<IBuilder> builder(createInferBuilder(logger));
    std::unique_ptr<INetworkDefinition> network(builder->createNetworkV2(0));
    maker(*network);
    std::unique_ptr<IBuilderConfig> config(builder->createBuilderConfig());
    kiln::setBackend(*config, backend);
    // The CPU side is the reference kernels: the fast path (oneDNN) treats NaN otherwise in places.
    kiln::setCpuKernels(*config, kiln::CpuKernels::kREFERENCE);
    if (fp16)
    {
        config->setFlag(BuilderFlag::kFP16);
    }
    if (settings)
    {
        settings(*config);
    }
    if (!ranges.empty())
    {
        IOptimizationProfile* profile = builder->createOptimizationProfile();
        for (InputRange const& range : ranges)
        {
            profile->setDimensions(range.name.c_str(), OptProfileSelector::kMIN, range.min);
            profile->setDimensions(range.name.c_str(), OptProfileSelector::kOPT, range.opt);
            profile->setDimensions(range.name.c_str(), OptProfileSelector::kMAX, range.max);
        }
        config->addOptimizationProfile(profile);
    }
    std::unique_ptr<IHostMemory> plan(builder->buildSerializedNetwork(*network, *config));
    EXPECT_NE(plan, nullptr) << logger.errors();
    return plan;
}

//! An output allocator in the memory `backend` runs in: device memory for CUDA, host memory for the CPU.
inline std::unique_ptr<RecordingOutputAllocator> outputAllocatorFor(kiln::Backend backend)
{
    if (backend != kiln::Backend::kCUDA)
    {
        return std::make_unique<RecordingOutputAllocator>();
    }
    return std::make_unique<RecordingOutputAllocator>(
        [](size_t bytes) {
            void* memory = nullptr;
            EXPECT_EQ(cudaMalloc(&memory, bytes), cudaSuccess);
            return memory;
        },
        [](void* memory) { cudaFree(memory); });
}

//! Sets up an execution context before it runs (a debug listener, debug states).
using ContextSetup = std::function<void(IExecutionContext&)>;

//! Loads serialized plan `blob`, for `backend`, runs it once with `inputs` and returns every output by name. Outputs
//! whose shape is data-dependent are received through an output allocator.
inline std::map<std::string, HostTensor> runPlan(kiln::Backend backend, std::vector<uint8_t> const& blob,
    std::map<std::string, HostTensor> const& inputs, cudaStream_t stream = nullptr, ContextSetup const& setup = {})
{
    kiln::test::RecordingLogger logger;
    std::unique_ptr<IRuntime> runtime(createInferRuntime(logger));
    std::unique_ptr<ICudaEngine> engine(runtime->deserializeCudaEngine(blob.data(), blob.size()));
    EXPECT_NE(engine, nullptr) << logger.errors();
    if (!engine)
    {
        return {};
    }
    std::unique_ptr<IExecutionContext> context(engine->createExecutionContext());
    if (setup)
    {
        setup(*context);
    }
    bool const device = backend == kiln::Backend::kCUDA;
    std::map<std::string, void*> deviceBuffers;
    std::map<std::string, std::unique_ptr<RecordingOutputAllocator>> allocators;
    std::map<std::string, HostTensor> outputs;
    for (int32_t i = 0; i < engine->getNbIOTensors(); ++i)
    {
        char const* name = engine->getIOTensorName(i);
        Dims const dims = engine->getTensorShape(name);
        DataType const type = engine->getTensorDataType(name);
        if (std::any_of(dims.d, dims.d + dims.nbDims, [](int64_t d) { return d < 0; }))
        {
            allocators[name] = outputAllocatorFor(backend);
            EXPECT_TRUE(context->setOutputAllocator(name, allocators[name].get()));
            continue;
        }
        size_t elements = 1;
        for (int32_t d = 0; d < dims.nbDims; ++d)
        {
            elements *= static_cast<size_t>(dims.d[d]);
        }
        size_t const bytes = elements * kiln::elementSize(type);
        HostTensor* host = nullptr;
        if (engine->getTensorIOMode(name) == TensorIOMode::kINPUT)
        {
            host = const_cast<HostTensor*>(&inputs.at(name));
            EXPECT_EQ(host->bytes.size(), bytes) << name;
        }
        else
        {
            outputs[name] = zeros(std::vector<int64_t>(dims.d, dims.d + dims.nbDims), type);
            host = &outputs[name];
        }
        void* address = host->bytes.data();
        if (device)
        {
            EXPECT_EQ(cudaMalloc(&address, bytes + 1), cudaSuccess);
            deviceBuffers[name] = address;
            if (engine->getTensorIOMode(name) == TensorIOMode::kINPUT)
            {
                EXPECT_EQ(cudaMemcpy(address, host->bytes.data(), bytes, cudaMemcpyHostToDevice), cudaSuccess);
            }
        }
        EXPECT_TRUE(context->setTensorAddress(name, address));
    }
    if (device)
    {
        // A copy from pageable memory may return before it lands, and a non-blocking stream does not wait for it.
        EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    }
    EXPECT_TRUE(context->enqueueV3(stream)) << logger.errors();
    if (device)
    {
        EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    }
    for (auto const& [name, allocator] : allocators)
    {
        if (allocator->shapes.empty())
        {
            continue; // the run failed, and says so above
        }
        outputs[name] = zeros(allocator->shapes.back(), engine->getTensorDataType(name.c_str()));
        std::vector<uint8_t>& bytes = outputs[name].bytes;
        if (device)
        {
            EXPECT_EQ(cudaMemcpy(bytes.data(), allocator->memory(), bytes.size(), cudaMemcpyDeviceToHost), cudaSuccess);
        }
        else if (!bytes.empty())
        {
            std::memcpy(bytes.data(), allocator->memory(), bytes.size());
        }
    }
    for (auto const& [name, address] : deviceBuffers)
    {
        if (engine->getTensorIOMode(name.c_str()) == TensorIOMode::kOUTPUT)
        {
            HostTensor& host = outputs[name];
            EXPECT_EQ(cudaMemcpy(host.bytes.data(), address, host.bytes.size(), cudaMemcpyDeviceToHost), cudaSuccess);
        }
        cudaFree(address);
    }
    return outputs;
}

//! Builds with `maker` for `backend`, runs once with `inputs` (host data, copied to the device for CUDA) and returns
//! every output by name.
inline std::map<std::string, HostTensor> runOn(kiln::Backend backend, NetworkMaker const& maker,
    std::map<std::string, HostTensor> const& inputs, bool fp16 = false, cudaStream_t stream = nullptr,
    BuildSettings const& settings = {}, ContextSetup const& setup = {})
{
    kiln::test::RecordingLogger logger;
    std::unique_ptr<IHostMemory> const plan = buildPlan(logger, backend, maker, fp16, settings);
    if (!plan)
    {
        return {};
    }
    auto const* bytes = static_cast<uint8_t const*>(plan->data());
    return runPlan(backend, std::vector<uint8_t>(bytes, bytes + plan->size()), inputs, stream, setup);
}

//! Device memory holding `bytes`, freed at the end of the scope.
struct DeviceCopy
{
    void* data{nullptr};
    explicit DeviceCopy(std::vector<uint8_t> const& bytes)
    {
        EXPECT_EQ(cudaMalloc(&data, bytes.size()), cudaSuccess);
        EXPECT_EQ(cudaMemcpy(data, bytes.data(), bytes.size(), cudaMemcpyHostToDevice), cudaSuccess);
    }
    DeviceCopy(DeviceCopy const&) = delete;
    DeviceCopy& operator=(DeviceCopy const&) = delete;
    ~DeviceCopy()
    {
        cudaFree(data);
    }
    std::vector<uint8_t> read(size_t size) const
    {
        std::vector<uint8_t> bytes(size);
        EXPECT_EQ(cudaMemcpy(bytes.data(), data, size, cudaMemcpyDeviceToHost), cudaSuccess);
        return bytes;
    }
};

//! One output of both backends: FP32 values within the tolerance; any other type bit for bit, since integers are
//! exact and a 16-bit float output is the rounding of FP32 values both backends compute.
inline void expectSameOutput(HostTensor const& gpu, HostTensor const& cpu, Tolerance tolerance, std::string const& what)
{
    if (cpu.type == DataType::kFLOAT)
    {
        expectClose(gpu, cpu, tolerance, what);
        return;
    }
    ASSERT_EQ(gpu.type, cpu.type) << what;
    ASSERT_EQ(gpu.shape, cpu.shape) << what;
    EXPECT_EQ(gpu.bytes, cpu.bytes) << what;
}

inline std::vector<float> spread(size_t count, float low, float high)
{
    std::vector<float> values(count);
    for (size_t i = 0; i < count; ++i)
    {
        values[i] = low + (high - low) * static_cast<float>(i) / static_cast<float>(count - 1);
    }
    return values;
}

//! The extents of `dims`, as a HostTensor's shape, and how many elements they hold.
inline std::vector<int64_t> shapeOf(Dims const& dims)
{
    return std::vector<int64_t>(dims.d, dims.d + dims.nbDims);
}

inline size_t volumeOf(Dims const& dims)
{
    size_t volume = 1;
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        volume *= static_cast<size_t>(dims.d[i]);
    }
    return volume;
}

//! A named ReLU of `input`, and a named sum of `a` and `b`: the layers the builder fuses into what precedes them.
inline ITensor& relu(INetworkDefinition& network, ITensor& input, char const* name)
{
    IActivationLayer* layer = network.addActivation(input, ActivationType::kRELU);
    layer->setName(name);
    return *layer->getOutput(0);
}

inline ITensor& add(INetworkDefinition& network, ITensor& a, ITensor& b, char const* name)
{
    IElementWiseLayer* layer = network.addElementWise(a, b, ElementWiseOperation::kSUM);
    layer->setName(name);
    return *layer->getOutput(0);
}

//! A shuffle of `input` that only transposes it: output axis i is input axis order[i].
inline ITensor* transposed(
    INetworkDefinition& network, ITensor& input, std::vector<int32_t> const& order, char const* name)
{
    IShuffleLayer* shuffle = network.addShuffle(input);
    Permutation permutation{};
    std::copy(order.begin(), order.end(), permutation.order);
    shuffle->setFirstTranspose(permutation);
    shuffle->setName(name);
    return shuffle->getOutput(0);
}

inline void expectBackendsAgree(NetworkMaker const& maker, std::map<std::string, HostTensor> const& inputs, bool fp16,
    std::string const& what, BuildSettings const& settings = {})
{
    auto const cpu = runOn(kiln::Backend::kCPU, maker, inputs, fp16, nullptr, settings);
    auto const gpu = runOn(kiln::Backend::kCUDA, maker, inputs, fp16, nullptr, settings);
    ASSERT_EQ(cpu.size(), gpu.size()) << what;
    for (auto const& [name, expected] : cpu)
    {
        Tolerance const tolerance = fp16 ? Tolerance{2.5e-3, 1e-3} : Tolerance{1e-5, 1e-4};
        expectSameOutput(gpu.at(name), expected, tolerance, what + " output " + name);
    }
}

//! The CUDA plan built from `maker` (with kFP16 where `fp16`; with one optimization profile of `ranges` where it
//! names inputs of dynamic extents), read back: building needs no GPU, loading does.
inline kiln::plan::PlanModel cudaPlanOf(NetworkMaker const& maker, bool fp16 = false,
    BuildSettings const& settings = {}, std::vector<InputRange> const& ranges = {})
{
    RecordingLogger logger;
    std::unique_ptr<IHostMemory> const plan = buildPlan(logger, kiln::Backend::kCUDA, maker, fp16, settings, ranges);
    kiln::plan::PlanModel model;
    std::string error;
    if (plan != nullptr)
    {
        EXPECT_TRUE(kiln::plan::readPlan(plan->data(), plan->size(), model, error)) << error;
    }
    return model;
}

//! The CPU plan built from `maker`, read back, with `fuse` (a CUDA fusion pass) applied to it, so that the CPU
//! reference runs the fused layers. The plan's memory was laid out for the layers before the fusion, where a fused
//! layer may write bytes that one of its inputs, now read by it, shares: each activation gets bytes of its own.
inline kiln::plan::PlanModel fusedCpuPlanOf(
    NetworkMaker const& maker, bool fp16, std::function<void(kiln::plan::PlanModel&)> const& fuse)
{
    RecordingLogger logger;
    std::unique_ptr<IHostMemory> const plan = buildPlan(logger, kiln::Backend::kCPU, maker, fp16, {});
    kiln::plan::PlanModel model;
    std::string error;
    EXPECT_TRUE(plan && kiln::plan::readPlan(plan->data(), plan->size(), model, error)) << error;
    fuse(model);
    constexpr int64_t kAlignment = 256;
    int64_t end = 0;
    for (kiln::plan::TensorRecord& tensor : model.tensors)
    {
        if (tensor.arenaOffset >= 0)
        {
            tensor.arenaOffset = end;
            end += (tensor.maxBytes + kAlignment - 1) / kAlignment * kAlignment;
        }
    }
    model.arenaBytes = end;
    return model;
}

//! `model` with every layer of kind `type` set to run `choice` (the CUDA backend's AlgorithmChoice, encoded), as a
//! plan. A convolution's choice that its kernel does not take at its shape leaves it to cuDNN's heuristics.
inline std::vector<uint8_t> withBackendChoice(
    kiln::plan::PlanModel model, LayerType type, std::vector<uint8_t> const& choice)
{
    for (kiln::plan::LayerRecord& layer : model.layers)
    {
        if (layer.type == type)
        {
            layer.backendChoice = choice;
        }
    }
    return kiln::plan::writePlan(model);
}

//! The layers of kind `type` in `model`, in plan order.
inline std::vector<kiln::plan::LayerRecord const*> layersOfType(kiln::plan::PlanModel const& model, LayerType type)
{
    std::vector<kiln::plan::LayerRecord const*> layers;
    for (kiln::plan::LayerRecord const& layer : model.layers)
    {
        if (layer.type == type)
        {
            layers.push_back(&layer);
        }
    }
    return layers;
}

//! The format `layer` of `model` reads its first input in.
inline TensorFormat firstInputFormat(kiln::plan::PlanModel const& model, kiln::plan::LayerRecord const& layer)
{
    return layer.ioFormats.empty() ? model.tensors.at(static_cast<size_t>(layer.inputs.at(0))).format
                                   : layer.ioFormats.at(0);
}

//! How many of `model`'s layers are of kind `type`.
inline int64_t layersOfKind(kiln::plan::PlanModel const& model, LayerType type)
{
    return std::count_if(model.layers.begin(), model.layers.end(),
        [type](kiln::plan::LayerRecord const& layer) { return layer.type == type; });
}

//! The names of the layers of the CUDA plan built from `maker`.
inline std::vector<std::string> layerNamesOfCudaPlan(NetworkMaker const& maker)
{
    std::vector<std::string> names;
    for (kiln::plan::LayerRecord const& layer : cudaPlanOf(maker).layers)
    {
        names.push_back(layer.name);
    }
    return names;
}

} // namespace kiln::test
