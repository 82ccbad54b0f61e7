// Views on the CUDA backend (builder/view_layers.h): reshapes, squeezes and slices of a contiguous block launch no
// kernel and own no memory. The plans are read back without a GPU; on one, the networks of view_networks.h run on
// the CUDA backend (with views) and on the CPU reference kernels (every layer as written), under changing shapes,
// profiles, input addresses and a CUDA graph, and give the values worked out from the definitions.
#include "backend_comparison.h"
#include "view_networks.h"

#include <array>
#include <utility>

namespace
{

using namespace kiln::test;
namespace views = kiln::test::views;

std::string viewedBy(kiln::plan::PlanModel const& model, std::string const& name)
{
    for (kiln::plan::TensorRecord const& tensor : model.tensors)
    {
        if (tensor.name == name)
        {
            return tensor.viewOf < 0 ? std::string() : model.tensors[static_cast<size_t>(tensor.viewOf)].name;
        }
    }
    ADD_FAILURE() << "no tensor \"" << name << "\" in the plan";
    return {};
}

TEST(CudaViews, ReshapesAndOutermostSlicesBecomeViewsInCudaPlans)
{
    for (bool fp16 : {false, true})
    {
        SCOPED_TRACE(fp16 ? "FP16" : "FP32");
        kiln::plan::PlanModel const unbind = cudaPlanOf([](INetworkDefinition& n) { views::unbindViews(n); }, fp16);
        EXPECT_EQ(viewedBy(unbind, "heads"), "t");
        EXPECT_EQ(viewedBy(unbind, "qkv"), "");
        for (char const* part : {"q", "k", "v"})
        {
            EXPECT_EQ(viewedBy(unbind, part), "qkv") << part;
        }
        kiln::plan::PlanModel const gathered
            = cudaPlanOf([](INetworkDefinition& n) { views::gatheredUnbindViews(n); }, fp16);
        for (char const* part : {"q", "k", "v"})
        {
            EXPECT_EQ(viewedBy(gathered, part), "qkv") << part;
        }
        kiln::plan::PlanModel const lifetime = cudaPlanOf(views::lifetimeViews, fp16);
        EXPECT_EQ(viewedBy(lifetime, "v"), "a");
        EXPECT_EQ(viewedBy(lifetime, "d"), "c");
    }
    // An FP32 input read by FP16 layers is converted on the way: the reshapes of it stay layers that convert, and
    // what reshapes their FP16 output views it.
    kiln::plan::PlanModel const converted = cudaPlanOf([](INetworkDefinition& n) { views::inputViews(n); }, true);
    EXPECT_EQ(viewedBy(converted, "r1"), "");
    EXPECT_EQ(viewedBy(converted, "flat"), "");
    EXPECT_EQ(viewedBy(converted, "r2"), "r1");
    EXPECT_EQ(viewedBy(converted, "r3"), "r1");
    kiln::plan::PlanModel const direct = cudaPlanOf([](INetworkDefinition& n) { views::inputViews(n); }, false);
    for (char const* view : {"r1", "r2", "r3", "flat"})
    {
        EXPECT_EQ(viewedBy(direct, view), "x") << view;
    }
    EXPECT_EQ(direct.arenaBytes, 0);
}

TEST(CudaViews, NetworksWithViewsAgreeWithTheCpuReference)
{
    SKIP_WITHOUT_GPU();
    for (bool fp16 : {false, true})
    {
        std::string const precision = fp16 ? "FP16" : "FP32";
        std::vector<float> const x24 = views::quarters(24, 1);
        expectBackendsAgree([](INetworkDefinition& n) { views::inputViews(n); }, {{"x", fromFloats({2, 3, 4}, x24)}},
            fp16, "input views " + precision);
        expectBackendsAgree([](INetworkDefinition& n) { views::inputViews(n, DataType::kHALF); },
            {{"x", fromFloats({2, 3, 4}, x24, DataType::kHALF)}}, fp16, "FP16 input views " + precision);
        std::vector<float> const x48 = views::quarters(48, 2);
        expectBackendsAgree([](INetworkDefinition& n) { views::unbindViews(n); }, {{"x", fromFloats({2, 4, 6}, x48)}},
            fp16, "unbind " + precision);
        expectBackendsAgree([](INetworkDefinition& n) { views::gatheredUnbindViews(n); },
            {{"x", fromFloats({2, 4, 6}, x48)}}, fp16, "gathered unbind " + precision);
        expectBackendsAgree(
            views::lifetimeViews, {{"x", fromFloats({4, 4}, views::quarters(16, 3))}}, fp16, "lifetime " + precision);
    }
    // The values themselves, not only agreement: the sums and products of quarters are exact.
    std::vector<float> const x = views::quarters(48, 2);
    auto const gpu = runOn(
        kiln::Backend::kCUDA, [](INetworkDefinition& n) { views::unbindViews(n); }, {{"x", fromFloats({2, 4, 6}, x)}});
    ASSERT_EQ(gpu.count("y"), 1U);
    EXPECT_EQ(gpu.at("y").floats(), views::unbindExpected(x));
    auto const gathered = runOn(kiln::Backend::kCUDA, [](INetworkDefinition& n) { views::gatheredUnbindViews(n); },
        {{"x", fromFloats({2, 4, 6}, x)}});
    ASSERT_EQ(gathered.count("y"), 1U);
    EXPECT_EQ(gathered.at("y").floats(), views::unbindExpected(x));
}

//! The plan of `maker` for `backend` (the CPU's reference kernels) with two profiles over axis `axis` of input x:
//! [bounds[0], bounds[1]] and [bounds[2], bounds[3]].
std::unique_ptr<IHostMemory> buildWithTwoProfiles(RecordingLogger& logger, kiln::Backend backend,
    NetworkMaker const& maker, int32_t axis, std::array<int64_t, 4> bounds)
{
    std::unique_ptr<IBuilder> builder(createInferBuilder(logger));
    std::unique_ptr<INetworkDefinition> network(builder->createNetworkV2(0));
    maker(*network);
    std::unique_ptr<IBuilderConfig> config(builder->createBuilderConfig());
    kiln::setBackend(*config, backend);
    kiln::setCpuKernels(*config, kiln::CpuKernels::kREFERENCE);
    Dims const declared = network->getInput(0)->getDimensions();
    for (size_t p = 0; p < 2; ++p)
    {
        IOptimizationProfile* profile = builder->createOptimizationProfile();
        Dims min = declared;
        min.d[axis] = bounds[2 * p];
        Dims max = declared;
        max.d[axis] = bounds[2 * p + 1];
        profile->setDimensions("x", OptProfileSelector::kMIN, min);
        profile->setDimensions("x", OptProfileSelector::kOPT, max);
        profile->setDimensions("x", OptProfileSelector::kMAX, max);
        config->addOptimizationProfile(profile);
    }
    std::unique_ptr<IHostMemory> plan(builder->buildSerializedNetwork(*network, *config));
    EXPECT_NE(plan, nullptr) << logger.errors();
    return plan;
}

//! Builds `maker` as buildWithTwoProfiles does, then runs it at each (profile, extent of axis `axis`) of `runs` in one
//! context, and returns every run's outputs.
std::vector<std::map<std::string, std::vector<float>>> runProfiles(kiln::Backend backend, NetworkMaker const& maker,
    int32_t axis, std::array<int64_t, 4> bounds, std::vector<std::pair<int32_t, int64_t>> const& runs)
{
    RecordingLogger logger;
    std::unique_ptr<IHostMemory> const plan = buildWithTwoProfiles(logger, backend, maker, axis, bounds);
    std::unique_ptr<IRuntime> runtime(createInferRuntime(logger));
    std::unique_ptr<ICudaEngine> engine(plan ? runtime->deserializeCudaEngine(plan->data(), plan->size()) : nullptr);
    EXPECT_NE(engine, nullptr) << logger.errors();
    if (!engine)
    {
        return {};
    }
    std::unique_ptr<IExecutionContext> context(engine->createExecutionContext());
    Dims const declared = engine->getTensorShape("x");
    std::vector<std::map<std::string, std::vector<float>>> results;
    for (auto const& [profile, extent] : runs)
    {
        EXPECT_TRUE(context->setOptimizationProfileAsync(profile, nullptr));
        Dims shape = declared;
        shape.d[axis] = extent;
        EXPECT_TRUE(context->setInputShape("x", shape));
        std::vector<float> const x = views::quarters(volumeOf(shape), extent);
        std::map<std::string, HostTensor> const inputs{{"x", fromFloats(shapeOf(shape), x)}};
        std::map<std::string, std::vector<float>>& outputs = results.emplace_back();
        // runPlan makes a context of its own; here one context sees every shape and profile in turn.
        std::map<std::string, std::unique_ptr<DeviceCopy>> device;
        bool const gpu = backend == kiln::Backend::kCUDA;
        std::vector<uint8_t> const& bytes = inputs.at("x").bytes;
        device["x"] = gpu ? std::make_unique<DeviceCopy>(bytes) : nullptr;
        EXPECT_TRUE(context->setTensorAddress("x", gpu ? device["x"]->data : const_cast<uint8_t*>(bytes.data())));
        for (int32_t i = 0; i < engine->getNbIOTensors(); ++i)
        {
            char const* name = engine->getIOTensorName(i);
            if (engine->getTensorIOMode(name) != TensorIOMode::kOUTPUT)
            {
                continue;
            }
            outputs[name].assign(volumeOf(context->getTensorShape(name)), -1000.0F);
            std::vector<uint8_t> const zeroBytes(outputs[name].size() * sizeof(float));
            device[name] = gpu ? std::make_unique<DeviceCopy>(zeroBytes) : nullptr;
            EXPECT_TRUE(context->setTensorAddress(name, gpu ? device[name]->data : outputs[name].data()));
        }
        EXPECT_TRUE(context->enqueueV3(nullptr)) << logger.errors();
        for (auto& [name, values] : outputs)
        {
            if (gpu)
            {
                std::vector<uint8_t> const read = device[name]->read(values.size() * sizeof(float));
                std::memcpy(values.data(), read.data(), read.size());
            }
        }
    }
    return results;
}

TEST(CudaViews, SliceOffsetsThatDependOnTheRunsShapeAgreeWithTheCpuReference)
{
    SKIP_WITHOUT_GPU();
    std::vector<std::pair<int32_t, int64_t>> const rows{{0, 2}, {1, 7}, {0, 3}, {1, 9}, {1, 5}, {0, 4}};
    auto const gpu = runProfiles(kiln::Backend::kCUDA, views::halvesViews, 0, {2, 4, 5, 9}, rows);
    auto const cpu = runProfiles(kiln::Backend::kCPU, views::halvesViews, 0, {2, 4, 5, 9}, rows);
    EXPECT_EQ(gpu, cpu);
    std::vector<std::pair<int32_t, int64_t>> const batches{{1, 6}, {0, 1}, {0, 3}, {1, 4}};
    auto const gpuParts = runProfiles(kiln::Backend::kCUDA, views::dynamicUnbindViews, 1, {1, 3, 4, 6}, batches);
    auto const cpuParts = runProfiles(kiln::Backend::kCPU, views::dynamicUnbindViews, 1, {1, 3, 4, 6}, batches);
    EXPECT_EQ(gpuParts, cpuParts);
    ASSERT_EQ(gpuParts.size(), batches.size());
    // b = 6: y = (t0 + t1) * t2 over the three [6, 4] parts of t = x + x.
    std::vector<float> const x = views::quarters(72, 6);
    std::vector<float> expected(24);
    for (size_t i = 0; i < 24; ++i)
    {
        expected[i] = ((x[i] + x[i]) + (x[24 + i] + x[24 + i])) * (x[48 + i] + x[48 + i]);
    }
    EXPECT_EQ(gpuParts[0].at("y"), expected);
}

TEST(CudaViews, AGraphCapturedRunWithViewsReadsTheInputItWasCapturedWith)
{
    SKIP_WITHOUT_GPU();
    RecordingLogger logger;
    std::unique_ptr<IHostMemory> const plan
        = buildPlan(logger, kiln::Backend::kCUDA, [](INetworkDefinition& n) { views::unbindViews(n); }, false, {});
    ASSERT_NE(plan, nullptr);
    std::unique_ptr<IRuntime> runtime(createInferRuntime(logger));
    std::unique_ptr<ICudaEngine> engine(runtime->deserializeCudaEngine(plan->data(), plan->size()));
    ASSERT_NE(engine, nullptr) << logger.errors();
    std::unique_ptr<IExecutionContext> context(engine->createExecutionContext());
    DeviceCopy input(std::vector<uint8_t>(48 * sizeof(float)));
    DeviceCopy output(std::vector<uint8_t>(16 * sizeof(float)));
    ASSERT_TRUE(context->setTensorAddress("x", input.data));
    ASSERT_TRUE(context->setTensorAddress("y", output.data));
    cudaStream_t stream = nullptr;
    ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
    auto const runWith = [&](std::vector<float> const& x, cudaGraphExec_t exec) {
        EXPECT_EQ(cudaMemcpy(input.data, x.data(), x.size() * sizeof(float), cudaMemcpyHostToDevice), cudaSuccess);
        EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess); // the copy is done before the non-blocking stream reads it
        EXPECT_TRUE(exec != nullptr ? cudaGraphLaunch(exec, stream) == cudaSuccess : context->enqueueV3(stream));
        EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
        std::vector<float> y(16);
        std::vector<uint8_t> const bytes = output.read(y.size() * sizeof(float));
        std::memcpy(y.data(), bytes.data(), bytes.size());
        return y;
    };
    std::vector<float> const first = views::quarters(48, 7);
    EXPECT_EQ(runWith(first, nullptr), views::unbindExpected(first)); // the first run allocates what it needs
    ASSERT_EQ(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), cudaSuccess);
    ASSERT_TRUE(context->enqueueV3(stream)) << logger.errors();
    cudaGraph_t graph = nullptr;
    ASSERT_EQ(cudaStreamEndCapture(stream, &graph), cudaSuccess);
    cudaGraphExec_t exec = nullptr;
    ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
    std::vector<float> const second = views::quarters(48, 8);
    EXPECT_EQ(runWith(second, exec), views::unbindExpected(second));
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    cudaStreamDestroy(stream);
}

} // namespace
