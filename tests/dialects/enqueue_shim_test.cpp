// IPluginV2's two enqueue forms: Kiln calls the TensorRT 8+ form (outputs void* const*),
// whose default forwards to the TensorRT 7 form (outputs void**) that seed-001-style
// plugins override. A plugin that overrides neither gets kKILN_ENQUEUE_NOT_IMPLEMENTED.
#include "PluginTestUtils.h"

#include <CustomPlugin.h>

#include <algorithm>
#include <string>
#include <vector>

#ifdef KILN_WITH_CUDA
#include <cuda_runtime_api.h>
#endif

using namespace nvinfer1;
using namespace kiln_test;

namespace
{

//! The smallest plain IPluginV2, TensorRT 7 style, with every method but enqueue.
class BarePlugin : public IPluginV2
{
public:
    int getNbOutputs() const override
    {
        return 1;
    }
    Dims getOutputDimensions(int, const Dims* inputs, int) override
    {
        return inputs[0];
    }
    bool supportsFormat(DataType type, PluginFormat format) const override
    {
        return type == DataType::kFLOAT && format == PluginFormat::kLINEAR;
    }
    void configureWithFormat(const Dims*, int, const Dims*, int, DataType, PluginFormat, int) override { }
    int initialize() override
    {
        return 0;
    }
    void terminate() override { }
    size_t getWorkspaceSize(int) const override
    {
        return 0;
    }
    size_t getSerializationSize() const override
    {
        return 0;
    }
    void serialize(void*) const override { }
    const char* getPluginType() const override
    {
        return "Bare";
    }
    const char* getPluginVersion() const override
    {
        return "1";
    }
    void destroy() override
    {
        delete this;
    }
    IPluginV2* clone() const override
    {
        return new BarePlugin(*this);
    }
    void setPluginNamespace(const char*) override { }
    const char* getPluginNamespace() const override
    {
        return "";
    }
};

//! Overrides only the TensorRT 7 enqueue and records what reached it.
class RecordingPlugin : public BarePlugin
{
public:
    int enqueue(int batchSize, const void* const* inputs, void** outputs, void* workspace, cudaStream_t stream) override
    {
        ++calls;
        seenBatch = batchSize;
        seenInputs = inputs;
        seenOutputs = outputs;
        seenWorkspace = workspace;
        seenStream = stream;
        return 42;
    }

    int calls{0};
    int seenBatch{-1};
    const void* const* seenInputs{nullptr};
    void** seenOutputs{nullptr};
    void* seenWorkspace{nullptr};
    cudaStream_t seenStream{nullptr};
};

} // namespace

TEST(EnqueueShim, Trt7OverrideIsReachedThroughTheTrt8Form)
{
    RecordingPlugin plugin;
    IPluginV2& base = plugin;
    float in = 1.0F;
    float out = 0.0F;
    void const* inputs[1] = {&in};
    void* outputs[1] = {&out};
    int workspace = 0;
    auto* stream = reinterpret_cast<cudaStream_t>(static_cast<uintptr_t>(0x1234));
    void* const* constOutputs = outputs;

    EXPECT_EQ(base.enqueue(7, inputs, constOutputs, &workspace, stream), 42);
    EXPECT_EQ(plugin.calls, 1);
    EXPECT_EQ(plugin.seenBatch, 7);
    EXPECT_EQ(plugin.seenInputs, inputs);
    EXPECT_EQ(plugin.seenOutputs, outputs); // the same array, not a copy
    EXPECT_EQ(plugin.seenWorkspace, &workspace);
    EXPECT_EQ(plugin.seenStream, stream);
}

//! A TensorRT 8/10 style plugin: overrides only the void* const* enqueue.
class Trt8RecordingPlugin : public BarePlugin
{
public:
    int32_t enqueue(int32_t batchSize, void const* const*, void* const* outputs, void*, cudaStream_t) noexcept override
    {
        ++calls;
        seenBatch = batchSize;
        seenOutputs = outputs;
        return 0;
    }
    int calls{0};
    int32_t seenBatch{-1};
    void* const* seenOutputs{nullptr};
};

TEST(EnqueueShim, Trt8OverrideIsReachedThroughTheTrt8Form)
{
    Trt8RecordingPlugin plugin;
    IPluginV2& base = plugin;
    void const* inputs[1] = {nullptr};
    void* outputs[1] = {nullptr};
    void* const* constOutputs = outputs;
    EXPECT_EQ(base.enqueue(3, inputs, constOutputs, nullptr, nullptr), 0);
    EXPECT_EQ(plugin.calls, 1);
    EXPECT_EQ(plugin.seenBatch, 3);
    EXPECT_EQ(plugin.seenOutputs, constOutputs);
}

