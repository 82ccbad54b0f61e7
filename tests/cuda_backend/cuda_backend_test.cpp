// The CUDA backend runs the same networks as the CPU reference and agrees with it: every
// activation, every element-wise operation with broadcasting, constants and casts, a seed
// plugin's own CUDA kernel, FP16 conversions, and two contexts on two streams at once.
// Tolerances are the issue's: FP32 atol 1e-5 + rtol 1e-4, FP16 atol 2.5e-3 + rtol 1e-3.
#include "backend_comparison.h"

#include <MyCustomPlugin.h>

namespace
{

using namespace nvinfer1;
using namespace kiln::test;

TEST(CudaBackend, EveryActivationAgreesWithTheCpu)
{
    SKIP_WITHOUT_GPU();
    std::vector<float> values = spread(257, -6.0F, 6.0F);
    values.push_back(NAN);
    HostTensor const x = fromFloats({static_cast<int64_t>(values.size())}, values);
    for (int32_t t = 0; t < EnumMax<ActivationType>(); ++t)
    {
        for (bool fp16 : {false, true})
        {
            NetworkMaker const maker = [t](INetworkDefinition& network) {
                ITensor* input = network.addInput("x", DataType::kFLOAT, Dims{1, {258}});
                IActivationLayer* layer = network.addActivation(*input, static_cast<ActivationType>(t));
                layer->setAlpha(0.3F);
                layer->setBeta(1.7F);
                layer->getOutput(0)->setName("y");
                network.markOutput(*layer->getOutput(0));
            };
            expectBackendsAgree(maker, {{"x", x}}, fp16, "activation " + std::to_string(t) + (fp16 ? " fp16" : ""));
        }
    }
}

TEST(CudaBackend, EveryElementWiseOperationBroadcastsAsOnTheCpu)
{
    SKIP_WITHOUT_GPU();
    HostTensor const a = fromFloats({2, 1, 4}, spread(8, -3.5F, 4.0F));
    HostTensor const b = fromFloats({1, 3, 4}, spread(12, 0.25F, 2.5F));
    HostTensor const ia = fromElements<int32_t>({2, 1, 4}, {-7, -3, 0, 5, 9, 12, -1, 2});
    HostTensor const ib = fromElements<int32_t>({1, 3, 4}, {2, -2, 3, 0, 1, 4, -3, 2, 5, 1, 2, -4});
    using Op = ElementWiseOperation;
    for (Op op : {Op::kSUM, Op::kPROD, Op::kMAX, Op::kMIN, Op::kSUB, Op::kDIV, Op::kPOW, Op::kFLOOR_DIV, Op::kEQUAL,
             Op::kGREATER, Op::kLESS})
    {
        for (DataType type : {DataType::kFLOAT, DataType::kINT32})
        {
            NetworkMaker const maker = [op, type](INetworkDefinition& network) {
                ITensor* first = network.addInput("a", type, Dims{3, {2, 1, 4}});
                ITensor* second = network.addInput("b", type, Dims{3, {1, 3, 4}});
                IElementWiseLayer* layer = network.addElementWise(*first, *second, op);
                layer->getOutput(0)->setName("y");
                network.markOutput(*layer->getOutput(0));
            };
            bool const ints = type == DataType::kINT32;
            expectBackendsAgree(maker, {{"a", ints ? ia : a}, {"b", ints ? ib : b}}, false,
                "element-wise " + std::to_string(static_cast<int32_t>(op)) + (ints ? " INT32" : " FLOAT"));
        }
    }
}

TEST(CudaBackend, ConstantsCastsAndFp16Conversions)
{
    SKIP_WITHOUT_GPU();
    static std::vector<int32_t> const offsets{1, -2, 3, -4};
    static std::vector<float> const zeros(4, 0.0F);
    // The offsets come in as an input, so that the cast runs on the GPU (a cast of a constant is folded when the
    // plan is built); the constant zeros are read where their weights were uploaded.
    NetworkMaker const maker = [](INetworkDefinition& network) {
        ITensor* x = network.addInput("x", DataType::kFLOAT, Dims{1, {4}});
        ITensor* k = network.addInput("k", DataType::kINT32, Dims{1, {4}});
        ICastLayer* cast = network.addCast(*k, DataType::kFLOAT);
        IElementWiseLayer* sum = network.addElementWise(*x, *cast->getOutput(0), ElementWiseOperation::kSUM);
        IConstantLayer* constant = network.addConstant(Dims{1, {4}}, Weights{DataType::kFLOAT, zeros.data(), 4});
        IElementWiseLayer* shifted
            = network.addElementWise(*sum->getOutput(0), *constant->getOutput(0), ElementWiseOperation::kSUM);
        IIdentityLayer* copy = network.addIdentity(*shifted->getOutput(0));
        copy->getOutput(0)->setName("y");
        network.markOutput(*copy->getOutput(0));
    };
    HostTensor const x = fromFloats({4}, {0.5F, 1.0001F, -2.25F, 100.0F});
    HostTensor const k = fromElements({4}, offsets, DataType::kINT32);
    for (bool fp16 : {false, true})
    {
        auto const gpu = runOn(kiln::Backend::kCUDA, maker, {{"x", x}, {"k", k}}, fp16);
        // Hand-computed: x + offsets; in FP16 1.0001 rounds to 1 first, so -2 + 1 = -1 exactly.
        std::vector<float> const expected = fp16 ? std::vector<float>{1.5F, -1.0F, 0.75F, 96.0F}
                                                 : std::vector<float>{1.5F, 1.0001F - 2.0F, 0.75F, 96.0F};
        ASSERT_EQ(gpu.count("y"), 1U);
        expectClose(gpu.at("y").floats(), expected, 1e-6, fp16 ? "fp16" : "fp32");
    }
}

TEST(CudaBackend, ASeedPluginRunsItsOwnKernel)
{
    SKIP_WITHOUT_GPU();
    NetworkMaker const maker = [](INetworkDefinition& network) {
        ITensor* x = network.addInput("x", DataType::kFLOAT, Dims{4, {2, 3, 4, 5}});
        kiln_seed::MyCustomPlugin plugin(
            3, std::vector<float>{0.5F, -1.0F, 2.0F}, std::vector<float>{0.1F, 0.2F, -0.3F});
        IPluginV2Layer* layer = network.addPluginV2(&x, 1, plugin);
        IActivationLayer* relu = network.addActivation(*layer->getOutput(0), ActivationType::kRELU);
        relu->getOutput(0)->setName("y");
        network.markOutput(*relu->getOutput(0));
    };
    HostTensor const x = fromFloats({2, 3, 4, 5}, spread(120, -5.0F, 7.0F));
    expectBackendsAgree(maker, {{"x", x}}, false, "MyCustomPlugin + relu");
}

TEST(CudaBackend, TwoContextsOnTwoStreamsAgreeWithOneAtATime)
{
    SKIP_WITHOUT_GPU();
    NetworkMaker const maker = [](INetworkDefinition& network) {
        ITensor* x = network.addInput("x", DataType::kFLOAT, Dims{1, {1 << 16}});
        IActivationLayer* layer = network.addActivation(*x, ActivationType::kGELU_ERF);
        layer->getOutput(0)->setName("y");
        network.markOutput(*layer->getOutput(0));
    };
    HostTensor const x = fromFloats({1 << 16}, spread(1 << 16, -4.0F, 4.0F));
    auto const reference = runOn(kiln::Backend::kCUDA, maker, {{"x", x}});
    cudaStream_t first = nullptr;
    cudaStream_t second = nullptr;
    ASSERT_EQ(cudaStreamCreateWithFlags(&first, cudaStreamNonBlocking), cudaSuccess);
    ASSERT_EQ(cudaStreamCreateWithFlags(&second, cudaStreamNonBlocking), cudaSuccess);
    auto const onFirst = runOn(kiln::Backend::kCUDA, maker, {{"x", x}}, false, first);
    auto const onSecond = runOn(kiln::Backend::kCUDA, maker, {{"x", x}}, false, second);
    EXPECT_EQ(onFirst.at("y").bytes, reference.at("y").bytes);
    EXPECT_EQ(onSecond.at("y").bytes, reference.at("y").bytes);
    cudaStreamDestroy(first);
    cudaStreamDestroy(second);
}

//! x -> Shape -> Gather(0) -> Concat(6) -> the reshape of x: a Flatten as ONNX exports express it; where `castDims`,
//! the dimensions are also cast to FLOAT and added to the output's first row, which reads them as data. x is
//! [batch, 2, 3]; a batch of -1 makes it dynamic, and then the dimensions are not constants the builder folds.
NetworkMaker flattenThroughShapeTensors(bool castDims, int64_t batchExtent = 2)
{
    static std::vector<int32_t> const first{0};
    static std::vector<int32_t> const six{6};
    return [castDims, batchExtent](INetworkDefinition& network) {
        ITensor* x = network.addInput("x", DataType::kFLOAT, Dims{3, {batchExtent, 2, 3}});
        IShapeLayer* shape = network.addShape(*x);
        shape->setOutputType(0, DataType::kINT32);
        IConstantLayer* index = network.addConstant(Dims{1, {1}}, Weights{DataType::kINT32, first.data(), 1});
        IGatherLayer* batch = network.addGather(*shape->getOutput(0), *index->getOutput(0), 0);
        IConstantLayer* rest = network.addConstant(Dims{1, {1}}, Weights{DataType::kINT32, six.data(), 1});
        ITensor* parts[] = {batch->getOutput(0), rest->getOutput(0)};
        IConcatenationLayer* dims = network.addConcatenation(parts, 2);
        dims->getOutput(0)->setName("dims");
        IShuffleLayer* flatten = network.addShuffle(*x);
        flatten->setInput(1, *dims->getOutput(0));
        IActivationLayer* relu = network.addActivation(*flatten->getOutput(0), ActivationType::kRELU);
        ITensor* y = relu->getOutput(0);
        if (castDims)
        {
            ICastLayer* cast = network.addCast(*dims->getOutput(0), DataType::kFLOAT);
            IShuffleLayer* row = network.addShuffle(*cast->getOutput(0));
            row->setReshapeDimensions(Dims{2, {1, 2}});
            ISliceLayer* firstTwo = network.addSlice(*y, Dims{2, {0, 0}}, Dims{2, {2, 2}}, Dims{2, {1, 1}});
            y = network.addElementWise(*firstTwo->getOutput(0), *row->getOutput(0), ElementWiseOperation::kSUM)
                    ->getOutput(0);
        }
        y->setName("y");
        network.markOutput(*y);
    };
}

TEST(CudaBackend, ShapeComputationsAreEvaluatedOnTheHost)
{
    SKIP_WITHOUT_GPU();
    // The CUDA backend has no Shape kernel; the shape tensors' values come from the input shapes instead.
    HostTensor const x = fromFloats({2, 2, 3}, spread(12, -3.0F, 3.0F));
    expectBackendsAgree(flattenThroughShapeTensors(false), {{"x", x}}, false, "flatten through shape tensors");
    expectBackendsAgree(flattenThroughShapeTensors(true), {{"x", x}}, false, "dimensions also read as data");
}

TEST(CudaBackend, ShapeTensorsThatOnlyAReshapeReadsGetNoMemory)
{
    // Building and reading a CUDA plan needs no GPU. A reshape takes its dimensions from the plan: the shape tensor
    // is never written to the device. A cast reads it as data: then it is, unless its values are constants (a static
    // x), which fold. x's batch is dynamic here (2 to 4), so the dimensions are computed at run time.
    auto const withDynamicBatch = [](IBuilder& builder, IBuilderConfig& config) {
        IOptimizationProfile* profile = builder.createOptimizationProfile();
        profile->setDimensions("x", OptProfileSelector::kMIN, Dims{3, {2, 2, 3}});
        profile->setDimensions("x", OptProfileSelector::kOPT, Dims{3, {4, 2, 3}});
        profile->setDimensions("x", OptProfileSelector::kMAX, Dims{3, {4, 2, 3}});
        config.addOptimizationProfile(profile);
    };
    auto const arenaOffsetOfDims = [&](NetworkMaker const& maker) {
        RecordingLogger logger;
        std::unique_ptr<IBuilder> builder(createInferBuilder(logger));
        std::unique_ptr<INetworkDefinition> network(builder->createNetworkV2(0));
        maker(*network);
        std::unique_ptr<IBuilderConfig> config(builder->createBuilderConfig());
        kiln::setBackend(*config, kiln::Backend::kCUDA);
        withDynamicBatch(*builder, *config);
        std::unique_ptr<IHostMemory> const plan(builder->buildSerializedNetwork(*network, *config));
        kiln::plan::PlanModel model;
        std::string error;
        EXPECT_NE(plan, nullptr) << logger.errors();
        EXPECT_TRUE(plan != nullptr && kiln::plan::readPlan(plan->data(), plan->size(), model, error)) << error;
        for (kiln::plan::TensorRecord const& tensor : model.tensors)
        {
            if (tensor.name == "dims")
            {
                return tensor.arenaOffset;
            }
        }
        ADD_FAILURE() << "no tensor dims";
        return int64_t{-2};
    };
    EXPECT_EQ(arenaOffsetOfDims(flattenThroughShapeTensors(false, -1)), -1);
    EXPECT_GE(arenaOffsetOfDims(flattenThroughShapeTensors(true, -1)), 0);
}

TEST(CudaBackend, ACapturedGraphReplaysAsEnqueueRuns)
{
    SKIP_WITHOUT_GPU();
    // A convolution (cuDNN), a seed plugin's own kernel, and a flatten whose shape tensors come from the host.
    kiln::test::RecordingLogger logger;
    std::unique_ptr<IBuilder> builder(createInferBuilder(logger));
    std::unique_ptr<INetworkDefinition> network(builder->createNetworkV2(0));
    ITensor* x = network->addInput("x", DataType::kFLOAT, Dims{4, {1, 3, 8, 8}});
    std::vector<float> const kernel = spread(3 * 3 * 9, -0.4F, 0.5F);
    IConvolutionLayer* conv = network->addConvolutionNd(*x, 3, Dims{2, {3, 3}},
        Weights{DataType::kFLOAT, kernel.data(), static_cast<int64_t>(kernel.size())}, Weights{});
    conv->setPaddingNd(Dims{2, {1, 1}});
    ITensor* convOut = conv->getOutput(0);
    kiln_seed::MyCustomPlugin plugin(3, std::vector<float>{0.5F, -1.0F, 2.0F}, std::vector<float>{0.1F, 0.2F, -0.3F});
    IPluginV2Layer* custom = network->addPluginV2(&convOut, 1, plugin);
    IShapeLayer* shape = network->addShape(*custom->getOutput(0));
    shape->setOutputType(0, DataType::kINT32);
    static std::vector<int32_t> const first{0};
    static std::vector<int32_t> const rest{192};
    IConstantLayer* index = network->addConstant(Dims{1, {1}}, Weights{DataType::kINT32, first.data(), 1});
    IGatherLayer* batch = network->addGather(*shape->getOutput(0), *index->getOutput(0), 0);
    IConstantLayer* features = network->addConstant(Dims{1, {1}}, Weights{DataType::kINT32, rest.data(), 1});
    ITensor* parts[] = {batch->getOutput(0), features->getOutput(0)};
    IShuffleLayer* flatten = network->addShuffle(*custom->getOutput(0));
    flatten->setInput(1, *network->addConcatenation(parts, 2)->getOutput(0));
    flatten->getOutput(0)->setName("y");
    network->markOutput(*flatten->getOutput(0));
    std::unique_ptr<IBuilderConfig> config(builder->createBuilderConfig());
    kiln::setBackend(*config, kiln::Backend::kCUDA);
    std::unique_ptr<IHostMemory> plan(builder->buildSerializedNetwork(*network, *config));
    ASSERT_NE(plan, nullptr) << logger.errors();
    std::unique_ptr<IRuntime> runtime(createInferRuntime(logger));
    std::unique_ptr<ICudaEngine> engine(runtime->deserializeCudaEngine(plan->data(), plan->size()));
    std::unique_ptr<IExecutionContext> context(engine->createExecutionContext());

    size_t const inBytes = 3 * 8 * 8 * sizeof(float);
    size_t const outBytes = 192 * sizeof(float);
    void* input = nullptr;
    void* output = nullptr;
    ASSERT_EQ(cudaMalloc(&input, inBytes), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&output, outBytes), cudaSuccess);
    context->setTensorAddress("x", input);
    context->setTensorAddress("y", output);
    cudaStream_t stream = nullptr;
    ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
    auto runWith = [&](std::vector<float> const& values, bool replay, cudaGraphExec_t exec) {
        EXPECT_EQ(cudaMemcpy(input, values.data(), inBytes, cudaMemcpyHostToDevice), cudaSuccess);
        // A copy from pageable memory may return before it lands, and the non-blocking stream does not wait for it.
        EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
        if (replay)
        {
            EXPECT_EQ(cudaGraphLaunch(exec, stream), cudaSuccess);
        }
        else
        {
            EXPECT_TRUE(context->enqueueV3(stream)) << logger.errors();
        }
        EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
        std::vector<float> result(192);
        EXPECT_EQ(cudaMemcpy(result.data(), output, outBytes, cudaMemcpyDeviceToHost), cudaSuccess);
        return result;
    };
    std::vector<float> const one = spread(192, -2.0F, 2.0F);
    std::vector<float> const two = spread(192, 3.0F, -1.0F);
    runWith(one, false, nullptr); // the first run makes the allocations a graph must not contain

