// A fixture for tests written as applications are (tests/dialects, C++17): a network built with TensorRT's API and
// run on Kiln's CPU backend. It holds the builder, network, configuration (CPU backend) and runtime such a test
// starts from, and builds the network into an engine loaded back from its plan.
#pragma once

#include <NvInfer.h>
#include <kiln/Backend.h>

#include "collecting_logger.h"

#include <gtest/gtest.h>

#include <memory>

namespace kiln::test
{

class CpuNetworkTest : public ::testing::Test
{
protected:
    void SetUp() override
    {
        builder.reset(nvinfer1::createInferBuilder(logger));
        network.reset(builder->createNetworkV2(0));
        config.reset(builder->createBuilderConfig());
        ASSERT_TRUE(kiln::setBackend(*config, kiln::Backend::kCPU));
        runtime.reset(nvinfer1::createInferRuntime(logger));
    }

    //! The network built into a plan and deserialized, as an application loads one; nullptr (a test failure) where
    //! the build failed.
    std::unique_ptr<nvinfer1::ICudaEngine> buildEngine()
    {
        std::unique_ptr<nvinfer1::IHostMemory> plan{builder->buildSerializedNetwork(*network, *config)};
        EXPECT_NE(plan, nullptr);
        if (!plan)
        {
            return nullptr;
        }
        return std::unique_ptr<nvinfer1::ICudaEngine>{runtime->deserializeCudaEngine(plan->data(), plan->size())};
    }

    CollectingLogger logger;
    std::unique_ptr<nvinfer1::IBuilder> builder;
    std::unique_ptr<nvinfer1::INetworkDefinition> network;
    std::unique_ptr<nvinfer1::IBuilderConfig> config;
    std::unique_ptr<nvinfer1::IRuntime> runtime;
};

} // namespace kiln::test
