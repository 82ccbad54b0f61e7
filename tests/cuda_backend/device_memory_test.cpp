// Device memory on the CUDA backend: the runtime's IGpuAllocator serves every allocation of
// a context (its activations and plugin workspace, uploaded constants, conversion scratch,
// what plugins allocate through the allocator they are lent) and gets each back; a
// kUSER_MANAGED context runs in the application's memory; V2 plugins get cuDNN and cuBLAS
// handles bound to the enqueue stream; allocation failures are clear errors that leave the
// engine usable.
#include "backend_comparison.h"
#include "resource_probe_plugin.h"

#include <cublas_v2.h>
#include <cudnn.h>

#include <algorithm>
#include <functional>
#include <mutex>
#include <set>

namespace
{

using namespace nvinfer1;
using namespace kiln::test;

//! Counts what it allocates and frees (with cudaMalloc and cudaFree), and fails on demand.
class CountingAllocator final : public IGpuAllocator
{
public:
    void* allocate(uint64_t const size, uint64_t const, AllocatorFlags const) noexcept override
    {
        return take(size, false);
    }
    void* allocateAsync(uint64_t const size, uint64_t const, AllocatorFlags const, cudaStream_t) noexcept override
    {
        return take(size, true);
    }
    bool deallocate(void* const memory) noexcept override
    {
        return give(memory);
    }
    bool deallocateAsync(void* const memory, cudaStream_t) noexcept override
    {
        return give(memory);
    }

    //! Allocations for which `fail(size, async)` is true return nullptr; an empty function fails none.
    void failWhen(std::function<bool(uint64_t, bool)> fail)
    {
        std::lock_guard<std::mutex> lock(mMutex);
        mFail = std::move(fail);
    }
    std::multiset<uint64_t> syncSizes() const
    {
        std::lock_guard<std::mutex> lock(mMutex);
        return mSyncSizes;
    }
    std::multiset<uint64_t> asyncSizes() const
    {
        std::lock_guard<std::mutex> lock(mMutex);
        return mAsyncSizes;
    }
    size_t live() const
    {
        std::lock_guard<std::mutex> lock(mMutex);
        return mLive.size();
    }
    size_t frees() const
    {
        std::lock_guard<std::mutex> lock(mMutex);
        return mFrees;
    }
    size_t unknownFrees() const
    {
        std::lock_guard<std::mutex> lock(mMutex);
        return mUnknownFrees;
    }
    void forget()
    {
        std::lock_guard<std::mutex> lock(mMutex);
        mSyncSizes.clear();
        mAsyncSizes.clear();
        mFrees = 0;
    }

private:
    void* take(uint64_t size, bool async)
    {
        std::lock_guard<std::mutex> lock(mMutex);
        if (size == 0 || (mFail && mFail(size, async)))
        {
            return nullptr;
        }
        void* memory = nullptr;
        if (cudaMalloc(&memory, size) != cudaSuccess)
        {
            return nullptr;
        }
        (async ? mAsyncSizes : mSyncSizes).insert(size);
        mLive.insert(memory);
        return memory;
    }
    bool give(void* memory)
    {
        std::lock_guard<std::mutex> lock(mMutex);
        if (mLive.erase(memory) == 0)
        {
            ++mUnknownFrees;
            return false;
        }
        ++mFrees;
        return cudaFree(memory) == cudaSuccess; // synchronous: safe whichever stream last used it
    }

    mutable std::mutex mMutex;
    std::function<bool(uint64_t, bool)> mFail;
    std::multiset<uint64_t> mSyncSizes;
    std::multiset<uint64_t> mAsyncSizes;
    std::set<void*> mLive;
    size_t mFrees{0};
    size_t mUnknownFrees{0};
};

//! What the probe plugins were lent, in attach order; each test clears it first.
struct ProbeLog
{
    static inline std::vector<cudnnContext*> cudnn;
    static inline std::vector<cublasContext*> cublas;
    static inline std::vector<IGpuAllocator*> allocators;
    static inline std::vector<bool> handlesOnTheEnqueueStream; //!< one per enqueue
    //! Makes enqueue wait for its stream, which a stream being captured into a CUDA graph does not allow.
    static inline bool synchronizeInEnqueue = false;
    static void clear()
    {
        synchronizeInEnqueue = false;
        cudnn.clear();
        cublas.clear();
        allocators.clear();
        handlesOnTheEnqueueStream.clear();
    }
};

//! An IPluginV2DynamicExt that copies its input and reads and writes FP16 only (so Kiln converts the FP32 tensors
//! around it, in scratch), asks for a workspace, and allocates 512 bytes through the allocator it is lent.
class AllocatorProbePlugin final : public IPluginV2DynamicExt
{
public:
    static constexpr size_t kWorkspaceBytes = 4096;
    static constexpr uint64_t kOwnBytes = 512;