// With TensorRT 8/10 there is one enqueue, so code that passes a void** outputs array
// reaches the plugin's override. With Kiln's headers that call binds to the TensorRT 7
// overload, whose default forwards to the TensorRT 8 form the plugin overrides.
TEST(EnqueueShim, Trt8OverrideIsReachedWhenCalledWithVoidStarStar)
{
    Trt8RecordingPlugin plugin;
    IPluginV2& base = plugin;
    void const* inputs[1] = {nullptr};
    void* outputs[1] = {nullptr};
    EXPECT_EQ(base.enqueue(3, inputs, outputs, nullptr, nullptr), 0);
    EXPECT_EQ(plugin.calls, 1);
    EXPECT_EQ(plugin.seenOutputs, outputs);
}

TEST(EnqueueShim, PluginWithoutEnqueueReportsNotImplemented)
{
    BarePlugin plugin;
    IPluginV2& base = plugin;
    void const* inputs[1] = {nullptr};
    void* outputs[1] = {nullptr};
    void* const* constOutputs = outputs;
    EXPECT_EQ(base.enqueue(1, inputs, constOutputs, nullptr, nullptr), kKILN_ENQUEUE_NOT_IMPLEMENTED);
    EXPECT_EQ(base.enqueue(1, inputs, outputs, nullptr, nullptr), kKILN_ENQUEUE_NOT_IMPLEMENTED);
}

TEST(EnqueueShim, SeedCustomPluginIsReachedThroughTheTrt8Form)
{
    float const lo = -1.0F;
    float const hi = 1.0F;
    Weights const weights[2] = {{DataType::kFLOAT, &lo, 1}, {DataType::kFLOAT, &hi, 1}};
    kiln_seed::CustomPlugin plugin(weights, 2);
    Dims const dims = makeDims({4});
    plugin.configureWithFormat(&dims, 1, &dims, 1, DataType::kFLOAT, PluginFormat::kLINEAR, 1);
    IPluginV2& base = plugin;
    std::vector<float> const x{-3.0F, -0.5F, 0.5F, 3.0F};
    std::vector<float> const expected{-1.0F, -0.5F, 0.5F, 1.0F};

#ifdef KILN_WITH_CUDA
    int deviceCount = 0;
    if (cudaGetDeviceCount(&deviceCount) != cudaSuccess || deviceCount == 0)
    {
        GTEST_SKIP() << "built with CUDA but no GPU is present";
    }
    void* dx = nullptr;
    void* dy = nullptr;
    ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&dx), x.size() * sizeof(float)), cudaSuccess);
    ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&dy), x.size() * sizeof(float)), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(dx, x.data(), x.size() * sizeof(float), cudaMemcpyHostToDevice), cudaSuccess);
    void const* inputs[1] = {dx};
    void* outputs[1] = {dy};
    void* const* constOutputs = outputs;
    EXPECT_EQ(base.enqueue(1, inputs, constOutputs, nullptr, nullptr), 0);
    std::vector<float> y(x.size());
    ASSERT_EQ(cudaMemcpy(y.data(), dy, y.size() * sizeof(float), cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_EQ(y, expected);
    cudaFree(dx);
    cudaFree(dy);
#else
    std::vector<float> y(x.size(), 0.0F);
    void const* inputs[1] = {x.data()};
    void* outputs[1] = {y.data()};
    void* const* constOutputs = outputs;
    testing::internal::CaptureStderr();
    int32_t const status = base.enqueue(1, inputs, constOutputs, nullptr, nullptr);
    std::string const message = testing::internal::GetCapturedStderr();
    // The TensorRT 7 override ran (not the default): it explains that it has no CUDA.
    EXPECT_EQ(status, 1);
    EXPECT_NE(message.find("CustomPlugin: built without CUDA"), std::string::npos) << message;
    EXPECT_NE(message.find("enqueueHost"), std::string::npos) << message;
    EXPECT_EQ(std::count(message.begin(), message.end(), '\n'), 1) << message;
    EXPECT_EQ(y, std::vector<float>(x.size(), 0.0F));
#endif
    // The CPU path computes the same thing.
    std::vector<float> hostOut(x.size());
    PluginTensorDesc const desc = makeDesc(makeDims({1, 4}), DataType::kFLOAT);
    ASSERT_EQ(runHost<float>(plugin, {desc}, {&x}, desc, hostOut), 0);
    EXPECT_EQ(hostOut, expected);
}
