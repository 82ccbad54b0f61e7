// KILN_BACKEND: an application written for TensorRT never calls kiln::setBackend, so the environment variable is how
// its user chooses the backend its default configuration builds for. A value that names no backend fails the build
// with an error naming the variable.
#include "../layers/layer_harness.h"

#include <NvInfer.h>
#include <kiln/Backend.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace
{

using namespace nvinfer1;

//! Sets KILN_BACKEND for one test and puts back what was there.
class BackendVariable
{
public:
    explicit BackendVariable(char const* value)
    {
        if (char const* old = std::getenv(kName))
        {
            mOld = old;
        }
        setenv(kName, value, 1);
    }
    ~BackendVariable()
    {
        if (mOld)
        {
            setenv(kName, mOld->c_str(), 1);
        }
        else
        {
            unsetenv(kName);
        }
    }
    BackendVariable(BackendVariable const&) = delete;
    BackendVariable& operator=(BackendVariable const&) = delete;

private:
    static constexpr char const* kName = "KILN_BACKEND";
    std::optional<std::string> mOld;
};

//! y = relu(x) over [4], built with the configuration as created: the backend left to kDEFAULT.
std::unique_ptr<IHostMemory> buildWithDefaultBackend(kiln::test::LayerHarness& h)
{
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{1, {4}});
    h.output(h.network->addActivation(*x, ActivationType::kRELU), "y");
    EXPECT_EQ(kiln::getBackend(*h.config), kiln::Backend::kDEFAULT);
    return std::unique_ptr<IHostMemory>(h.builder->buildSerializedNetwork(*h.network, *h.config));
}

bool loggedInfo(kiln::test::LayerHarness const& h, std::string const& text)
{
    for (auto const& [severity, message] : h.logger.messages)
    {
        if (severity == ILogger::Severity::kINFO && message.find(text) != std::string::npos)
        {
            return true;
        }
    }
    return false;
}

TEST(BackendVariable, CpuMakesTheDefaultConfigurationBuildAndRunOnTheCpu)
{
    BackendVariable chosen("cpu");
    EXPECT_EQ(kiln::defaultBackend(), kiln::Backend::kCPU);
    kiln::test::LayerHarness h;
    std::unique_ptr<IHostMemory> plan = buildWithDefaultBackend(h);
    ASSERT_NE(plan, nullptr) << h.logger.errors();
    EXPECT_TRUE(loggedInfo(h, "Built a plan for the cpu backend"));

    // Host buffers, as only the CPU backend takes them.
    std::unique_ptr<IRuntime> runtime(createInferRuntime(h.logger));
    std::unique_ptr<ICudaEngine> engine(runtime->deserializeCudaEngine(plan->data(), plan->size()));
    ASSERT_NE(engine, nullptr) << h.logger.errors();
    std::unique_ptr<IExecutionContext> context(engine->createExecutionContext());
    std::vector<float> x{-2.0F, -0.5F, 0.0F, 3.0F};
    std::vector<float> y(4, -1.0F);
    ASSERT_TRUE(context->setTensorAddress("x", x.data()));
    ASSERT_TRUE(context->setTensorAddress("y", y.data()));
    ASSERT_TRUE(context->enqueueV3(nullptr)) << h.logger.errors();
    EXPECT_EQ(y, (std::vector<float>{0.0F, 0.0F, 0.0F, 3.0F}));
}

TEST(BackendVariable, CudaIsWhatTheDefaultMeansWhetherOrNotAGpuIsHere)
{
    BackendVariable chosen("cuda");
    EXPECT_EQ(kiln::defaultBackend(), kiln::Backend::kCUDA);
}

TEST(BackendVariable, EmptyLeavesTheChoiceToTheMachine)
{
    BackendVariable chosen("");
    kiln::Backend const machine = kiln::backendAvailable(kiln::Backend::kCUDA) ? kiln::Backend::kCUDA
                                                                               : kiln::Backend::kCPU;
    EXPECT_EQ(kiln::defaultBackend(), machine);
}

TEST(BackendVariable, AValueNamingNoBackendFailsTheBuildNamingTheVariable)
{
    BackendVariable chosen("tpu");
    kiln::test::LayerHarness h;
    EXPECT_EQ(buildWithDefaultBackend(h), nullptr);
    EXPECT_NE(h.logger.errors().find("KILN_BACKEND is \"tpu\", which names no backend"), std::string::npos)
        << h.logger.errors();
}

TEST(BackendVariable, AConfigurationThatNamesItsBackendIsNotOverridden)
{
    BackendVariable chosen("tpu");
    kiln::test::LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{1, {4}});
    h.output(h.network->addActivation(*x, ActivationType::kRELU), "y");
    EXPECT_TRUE(h.build()) << h.logger.errors(); // the harness sets kCPU
}

} // namespace