    IPluginV2DynamicExt* clone() const noexcept override
    {
        return new AllocatorProbePlugin();
    }
    DimsExprs getOutputDimensions(int32_t, DimsExprs const* inputs, int32_t, IExprBuilder&) noexcept override
    {
        return inputs[0];
    }
    bool supportsFormatCombination(int32_t pos, PluginTensorDesc const* inOut, int32_t, int32_t) noexcept override
    {
        return inOut[pos].type == DataType::kHALF && inOut[pos].format == TensorFormat::kLINEAR;
    }
    void configurePlugin(
        DynamicPluginTensorDesc const*, int32_t, DynamicPluginTensorDesc const*, int32_t) noexcept override
    {
    }
    size_t getWorkspaceSize(PluginTensorDesc const*, int32_t, PluginTensorDesc const*, int32_t) const noexcept override
    {
        return kWorkspaceBytes;
    }
    int32_t enqueue(PluginTensorDesc const* inputDesc, PluginTensorDesc const*, void const* const* inputs,
        void* const* outputs, void* workspace, cudaStream_t stream) noexcept override
    {
        cudaStream_t cublasStream = nullptr;
        cudaStream_t cudnnStream = nullptr;
        bool const bound = mCublas != nullptr && mCudnn != nullptr
            && cublasGetStream(mCublas, &cublasStream) == CUBLAS_STATUS_SUCCESS
            && cudnnGetStream(mCudnn, &cudnnStream) == CUDNN_STATUS_SUCCESS && cublasStream == stream
            && cudnnStream == stream;
        ProbeLog::handlesOnTheEnqueueStream.push_back(bound);
        if (ProbeLog::synchronizeInEnqueue)
        {
            cudaStreamSynchronize(stream); // fails, and invalidates the capture, while the stream is captured
        }
        int64_t elements = 1;
        for (int32_t i = 0; i < inputDesc[0].dims.nbDims; ++i)
        {
            elements *= inputDesc[0].dims.d[i];
        }
        // The workspace must be device memory of the size asked for.
        bool const ok = cudaMemsetAsync(workspace, 0, kWorkspaceBytes, stream) == cudaSuccess
            && cudaMemcpyAsync(
                   outputs[0], inputs[0], static_cast<size_t>(elements) * 2, cudaMemcpyDeviceToDevice, stream)
                == cudaSuccess;
        return ok ? 0 : 1;
    }
    DataType getOutputDataType(int32_t, DataType const* inputTypes, int32_t) const noexcept override
    {
        return inputTypes[0];
    }
    void attachToContext(cudnnContext* cudnn, cublasContext* cublas, IGpuAllocator* allocator) noexcept override
    {
        ProbeLog::cudnn.push_back(cudnn);
        ProbeLog::cublas.push_back(cublas);
        ProbeLog::allocators.push_back(allocator);
        mCudnn = cudnn;
        mCublas = cublas;
        mAllocator = allocator;
        mOwn = allocator != nullptr ? allocator->allocate(kOwnBytes, 256, 0) : nullptr;
    }
    void detachFromContext() noexcept override
    {
        if (mOwn != nullptr)
        {
            mAllocator->deallocate(mOwn);
            mOwn = nullptr;
        }
    }
    char const* getPluginType() const noexcept override
    {
        return "KilnAllocatorProbe";
    }
    char const* getPluginVersion() const noexcept override
    {
        return "1";
    }
    int32_t getNbOutputs() const noexcept override
    {
        return 1;
    }
    int32_t initialize() noexcept override
    {
        return 0;
    }
    void terminate() noexcept override { }
    size_t getSerializationSize() const noexcept override
    {
        return 0;
    }
    void serialize(void*) const noexcept override { }
    void destroy() noexcept override
    {
        delete this;
    }
    void setPluginNamespace(char const*) noexcept override { }
    char const* getPluginNamespace() const noexcept override
    {
        return "";
    }

private:
    cudnnContext* mCudnn{nullptr};
    cublasContext* mCublas{nullptr};
    IGpuAllocator* mAllocator{nullptr};
    void* mOwn{nullptr};
};

class AllocatorProbeCreator final : public IPluginCreator
{
public:
    char const* getPluginName() const noexcept override
    {
        return "KilnAllocatorProbe";
    }
    char const* getPluginVersion() const noexcept override
    {
        return "1";
    }
    PluginFieldCollection const* getFieldNames() noexcept override
    {
        return &mFields;
    }
    IPluginV2* createPlugin(char const*, PluginFieldCollection const*) noexcept override
    {
        return new AllocatorProbePlugin();
    }
    IPluginV2* deserializePlugin(char const*, void const*, size_t) noexcept override
    {
        return new AllocatorProbePlugin();
    }
    void setPluginNamespace(char const*) noexcept override { }
    char const* getPluginNamespace() const noexcept override
    {
        return "";
    }

