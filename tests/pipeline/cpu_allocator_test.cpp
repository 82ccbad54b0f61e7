// The runtime's IGpuAllocator on the CPU backend: a context that allocates its own memory (kSTATIC) asks the
// allocator for it (host memory: the CPU backend's "device" is the host, as setDeviceMemoryV2 takes on it), runs in
// it, and gives it back when destroyed; an allocator that gives nothing fails the context's creation with an error
// naming it; a runtime without one allocates as before.
#include "test_logger.h"

#include <NvInfer.h>
#include <kiln/Backend.h>
#include <kiln/CpuBackend.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <vector>

namespace
{

using namespace nvinfer1;

//! Host memory from aligned_alloc, counting every call; `refuse` makes allocate fail.
class HostAllocator : public IGpuAllocator
{
public:
    void* allocate(uint64_t size, uint64_t alignment, AllocatorFlags flags) noexcept override
    {
        ++allocations;
        lastSize = size;
        lastAlignment = alignment;
        lastFlags = flags;
        if (refuse)
        {
            return nullptr;
        }
        void* memory = std::aligned_alloc(alignment, (size + alignment - 1) / alignment * alignment);
        std::memset(memory, 0xAB, size);
        live[memory] = size;
        return memory;
    }
    bool deallocate(void* memory) noexcept override
    {
        ++deallocations;
        if (live.erase(memory) == 0)
        {
            return false;
        }
        std::free(memory);
        return true;
    }

    bool refuse{false};
    int allocations{0};
    int deallocations{0};
    uint64_t lastSize{0};
    uint64_t lastAlignment{0};
    AllocatorFlags lastFlags{~0U};
    std::map<void*, uint64_t> live; //!< what was given and not yet given back, with its size
};

std::vector<float> const kInput{-3.0F, -1.5F, 0.0F, 0.25F, 1.0F, 2.0F, -8.0F, 5.5F};

//! A CPU plan of y = |x| + x for x of shape (8): the sum's input |x| is an activation in the context's memory.
std::unique_ptr<IHostMemory> buildPlan(ILogger& logger)
{
    std::unique_ptr<IBuilder> builder(createInferBuilder(logger));
    std::unique_ptr<INetworkDefinition> network(builder->createNetworkV2(0));
    ITensor* x = network->addInput("x", DataType::kFLOAT, Dims{1, {8}});
    IUnaryLayer* abs = network->addUnary(*x, UnaryOperation::kABS);
    IElementWiseLayer* sum = network->addElementWise(*abs->getOutput(0), *x, ElementWiseOperation::kSUM);
    sum->getOutput(0)->setName("y");
    network->markOutput(*sum->getOutput(0));
    std::unique_ptr<IBuilderConfig> config(builder->createBuilderConfig());
    kiln::setBackend(*config, kiln::Backend::kCPU);
    kiln::setCpuKernels(*config, kiln::CpuKernels::kREFERENCE); // keeps |x| an activation (no fusion)
    return std::unique_ptr<IHostMemory>(builder->buildSerializedNetwork(*network, *config));
}

std::vector<float> run(IExecutionContext& context)
{
    std::vector<float> y(kInput.size(), -1.0F);
    EXPECT_TRUE(context.setInputTensorAddress("x", kInput.data()));
    EXPECT_TRUE(context.setTensorAddress("y", y.data()));
    EXPECT_TRUE(context.enqueueV3(nullptr));
    return y;
}

std::vector<float> expected()
{
    std::vector<float> y;
    for (float v : kInput)
    {
        y.push_back(v < 0.0F ? 0.0F : 2.0F * v);
    }
    return y;
}

TEST(CpuGpuAllocator, ContextMemoryComesFromTheRuntimesAllocatorAndGoesBack)
{
    kiln::test::RecordingLogger logger;
    std::unique_ptr<IHostMemory> plan = buildPlan(logger);
    ASSERT_NE(plan, nullptr) << logger.errors();
    HostAllocator allocator;
    std::unique_ptr<IRuntime> runtime(createInferRuntime(logger));
    runtime->setGpuAllocator(&allocator);
    std::unique_ptr<ICudaEngine> engine(runtime->deserializeCudaEngine(plan->data(), plan->size()));
    ASSERT_NE(engine, nullptr) << logger.errors();
    EXPECT_EQ(allocator.allocations, 0); // the engine keeps only the plan

    std::unique_ptr<IExecutionContext> context(engine->createExecutionContext());
    ASSERT_NE(context, nullptr) << logger.errors();
    ASSERT_EQ(allocator.allocations, 1);
    EXPECT_GE(allocator.lastSize, static_cast<uint64_t>(engine->getDeviceMemorySizeV2()));
    EXPECT_EQ(allocator.lastAlignment, 256U);
    EXPECT_EQ(allocator.lastFlags, 0U);
    ASSERT_EQ(allocator.live.size(), 1U);
    auto const* memory = static_cast<std::byte const*>(allocator.live.begin()->first);
    EXPECT_EQ(run(*context), expected());
    // The activation |x| was written into the allocator's memory.
    bool written = false;
    for (uint64_t i = 0; i < allocator.lastSize; ++i)
    {
        written = written || memory[i] != std::byte{0xAB};
    }
    EXPECT_TRUE(written);

    context.reset();
    EXPECT_EQ(allocator.deallocations, 1);
    EXPECT_TRUE(allocator.live.empty());
}

TEST(CpuGpuAllocator, AllocatorGivingNothingFailsTheContextWithAnError)
{
    kiln::test::RecordingLogger logger;
    std::unique_ptr<IHostMemory> plan = buildPlan(logger);
    ASSERT_NE(plan, nullptr) << logger.errors();
    HostAllocator allocator;
    allocator.refuse = true;
    std::unique_ptr<IRuntime> runtime(createInferRuntime(logger));
    runtime->setGpuAllocator(&allocator);
    std::unique_ptr<ICudaEngine> engine(runtime->deserializeCudaEngine(plan->data(), plan->size()));
    ASSERT_NE(engine, nullptr) << logger.errors();
    EXPECT_EQ(engine->createExecutionContext(), nullptr);
    EXPECT_NE(logger.errors().find("IGpuAllocator gave no memory"), std::string::npos) << logger.errors();
    EXPECT_EQ(allocator.deallocations, 0);

    // A context that is given its memory (kUSER_MANAGED) asks the allocator for none.
    allocator.allocations = 0;
    std::unique_ptr<IExecutionContext> managed(
        engine->createExecutionContext(ExecutionContextAllocationStrategy::kUSER_MANAGED));
    ASSERT_NE(managed, nullptr) << logger.errors();
    EXPECT_EQ(allocator.allocations, 0);
}

TEST(CpuGpuAllocator, RuntimeWithoutAllocatorOwnsTheMemory)
{
    kiln::test::RecordingLogger logger;
    std::unique_ptr<IHostMemory> plan = buildPlan(logger);
    ASSERT_NE(plan, nullptr) << logger.errors();
    std::unique_ptr<IRuntime> runtime(createInferRuntime(logger));
    std::unique_ptr<ICudaEngine> engine(runtime->deserializeCudaEngine(plan->data(), plan->size()));
    ASSERT_NE(engine, nullptr) << logger.errors();
    std::unique_ptr<IExecutionContext> context(engine->createExecutionContext());
    ASSERT_NE(context, nullptr) << logger.errors();
    EXPECT_EQ(run(*context), expected());
}

} // namespace
