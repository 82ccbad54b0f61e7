// enqueueV3 in steady state allocates nothing on the host: the context prepared each layer's views when it was made
// and when shapes or addresses changed. The program replaces the global operator new with a counting one
// (bench/allocation_counter.cpp) and runs layers whose reference kernels allocate nothing themselves (activations),
// so that any allocation counted is the engine's own per-layer path: the layer loop, the conversions of layers that
// read a type other than their tensor's, and plugins (their descriptions, addresses and traced calls).
#include "../layers/layer_harness.h"
#include "allocation_counter.h"

#include <ScaledAddPlugin.h>
#include <kiln/CpuBackend.h>

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <memory>
#include <vector>

namespace
{

using namespace nvinfer1;
using kiln::test::LayerHarness;

constexpr int kLayers = 40;

//! x [1, 8] through kLayers activations, alternately ReLU and sigmoid, on the reference kernels (which run every
//! layer as defined; the fast path would fuse them into one).
struct ActivationChain
{
    LayerHarness h;

    ActivationChain()
    {
        ITensor* y = h.network->addInput("x", DataType::kFLOAT, Dims2{1, 8});
        for (int i = 0; i < kLayers; ++i)
        {
            y = h.network->addActivation(*y, i % 2 == 0 ? ActivationType::kRELU : ActivationType::kSIGMOID)
                    ->getOutput(0);
        }
        y->setName("y");
        h.network->markOutput(*y);
        kiln::setCpuKernels(*h.config, kiln::CpuKernels::kREFERENCE);
    }

    //! What the chain computes from `x`.
    static std::vector<float> expected(std::vector<float> x)
    {
        for (int i = 0; i < kLayers; ++i)
        {
            for (float& v : x)
            {
                v = i % 2 == 0 ? std::max(v, 0.0F) : 1.0F / (1.0F + std::exp(-v));
            }
        }
        return x;
    }
};

void expectNear(std::vector<float> const& actual, std::vector<float> const& expected)
{
    ASSERT_EQ(actual.size(), expected.size());
    for (size_t i = 0; i < actual.size(); ++i)
    {
        EXPECT_NEAR(actual[i], expected[i], 1e-6F) << "element " << i;
    }
}

TEST(SteadyStateAllocation, EnqueueAllocatesNothingOnceWarm)
{
    ActivationChain chain;
    ASSERT_TRUE(chain.h.build());
    std::vector<float> const x{-2, -1, -0.5F, 0, 0.25F, 1, 3, 7};
    std::vector<float> y(8, -1.0F);
    ASSERT_TRUE(chain.h.context->setTensorAddress("x", const_cast<float*>(x.data())));
    ASSERT_TRUE(chain.h.context->setTensorAddress("y", y.data()));
    ASSERT_TRUE(chain.h.context->enqueueV3(nullptr)) << chain.h.logger.errors(); // the first run prepares
    uint64_t const before = kiln_bench::allocationCount();
    for (int run = 0; run < 10; ++run)
    {
        ASSERT_TRUE(chain.h.context->enqueueV3(nullptr));
    }
    EXPECT_EQ(kiln_bench::allocationCount() - before, 0U);
    expectNear(y, ActivationChain::expected(x));
}

TEST(SteadyStateAllocation, NewAddressesAtEveryRunAllocateNothing)
{
    ActivationChain chain;
    ASSERT_TRUE(chain.h.build());
    // Double buffering, as a pipelined application does: the addresses alternate between two pairs.
    std::vector<std::vector<float>> const x{{-2, -1, -0.5F, 0, 0.25F, 1, 3, 7}, {5, 4, 3, 2, 1, 0, -1, -2}};
    std::vector<std::vector<float>> y(2, std::vector<float>(8, -1.0F));
    for (int run = 0; run < 2; ++run) // each pair once before counting
    {
        ASSERT_TRUE(chain.h.context->setTensorAddress("x", const_cast<float*>(x[run].data())));
        ASSERT_TRUE(chain.h.context->setTensorAddress("y", y[run].data()));
        ASSERT_TRUE(chain.h.context->enqueueV3(nullptr)) << chain.h.logger.errors();
    }
    std::fill(y[0].begin(), y[0].end(), -1.0F);
    std::fill(y[1].begin(), y[1].end(), -1.0F);
    uint64_t const before = kiln_bench::allocationCount();
    for (int run = 0; run < 10; ++run)
    {
        ASSERT_TRUE(chain.h.context->setTensorAddress("x", const_cast<float*>(x[run % 2].data())));
        ASSERT_TRUE(chain.h.context->setTensorAddress("y", y[run % 2].data()));
        ASSERT_TRUE(chain.h.context->enqueueV3(nullptr));
    }
    EXPECT_EQ(kiln_bench::allocationCount() - before, 0U);
    expectNear(y[0], ActivationChain::expected(x[0]));
    expectNear(y[1], ActivationChain::expected(x[1]));
}

TEST(SteadyStateAllocation, ViewsOfAnInputThatMovesAtEveryRunAllocateNothing)
{
    // x [2, 8] viewed as [16], softsign, viewed as [4, 4], softsign again: the views follow x's address without a
    // copy. The plan is for the fast path (whose plans make views); softsign runs on the reference kernel there,
    // which allocates nothing (oneDNN's kernels do).
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims2{2, 8});
    IShuffleLayer* flat = h.network->addShuffle(*x);
    flat->setReshapeDimensions(Dims{1, {16}});
    ITensor* first = h.network->addActivation(*flat->getOutput(0), ActivationType::kSOFTSIGN)->getOutput(0);
    IShuffleLayer* square = h.network->addShuffle(*first);
    square->setReshapeDimensions(Dims2{4, 4});
    h.output(h.network->addActivation(*square->getOutput(0), ActivationType::kSOFTSIGN), "y");
    kiln::setCpuKernels(*h.config, kiln::CpuKernels::kFAST);
    ASSERT_TRUE(h.build());
    std::vector<std::vector<float>> const inputs{{-2, -1, -0.5F, 0, 0.25F, 1, 3, 7, 1, 2, 3, 4, 5, 6, 7, 8},
        {5, 4, 3, 2, 1, 0, -1, -2, -3, 0, 3, 0, 1, 1, 2, 2}};
    std::vector<float> y(16, -1.0F);
    auto const runWith = [&](std::vector<float> const& values) {
        return h.context->setTensorAddress("x", const_cast<float*>(values.data()))
            && h.context->setTensorAddress("y", y.data()) && h.context->enqueueV3(nullptr);
    };
    ASSERT_TRUE(runWith(inputs[0]) && runWith(inputs[1])) << h.logger.errors();
    uint64_t const before = kiln_bench::allocationCount();
    for (int run = 0; run < 10; ++run)
    {
        ASSERT_TRUE(runWith(inputs[run % 2]));
    }
    EXPECT_EQ(kiln_bench::allocationCount() - before, 0U);
    std::vector<float> expected(16);
    for (size_t i = 0; i < 16; ++i)
    {
        float const once = inputs[1][i] / (1.0F + std::abs(inputs[1][i]));
        expected[i] = once / (1.0F + std::abs(once));
    }
    expectNear(y, expected);
}