    static void registerOnce()
    {
        static AllocatorProbeCreator creator;
        static bool const registered = getPluginRegistry()->registerCreator(creator, "");
        (void) registered;
    }

private:
    PluginFieldCollection mFields{0, nullptr};
};

constexpr int64_t kCount = 64;

//! x + c, both exact in FP16, so the FP16 round trip through the probe loses nothing.
std::vector<float> inputValues()
{
    std::vector<float> x;
    for (int64_t i = 0; i < kCount; ++i)
    {
        x.push_back(0.5F * static_cast<float>(i) - 7.0F);
    }
    return x;
}
std::vector<float> const& constantValues()
{
    static std::vector<float> const c = [] {
        std::vector<float> values;
        for (int64_t i = 0; i < kCount; ++i)
        {
            values.push_back(static_cast<float>(i % 5) - 2.0F);
        }
        return values;
    }();
    return c;
}
std::vector<float> expectedOutput()
{
    std::vector<float> y = inputValues();
    for (size_t i = 0; i < y.size(); ++i)
    {
        y[i] += constantValues()[i];
    }
    return y;
}

//! y = probe(x + c) for the CUDA backend, loaded by a runtime that allocates through `allocator` (nullptr: default).
struct ProbeEngine
{
    RecordingLogger logger;
    std::unique_ptr<IRuntime> runtime;
    std::unique_ptr<ICudaEngine> engine;

