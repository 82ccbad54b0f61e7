// Runs one network on the CPU backend's fast path and on its reference kernels and compares the outputs: what every
// fast-path test needs. It also reads the fast plan back, so that a test can check that the fast path ran the
// layers it is about (a comparison of two reference runs would pass as well).
#pragma once

#include "backend/cpu/fast/fast_path.h"
#include "expect_close.h"
#include "host_tensor.h"
#include "plan/plan_format.h"
#include "test_logger.h"

#include <NvInfer.h>
#include <kiln/Backend.h>
#include <kiln/CpuBackend.h>

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace kiln::test
{

using namespace nvinfer1;

//! Adds layers to a network and marks its outputs; the same function builds both plans.
using NetworkMaker = std::function<void(INetworkDefinition&)>;
using Tensors = std::map<std::string, HostTensor>;
//! What a test sets on the builder's configuration beyond the backend and kernels (optimization profiles).
using BuildSettings = std::function<void(IBuilder&, IBuilderConfig&)>;

inline Dims dimsOf(Shape const& shape)
{
    Dims dims{};
    dims.nbDims = static_cast<int32_t>(shape.size());
    std::copy(shape.begin(), shape.end(), dims.d);
    return dims;
}

//! FP32 weights viewing `values`, which must outlive the network.
inline Weights weightsOf(std::vector<float> const& values)
{
    return Weights{DataType::kFLOAT, values.empty() ? nullptr : values.data(), static_cast<int64_t>(values.size())};
}

//! The serialized CPU plan of `maker`'s network for `kernels`; empty with a test failure where the build fails.
inline std::vector<uint8_t> buildCpuPlan(
    NetworkMaker const& maker, CpuKernels kernels, BuildSettings const& settings = {})
{
    RecordingLogger logger;
    std::unique_ptr<IBuilder> builder(createInferBuilder(logger));
    std::unique_ptr<INetworkDefinition> network(builder->createNetworkV2(0));
    maker(*network);
    std::unique_ptr<IBuilderConfig> config(builder->createBuilderConfig());
    setBackend(*config, Backend::kCPU);
    setCpuKernels(*config, kernels);
    if (settings)
    {
        settings(*builder, *config);
    }
    std::unique_ptr<IHostMemory> plan(builder->buildSerializedNetwork(*network, *config));
    EXPECT_NE(plan, nullptr) << logger.errors();
    if (!plan)
    {
        return {};
    }
    auto const* bytes = static_cast<uint8_t const*>(plan->data());
    return std::vector<uint8_t>(bytes, bytes + plan->size());
}

//! The layers of serialized plan `blob` and whether the fast path runs each: "name" -> marked.
inline std::map<std::string, bool> fastPathLayers(std::vector<uint8_t> const& blob)
{
    plan::PlanModel model;
    std::string error;
    EXPECT_TRUE(plan::readPlan(blob.data(), blob.size(), model, error)) << error;
    std::map<std::string, bool> layers;
    for (plan::LayerRecord const& layer : model.layers)
    {
        layers[layer.name] = cpu::fast::isMarked(layer);
    }
    return layers;
}

//! The entries of `layers` (fastPathLayers) named in `names`: for tests about some layers of a network, whose other
//! layers may move to the fast path as it grows. A name the plan lacks is left out, so that a comparison fails.
inline std::map<std::string, bool> layersNamed(
    std::map<std::string, bool> const& layers, std::vector<std::string> const& names)
{
    std::map<std::string, bool> named;
    for (std::string const& name : names)
    {
        if (auto const found = layers.find(name); found != layers.end())
        {
            named.insert(*found);
        }
    }
    return named;
}

//! Runs plan `blob` once per entry of `runs` (inputs by name) on one context with `threads` threads (at most, where
//! not `fixedThreads`), returning each run's outputs by name. The inputs' shapes are set before each run.
inline std::vector<Tensors> runCpuPlan(
    std::vector<uint8_t> const& blob, std::vector<Tensors> const& runs, int32_t threads = 0, bool fixedThreads = true)
{
    RecordingLogger logger;
    std::unique_ptr<IRuntime> runtime(createInferRuntime(logger));
    std::unique_ptr<ICudaEngine> engine(runtime->deserializeCudaEngine(blob.data(), blob.size()));
    EXPECT_NE(engine, nullptr) << logger.errors();
    std::vector<Tensors> results;
    if (!engine)
    {
        return results;
    }
    std::unique_ptr<IExecutionContext> context(engine->createExecutionContext());
    EXPECT_TRUE(setCpuThreads(*context, threads, fixedThreads)) << logger.errors();
    for (Tensors const& inputs : runs)
    {
        for (auto const& [name, tensor] : inputs)
        {
            Dims dims{};
            dims.nbDims = static_cast<int32_t>(tensor.shape.size());
            std::copy(tensor.shape.begin(), tensor.shape.end(), dims.d);
            EXPECT_TRUE(context->setInputShape(name.c_str(), dims)) << logger.errors();
            EXPECT_TRUE(context->setTensorAddress(name.c_str(), const_cast<uint8_t*>(tensor.bytes.data())));
        }
        Tensors outputs;
        for (int32_t i = 0; i < engine->getNbIOTensors(); ++i)
        {
            char const* name = engine->getIOTensorName(i);
            if (engine->getTensorIOMode(name) != TensorIOMode::kOUTPUT)
            {
                continue;
            }
            Dims const dims = context->getTensorShape(name);
            outputs[name] = zeros(Shape(dims.d, dims.d + dims.nbDims), engine->getTensorDataType(name));
            EXPECT_TRUE(context->setTensorAddress(name, outputs[name].bytes.data()));
        }
        EXPECT_TRUE(context->enqueueV3(nullptr)) << logger.errors();
        results.push_back(std::move(outputs));
    }
    return results;
}

//! Uniform values in [-1, 1) from `seed`: operands whose products stay within 1.
inline HostTensor randomTensor(Shape const& shape, uint32_t seed)
{
    std::mt19937 engine(seed);
    std::uniform_real_distribution<float> uniform(-1.0F, 1.0F);
    std::vector<float> values(static_cast<size_t>(volume(shape)));
    for (float& value : values)
    {
        value = uniform(engine);
    }
    return fromFloats(shape, values);
}

inline std::vector<float> randomValues(size_t count, uint32_t seed)
{
    return randomTensor(Shape{static_cast<int64_t>(count)}, seed).floats();
}

//! FP32 accumulation over `reductionLength` products of values within 1 may differ from the reference's (which sums
//! in double) by about sqrt(length) roundings of the partial sums; this allows a generous multiple of that.
inline Tolerance reductionTolerance(int64_t reductionLength)
{
    return Tolerance(1e-6 * static_cast<double>(reductionLength), 1e-5);
}

//! Builds `maker`'s network for both kernel sets, runs each run of `runs` on both, and compares every output.
//! Returns the fast plan's layers (fastPathLayers), for the test to check which ran on the fast path.
inline std::map<std::string, bool> expectFastMatchesReference(NetworkMaker const& maker,
    std::vector<Tensors> const& runs, Tolerance tolerance, BuildSettings const& settings = {})
{
    std::vector<uint8_t> const fast = buildCpuPlan(maker, CpuKernels::kFAST, settings);
    std::vector<uint8_t> const reference = buildCpuPlan(maker, CpuKernels::kREFERENCE, settings);
    if (fast.empty() || reference.empty())
    {
        return {};
    }
    std::vector<Tensors> const fastResults = runCpuPlan(fast, runs);
    std::vector<Tensors> const referenceResults = runCpuPlan(reference, runs);
    EXPECT_EQ(fastResults.size(), referenceResults.size());
    for (size_t run = 0; run < std::min(fastResults.size(), referenceResults.size()); ++run)
    {
        for (auto const& [name, expected] : referenceResults[run])
        {
            expectClose(fastResults[run].at(name), expected, tolerance, "run " + std::to_string(run) + ", " + name);
        }
    }
    return fastPathLayers(fast);
}

} // namespace kiln::test