//! Runs `context` once on `x` into `y`, then ten more times while counting allocations.
uint64_t allocationsOfTenWarmRuns(IExecutionContext& context, std::vector<float> const& x, std::vector<float>& y)
{
    EXPECT_TRUE(context.setTensorAddress("x", const_cast<float*>(x.data())));
    EXPECT_TRUE(context.setTensorAddress("y", y.data()));
    EXPECT_TRUE(context.enqueueV3(nullptr)); // the first run prepares
    uint64_t const before = kiln_bench::allocationCount();
    for (int run = 0; run < 10; ++run)
    {
        EXPECT_TRUE(context.enqueueV3(nullptr));
    }
    return kiln_bench::allocationCount() - before;
}

//! An application's logger that keeps warnings and errors only, on stderr: the test's recording logger would itself
//! allocate for every kVERBOSE line a run sends it (a plugin's enqueue is traced).
class QuietLogger final : public ILogger
{
public:
    void log(Severity severity, char const* msg) noexcept override
    {
        if (severity <= Severity::kWARNING)
        {
            std::fprintf(stderr, "kiln: %s\n", msg);
        }
    }
};

// With kFP16 the activations compute in FP16: the first reads the FP32 input through a conversion, the last writes
// the FP32 output through one, into scratch the reformatter keeps.
TEST(SteadyStateAllocation, ConversionsAllocateNothingOnceWarm)
{
    ActivationChain chain;
    chain.h.config->setFlag(BuilderFlag::kFP16);
    ASSERT_TRUE(chain.h.build());
    std::vector<float> const x{-2, -1, -0.5F, 0, 0.25F, 1, 3, 7};
    std::vector<float> y(8, -1.0F);
    EXPECT_EQ(allocationsOfTenWarmRuns(*chain.h.context, x, y), 0U) << chain.h.logger.errors();
    std::vector<float> const expected = ActivationChain::expected(x);
    for (size_t i = 0; i < y.size(); ++i)
    {
        EXPECT_NEAR(y[i], expected[i], 2e-3F) << "element " << i; // FP16 rounding at every layer
    }
}

// A plugin (ScaledAdd, an IPluginV3 that runs on the host) between built-in layers: y = sigmoid(relu(x) + 0.5 x).
TEST(SteadyStateAllocation, PluginsAllocateNothingOnceWarm)
{
    LayerHarness h;
    kiln::setCpuKernels(*h.config, kiln::CpuKernels::kREFERENCE);
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims2{1, 8});
    ITensor* positive = h.network->addActivation(*x, ActivationType::kRELU)->getOutput(0);
    kiln_seed::ScaledAddPlugin plugin(0.5F);
    std::array<ITensor*, 2> const operands{positive, x};
    ITensor* sum = h.network->addPluginV3(operands.data(), 2, nullptr, 0, plugin)->getOutput(0);
    h.output(h.network->addActivation(*sum, ActivationType::kSIGMOID), "y");
    ASSERT_TRUE(h.build());
    // Loaded again under a logger that drops kVERBOSE lines, as an application's does.
    QuietLogger quiet;
    std::unique_ptr<IRuntime> runtime(createInferRuntime(quiet));
    std::unique_ptr<ICudaEngine> engine(runtime->deserializeCudaEngine(h.plan->data(), h.plan->size()));
    ASSERT_NE(engine, nullptr);
    std::unique_ptr<IExecutionContext> context(engine->createExecutionContext());
    ASSERT_NE(context, nullptr);
    std::vector<float> const input{-2, -1, -0.5F, 0, 0.25F, 1, 3, 7};
    std::vector<float> y(8, -1.0F);
    EXPECT_EQ(allocationsOfTenWarmRuns(*context, input, y), 0U);
    for (size_t i = 0; i < y.size(); ++i)
    {
        float const v = input[i];
        EXPECT_NEAR(y[i], 1.0F / (1.0F + std::exp(-(std::max(v, 0.0F) + 0.5F * v))), 1e-6F) << "element " << i;
    }
}

} // namespace