    explicit ProbeEngine(IGpuAllocator* allocator)
    {
        AllocatorProbeCreator::registerOnce();
        std::unique_ptr<IBuilder> builder(createInferBuilder(logger));
        std::unique_ptr<INetworkDefinition> network(builder->createNetworkV2(0));
        ITensor* x = network->addInput("x", DataType::kFLOAT, Dims{1, {kCount}});
        IConstantLayer* c
            = network->addConstant(Dims{1, {kCount}}, Weights{DataType::kFLOAT, constantValues().data(), kCount});
        IElementWiseLayer* sum = network->addElementWise(*x, *c->getOutput(0), ElementWiseOperation::kSUM);
        AllocatorProbePlugin probe;
        ITensor* probeInput = sum->getOutput(0);
        IPluginV2Layer* copy = network->addPluginV2(&probeInput, 1, probe);
        copy->getOutput(0)->setName("y");
        network->markOutput(*copy->getOutput(0));
        std::unique_ptr<IBuilderConfig> config(builder->createBuilderConfig());
        kiln::setBackend(*config, kiln::Backend::kCUDA);
        std::unique_ptr<IHostMemory> plan(builder->buildSerializedNetwork(*network, *config));
        EXPECT_NE(plan, nullptr) << logger.errors();
        if (plan == nullptr)
        {
            return;
        }
        runtime.reset(createInferRuntime(logger));
        runtime->setGpuAllocator(allocator);
        engine.reset(runtime->deserializeCudaEngine(plan->data(), plan->size()));
        EXPECT_NE(engine, nullptr) << logger.errors();
    }
};

//! Device copies of the input and the output, bound to a context.
struct DeviceIO
{
    void* x{nullptr};
    void* y{nullptr};
    DeviceIO()
    {
        std::vector<float> const values = inputValues();
        EXPECT_EQ(cudaMalloc(&x, kCount * sizeof(float)), cudaSuccess);
        EXPECT_EQ(cudaMalloc(&y, kCount * sizeof(float)), cudaSuccess);
        EXPECT_EQ(cudaMemcpy(x, values.data(), kCount * sizeof(float), cudaMemcpyHostToDevice), cudaSuccess);
    }
    ~DeviceIO()
    {
        cudaFree(x);
        cudaFree(y);
    }
    //! Runs `context` on `stream` and returns y; false (y empty) if enqueueV3 fails.
    bool run(IExecutionContext& context, cudaStream_t stream, std::vector<float>& out)
    {
        out.clear();
        EXPECT_EQ(cudaMemset(y, 0xFF, kCount * sizeof(float)), cudaSuccess);
        if (!context.setInputTensorAddress("x", x) || !context.setTensorAddress("y", y) || !context.enqueueV3(stream))
        {
            return false;
        }
        EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
        out.resize(kCount);
        EXPECT_EQ(cudaMemcpy(out.data(), y, kCount * sizeof(float), cudaMemcpyDeviceToHost), cudaSuccess);
        return true;
    }
};

TEST(CudaDeviceMemory, TheRuntimesAllocatorServesEveryAllocationOfAContextAndGetsItBack)
{
    SKIP_WITHOUT_GPU();
    CountingAllocator allocator;
    ProbeEngine probe(&allocator);
    ASSERT_NE(probe.engine, nullptr);
    int64_t const contextBytes = probe.engine->getDeviceMemorySizeV2();
    // The sum's output (64 floats) and the probe's workspace.
    EXPECT_GE(contextBytes, static_cast<int64_t>(kCount * sizeof(float) + AllocatorProbePlugin::kWorkspaceBytes));
    {
        DeviceIO io;
        cudaStream_t stream = nullptr;
        ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
        std::unique_ptr<IExecutionContext> context(probe.engine->createExecutionContext());
        ASSERT_NE(context, nullptr) << probe.logger.errors();
        std::multiset<uint64_t> const made = allocator.syncSizes();
        EXPECT_EQ(made.count(static_cast<uint64_t>(contextBytes)), 1U) << "the context's memory";
        EXPECT_EQ(made.count(kCount * sizeof(float)), 1U) << "the constant's weights";
        EXPECT_EQ(made.count(AllocatorProbePlugin::kOwnBytes), 1U) << "what the plugin allocated at attachToContext";
        std::vector<float> y;
        ASSERT_TRUE(io.run(*context, stream, y)) << probe.logger.errors();
        EXPECT_EQ(y, expectedOutput());
        // The FP16 copies of the probe's input and output: scratch grown on the stream.
        EXPECT_EQ(allocator.asyncSizes().count(kCount * 2), 2U);
        size_t const scratch = allocator.asyncSizes().size();
        ASSERT_TRUE(io.run(*context, stream, y)) << probe.logger.errors();
        EXPECT_EQ(allocator.asyncSizes().size(), scratch) << "scratch is kept between runs";
        context.reset();
        cudaStreamDestroy(stream);
    }
    EXPECT_EQ(allocator.live(), 0U) << "every allocation was given back";
    EXPECT_EQ(allocator.frees(), allocator.syncSizes().size() + allocator.asyncSizes().size());
    EXPECT_EQ(allocator.unknownFrees(), 0U);
}

TEST(CudaDeviceMemory, UserManagedContextRunsInTheApplicationsMemory)
{
    SKIP_WITHOUT_GPU();
    CountingAllocator allocator;
    ProbeEngine probe(&allocator);
    ASSERT_NE(probe.engine, nullptr);
    int64_t const size = probe.engine->getDeviceMemorySizeV2();
    DeviceIO io;
    std::vector<float> reference;
    {
        std::unique_ptr<IExecutionContext> owning(probe.engine->createExecutionContext());
        ASSERT_NE(owning, nullptr) << probe.logger.errors();
        ASSERT_TRUE(io.run(*owning, nullptr, reference)) << probe.logger.errors();
        EXPECT_EQ(reference, expectedOutput());
    }

    allocator.forget();
    std::unique_ptr<IExecutionContext> context(
        probe.engine->createExecutionContext(ExecutionContextAllocationStrategy::kUSER_MANAGED));
    ASSERT_NE(context, nullptr) << probe.logger.errors();
    EXPECT_EQ(allocator.syncSizes().count(static_cast<uint64_t>(size)), 0U) << "the context owns no activation memory";
    std::vector<float> y;
    EXPECT_FALSE(io.run(*context, nullptr, y));
    EXPECT_NE(probe.logger.errors().find("kUSER_MANAGED"), std::string::npos) << probe.logger.errors();

    void* memory = nullptr;
    ASSERT_EQ(cudaMalloc(&memory, static_cast<size_t>(size)), cudaSuccess);
    ASSERT_EQ(cudaMemset(memory, 0xAB, static_cast<size_t>(size)), cudaSuccess);
    context->setDeviceMemoryV2(memory, size - 1);
    EXPECT_NE(probe.logger.errors().find(std::to_string(size - 1) + " bytes are too few"), std::string::npos)
        << probe.logger.errors();
    EXPECT_FALSE(io.run(*context, nullptr, y)) << "too little memory is not taken";

    context->setDeviceMemoryV2(memory, size);
    ASSERT_TRUE(io.run(*context, nullptr, y)) << probe.logger.errors();
    EXPECT_EQ(y, reference);
    // The activations were written into the application's memory.
    std::vector<uint8_t> bytes(static_cast<size_t>(size));
    ASSERT_EQ(cudaMemcpy(bytes.data(), memory, bytes.size(), cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_GT(std::count_if(bytes.begin(), bytes.end(), [](uint8_t b) { return b != 0xAB; }), 0);
    context.reset();
    cudaFree(memory);
}

TEST(CudaDeviceMemory, V2PluginsGetLibraryHandlesBoundToTheEnqueueStreamAndTheContextsAllocator)
{
    SKIP_WITHOUT_GPU();
    CountingAllocator allocator;
    ProbeEngine probe(&allocator);
    ASSERT_NE(probe.engine, nullptr);
    ProbeLog::clear();
    std::unique_ptr<IExecutionContext> first(probe.engine->createExecutionContext());
    std::unique_ptr<IExecutionContext> second(probe.engine->createExecutionContext());
    ASSERT_NE(first, nullptr) << probe.logger.errors();
    ASSERT_NE(second, nullptr) << probe.logger.errors();
    ASSERT_EQ(ProbeLog::allocators.size(), 2U);
    for (size_t i = 0; i < 2; ++i)
    {
        EXPECT_NE(ProbeLog::cudnn[i], nullptr) << i;
        EXPECT_NE(ProbeLog::cublas[i], nullptr) << i;
        EXPECT_NE(ProbeLog::allocators[i], nullptr) << i;
    }
    // Per context: handles and allocator identify the context (plugins key per-context resources on them).
    EXPECT_NE(ProbeLog::cudnn[0], ProbeLog::cudnn[1]);
    EXPECT_NE(ProbeLog::cublas[0], ProbeLog::cublas[1]);
    EXPECT_NE(ProbeLog::allocators[0], ProbeLog::allocators[1]);
    // What the plugins allocated through it reached the runtime's allocator.
    EXPECT_EQ(allocator.syncSizes().count(AllocatorProbePlugin::kOwnBytes), 2U);

    DeviceIO io;
    cudaStream_t streams[2]{};
    ASSERT_EQ(cudaStreamCreate(&streams[0]), cudaSuccess);
    ASSERT_EQ(cudaStreamCreate(&streams[1]), cudaSuccess);
    std::vector<float> y;
    ASSERT_TRUE(io.run(*first, streams[0], y)) << probe.logger.errors();
    ASSERT_TRUE(io.run(*first, streams[1], y)) << probe.logger.errors();
    EXPECT_EQ(y, expectedOutput());
    EXPECT_EQ(ProbeLog::handlesOnTheEnqueueStream, (std::vector<bool>{true, true}));
    cudaStreamDestroy(streams[0]);
    cudaStreamDestroy(streams[1]);

    first.reset();
    second.reset();
    EXPECT_EQ(allocator.live(), 0U) << "detachFromContext gave the plugins' memory back";
}

TEST(CudaDeviceMemory, V3PluginsGetTheContextsAllocator)
{
    SKIP_WITHOUT_GPU();
    ResourceProbeCreator::registerOnce();
    RecordingLogger logger;
    std::unique_ptr<IBuilder> builder(createInferBuilder(logger));
    std::unique_ptr<INetworkDefinition> network(builder->createNetworkV2(0));
    ITensor* x = network->addInput("x", DataType::kFLOAT, Dims{1, {8}});
    ResourceProbePlugin plugin;
    IPluginV3Layer* layer = network->addPluginV3(&x, 1, nullptr, 0, plugin);
    layer->getOutput(0)->setName("y");
    network->markOutput(*layer->getOutput(0));
    std::unique_ptr<IBuilderConfig> config(builder->createBuilderConfig());
    kiln::setBackend(*config, kiln::Backend::kCUDA);
    std::unique_ptr<IHostMemory> plan(builder->buildSerializedNetwork(*network, *config));
    ASSERT_NE(plan, nullptr) << logger.errors();
    CountingAllocator allocator;
    std::unique_ptr<IRuntime> runtime(createInferRuntime(logger));
    runtime->setGpuAllocator(&allocator);
    std::unique_ptr<ICudaEngine> engine(runtime->deserializeCudaEngine(plan->data(), plan->size()));
    ASSERT_NE(engine, nullptr) << logger.errors();

    ResourceProbeLog::clear();
    std::unique_ptr<IExecutionContext> context(engine->createExecutionContext());
    ASSERT_NE(context, nullptr) << logger.errors();
    ASSERT_EQ(ResourceProbeLog::allocatorsAtAttach.size(), 1U);
    IGpuAllocator* const lent = ResourceProbeLog::allocatorsAtAttach[0];
    ASSERT_NE(lent, nullptr);
    // It allocates through the runtime's allocator.
    void* memory = lent->allocate(1000, 256, 0);
    ASSERT_NE(memory, nullptr);
    EXPECT_EQ(allocator.syncSizes().count(1000), 1U);
    EXPECT_TRUE(lent->deallocate(memory));
}

TEST(CudaDeviceMemory, OutOfMemoryIsAClearErrorAndTheEngineStaysUsable)
{
    SKIP_WITHOUT_GPU();
    CountingAllocator allocator;
    ProbeEngine probe(&allocator);
    ASSERT_NE(probe.engine, nullptr);
    uint64_t const contextBytes = static_cast<uint64_t>(probe.engine->getDeviceMemorySizeV2());
    DeviceIO io;

    // The context's memory (activations and plugin workspace) cannot be allocated.
    allocator.failWhen([&](uint64_t size, bool) { return size == contextBytes; });
    EXPECT_EQ(probe.engine->createExecutionContext(), nullptr);
    std::string errors = probe.logger.errors();
    EXPECT_NE(errors.find("out of device memory"), std::string::npos) << errors;
    EXPECT_NE(errors.find(std::to_string(contextBytes) + " bytes for the context's activations and plugin workspace"),
        std::string::npos)
        << errors;
    EXPECT_EQ(allocator.live(), 0U) << "the failed context gave back what it had allocated";

    // A constant's weights cannot be uploaded: the error names the layer.
    allocator.failWhen([](uint64_t size, bool) { return size == kCount * sizeof(float); });
    EXPECT_EQ(probe.engine->createExecutionContext(), nullptr);
    errors = probe.logger.errors();
    EXPECT_NE(
        errors.find(std::to_string(kCount * sizeof(float)) + " bytes for the constant's weights"), std::string::npos)
        << errors;
    EXPECT_EQ(allocator.live(), 0U);

    // With memory again, the same engine makes a context that runs.
    allocator.failWhen({});
    std::unique_ptr<IExecutionContext> context(probe.engine->createExecutionContext());
    ASSERT_NE(context, nullptr) << probe.logger.errors();

    // Scratch that grows during enqueueV3 cannot be allocated: that run fails, saying so.
    allocator.failWhen([](uint64_t, bool async) { return async; });
    std::vector<float> y;
    EXPECT_FALSE(io.run(*context, nullptr, y));
    errors = probe.logger.errors();
    EXPECT_NE(errors.find(std::to_string(kCount * 2) + " bytes for a reformatting's scratch"), std::string::npos)
        << errors;
    // The context itself is still usable once memory is available.
    allocator.failWhen({});
    ASSERT_TRUE(io.run(*context, nullptr, y)) << probe.logger.errors();
    EXPECT_EQ(y, expectedOutput());
    context.reset();
    EXPECT_EQ(allocator.live(), 0U);
}

TEST(CudaDeviceMemory, APluginThatBreaksAGraphCaptureIsNamed)
{
    SKIP_WITHOUT_GPU();
    ProbeEngine probe(nullptr);
    ASSERT_NE(probe.engine, nullptr);
    ProbeLog::clear();
    std::unique_ptr<IExecutionContext> context(probe.engine->createExecutionContext());
    ASSERT_NE(context, nullptr) << probe.logger.errors();
    DeviceIO io;
    cudaStream_t stream = nullptr;
    ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
    // One run before capturing, as TensorRT asks too: it lets the context grow its scratch outside the graph.
    std::vector<float> y;
    ASSERT_TRUE(io.run(*context, stream, y)) << probe.logger.errors();
    ProbeLog::synchronizeInEnqueue = true;
    ASSERT_EQ(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), cudaSuccess);
    EXPECT_FALSE(context->enqueueV3(stream));
    cudaGraph_t graph = nullptr;
    EXPECT_NE(cudaStreamEndCapture(stream, &graph), cudaSuccess); // the capture was invalidated
    cudaGetLastError();
    EXPECT_NE(probe.logger.errors().find("plugin KilnAllocatorProbe"), std::string::npos) << probe.logger.errors();
    EXPECT_NE(probe.logger.errors().find("broke the CUDA graph capture"), std::string::npos) << probe.logger.errors();

    // Outside a capture the same context runs as before.
    ProbeLog::synchronizeInEnqueue = false;
    ASSERT_TRUE(io.run(*context, stream, y)) << probe.logger.errors();
    EXPECT_EQ(y, expectedOutput());
    cudaStreamDestroy(stream);
}

TEST(CudaDeviceMemory, ScratchThatWouldGrowInsideAGraphCaptureIsAClearError)
{
    SKIP_WITHOUT_GPU();
    ProbeEngine probe(nullptr);
    ASSERT_NE(probe.engine, nullptr);
    std::unique_ptr<IExecutionContext> context(probe.engine->createExecutionContext());
    ASSERT_NE(context, nullptr) << probe.logger.errors();
    DeviceIO io;
    ASSERT_TRUE(context->setInputTensorAddress("x", io.x));
    ASSERT_TRUE(context->setTensorAddress("y", io.y));
    cudaStream_t stream = nullptr;
    ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
    // The first run converts around the FP16 plugin in scratch it has not allocated yet: inside a capture that
    // memory would belong to the graph.
    ASSERT_EQ(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), cudaSuccess);
    EXPECT_FALSE(context->enqueueV3(stream));
    cudaGraph_t graph = nullptr;
    if (cudaStreamEndCapture(stream, &graph) == cudaSuccess && graph != nullptr)
    {
        cudaGraphDestroy(graph);
    }
    cudaGetLastError();
    EXPECT_NE(probe.logger.errors().find("run enqueueV3 once with these shapes before capturing"), std::string::npos)
        << probe.logger.errors();
    std::vector<float> y;
    ASSERT_TRUE(io.run(*context, stream, y)) << probe.logger.errors();
    EXPECT_EQ(y, expectedOutput());
    cudaStreamDestroy(stream);
}

} // namespace
