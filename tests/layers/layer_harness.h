// Builds a tiny network through TensorRT's API, turns it into a plan on the CPU backend, loads the plan and
// runs it on host buffers: what every layer test needs.
#pragma once

#include "test_logger.h"

#include <NvInfer.h>
#include <kiln/Backend.h>

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace kiln::test
{

struct LayerHarness
{
    RecordingLogger logger;
    std::unique_ptr<nvinfer1::IBuilder> builder{nvinfer1::createInferBuilder(logger)};
    std::unique_ptr<nvinfer1::INetworkDefinition> network{builder->createNetworkV2(0)};
    std::unique_ptr<nvinfer1::IBuilderConfig> config{builder->createBuilderConfig()};
    nvinfer1::IOptimizationProfile* profile{nullptr};
    std::unique_ptr<nvinfer1::IHostMemory> plan;
    std::unique_ptr<nvinfer1::IRuntime> runtime;
    std::unique_ptr<nvinfer1::ICudaEngine> engine;
    std::unique_ptr<nvinfer1::IExecutionContext> context;

    //! For inputs with -1 dimensions: min, opt and max shapes.
    void setProfile(char const* input, nvinfer1::Dims min, nvinfer1::Dims opt, nvinfer1::Dims max)
    {
        if (profile == nullptr)
        {
            profile = builder->createOptimizationProfile();
        }
        profile->setDimensions(input, nvinfer1::OptProfileSelector::kMIN, min);
        profile->setDimensions(input, nvinfer1::OptProfileSelector::kOPT, opt);
        profile->setDimensions(input, nvinfer1::OptProfileSelector::kMAX, max);
    }

    void output(nvinfer1::ILayer* layer, char const* name, int32_t index = 0)
    {
        ASSERT_NE(layer, nullptr) << logger.errors();
        layer->getOutput(index)->setName(name);
        network->markOutput(*layer->getOutput(index));
    }

    //! Builds, serializes, loads and creates an execution context; false (with a test failure) on any error.
    bool build()
    {
        kiln::setBackend(*config, kiln::Backend::kCPU);
        if (profile != nullptr)
        {
            config->addOptimizationProfile(profile);
        }
        plan.reset(builder->buildSerializedNetwork(*network, *config));
        EXPECT_NE(plan, nullptr) << logger.errors();
        if (!plan)
        {
            return false;
        }
        runtime.reset(nvinfer1::createInferRuntime(logger));
        engine.reset(runtime->deserializeCudaEngine(plan->data(), plan->size()));
        EXPECT_NE(engine, nullptr) << logger.errors();
        if (!engine)
        {
            return false;
        }
        context.reset(engine->createExecutionContext());
        return context != nullptr;
    }

    //! Builds as the configuration says and expects it to fail with an error containing `message`.
    void expectBuildToFail(std::string const& message)
    {
        if (profile != nullptr)
        {
            config->addOptimizationProfile(profile);
        }
        std::unique_ptr<nvinfer1::IHostMemory> failed(builder->buildSerializedNetwork(*network, *config));
        EXPECT_EQ(failed, nullptr);
        EXPECT_NE(logger.errors().find(message), std::string::npos) << logger.errors();
    }

    //! Runs with the given input and output buffers (by name); false on failure.
    bool run(std::map<std::string, void const*> const& inputs, std::map<std::string, void*> const& outputs)
    {
        for (auto const& [name, data] : inputs)
        {
            EXPECT_TRUE(context->setTensorAddress(name.c_str(), const_cast<void*>(data)));
        }
        for (auto const& [name, data] : outputs)
        {
            EXPECT_TRUE(context->setTensorAddress(name.c_str(), data));
        }
        bool const ok = context->enqueueV3(nullptr);
        EXPECT_TRUE(ok) << logger.errors();
        return ok;
    }

    std::vector<int64_t> shapeOf(char const* name) const
    {
        nvinfer1::Dims const dims = context->getTensorShape(name);
        return std::vector<int64_t>(dims.d, dims.d + std::max(dims.nbDims, 0));
    }
};

inline nvinfer1::Weights floatWeights(std::vector<float> const& values)
{
    return nvinfer1::Weights{nvinfer1::DataType::kFLOAT, values.data(), static_cast<int64_t>(values.size())};
}

} // namespace kiln::test