    ASSERT_EQ(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), cudaSuccess);
    ASSERT_TRUE(context->enqueueV3(stream)) << logger.errors();
    cudaGraph_t graph = nullptr;
    ASSERT_EQ(cudaStreamEndCapture(stream, &graph), cudaSuccess);
    cudaGraphExec_t exec = nullptr;
    ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);

    // The graph reads the input buffer when it runs: new values give what enqueueV3 gives for them.
    EXPECT_EQ(runWith(two, true, exec), runWith(two, false, nullptr));
    EXPECT_EQ(runWith(one, true, exec), runWith(one, false, nullptr));
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    cudaStreamDestroy(stream);
    cudaFree(input);
    cudaFree(output);
}

class LayerNames final : public IProfiler
{
public:
    void reportLayerTime(char const* layerName, float ms) noexcept override
    {
        names.emplace_back(layerName);
        times.push_back(ms);
    }
    std::vector<std::string> names;
    std::vector<float> times;
};

TEST(CudaBackend, TheProfilerGetsGpuTimesPerLayer)
{
    SKIP_WITHOUT_GPU();
    kiln::test::RecordingLogger logger;
    std::unique_ptr<IBuilder> builder(createInferBuilder(logger));
    std::unique_ptr<INetworkDefinition> network(builder->createNetworkV2(0));
    ITensor* x = network->addInput("x", DataType::kFLOAT, Dims{1, {1 << 20}});
    IActivationLayer* first = network->addActivation(*x, ActivationType::kGELU_TANH);
    first->setName("gelu");
    // A constant, bound to its weights, never runs: the profiler hears of the layers that did.
    static float const two = 2.0F;
    IConstantLayer* constant = network->addConstant(Dims{1, {1}}, Weights{DataType::kFLOAT, &two, 1});
    constant->setName("two");
    IElementWiseLayer* doubled
        = network->addElementWise(*first->getOutput(0), *constant->getOutput(0), ElementWiseOperation::kPROD);
    doubled->setName("double");
    IElementWiseLayer* second
        = network->addElementWise(*doubled->getOutput(0), *first->getOutput(0), ElementWiseOperation::kPROD);
    second->setName("square");
    second->getOutput(0)->setName("y");
    network->markOutput(*second->getOutput(0));
    std::unique_ptr<IBuilderConfig> config(builder->createBuilderConfig());
    kiln::setBackend(*config, kiln::Backend::kCUDA);
    std::unique_ptr<IHostMemory> plan(builder->buildSerializedNetwork(*network, *config));
    ASSERT_NE(plan, nullptr) << logger.errors();
    std::unique_ptr<IRuntime> runtime(createInferRuntime(logger));
    std::unique_ptr<ICudaEngine> engine(runtime->deserializeCudaEngine(plan->data(), plan->size()));
    std::unique_ptr<IExecutionContext> context(engine->createExecutionContext());
    void* input = nullptr;
    void* output = nullptr;
    ASSERT_EQ(cudaMalloc(&input, sizeof(float) << 20), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&output, sizeof(float) << 20), cudaSuccess);
    ASSERT_EQ(cudaMemset(input, 0, sizeof(float) << 20), cudaSuccess);
    context->setTensorAddress("x", input);
    context->setTensorAddress("y", output);
    LayerNames profiler;
    context->setProfiler(&profiler);
    ASSERT_TRUE(context->enqueueV3(nullptr)) << logger.errors();
    // The three run as one fused point-wise layer, which the profiler names after them, as TensorRT names fusions.
    EXPECT_EQ(profiler.names, (std::vector<std::string>{"gelu + double + square"}));
    for (float ms : profiler.times)
    {
        // Measured on the GPU: a kernel over a million elements spans more than the events' resolution.
        EXPECT_GT(ms, 0.0F);
    }
    cudaFree(input);
    cudaFree(output);
}

TEST(CudaBackend, TheDefaultBackendIsTheGpuWherePresent)
{
    // As in TensorRT, a config that names no backend builds for the GPU; without one, for the CPU.
    kiln::Backend const expected = gpuPresent() ? kiln::Backend::kCUDA : kiln::Backend::kCPU;
    EXPECT_EQ(kiln::defaultBackend(), expected);
    EXPECT_EQ(kiln::backendAvailable(kiln::Backend::kCUDA), gpuPresent());
}

} // namespace
