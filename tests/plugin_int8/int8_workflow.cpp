// An INT8 plugin in an INT8 network, built in one process and run in another, as the seed documents' workflow does
// for floating-point plugins (tests/seed_workflow):
//
//   int8_workflow build <plugin library> <qdq|range> <0|4|32> <1|2|3> <plan file> [cpu|cuda]
//   int8_workflow run   <plugin library> <qdq|range> <0|4|32> <1|2|3> <plan file> [cpu|cuda]
//
// The plugin is Int8ChannelAffine (int8_affine_plugin.cpp), version 1 (IPluginV2DynamicExt), 2 (IPluginV2IOExt) or
// 3 (IPluginV3),
// asking for its INT8 tensors in kLINEAR (0), kCHW4 (4) or kCHW32 (32). With qdq the network is explicitly quantized, x
// (FP32) -> Q (scale 1/2) -> plugin -> DQ (scale 1/8)
// -> y (FP32); with range, x and y are INT8 network tensors whose dynamic ranges (63.5 and 15.875) give the plugin
// the same scales (range / 127). The run checks two batch sizes against values computed here. Exit code 77: cuda
// asked for, but no GPU.
#include <NvInfer.h>
#include <kiln/Backend.h>

#if defined(KILN_WITH_CUDA) && KILN_WITH_CUDA
#include <cuda_runtime_api.h>
#endif

#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

namespace
{

using namespace nvinfer1;

class StderrLogger final : public ILogger
{
public:
    void log(Severity severity, char const* msg) noexcept override
    {
        if (severity <= Severity::kWARNING)
        {
            std::fprintf(stderr, "[%s] %s\n", severity <= Severity::kERROR ? "E" : "W", msg);
        }
    }
};

constexpr int64_t kChannels = 5; // padded to 8 in kCHW4 and to 32 in kCHW32
constexpr int64_t kHeight = 2;
constexpr int64_t kWidth = 3;
float const kWeight[kChannels] = {2.0F, -1.0F, 0.5F, 1.5F, -3.0F};
float const kBias[kChannels] = {1.0F, 0.0F, -2.0F, 0.25F, 4.0F};
constexpr float kInScale = 0.5F;
constexpr float kOutScale = 0.125F;
constexpr int kNoGpu = 77;

int fail(std::string const& message)
{
    std::fprintf(stderr, "int8_workflow: %s\n", message.c_str());
    return 1;
}

int8_t saturated(double value)
{
    return static_cast<int8_t>(std::clamp(std::nearbyint(value), -128.0, 127.0)); // ties to even
}

//! The network input's value at `i`: FP32 with ties for the quantize layer to round (qdq), or INT8 values (range).
float inputValue(int64_t i)
{
    return 0.75F * static_cast<float>(i % 23) - 8.0F;
}

ITensor* scaleConstant(INetworkDefinition& network, float const& value)
{
    return network.addConstant(Dims{0, {}}, Weights{DataType::kFLOAT, &value, 1})->getOutput(0);
}

//! Adds Int8ChannelAffine `version` on `input`: through its V3 creator for version 3, else its V2 creator.
ILayer* addPlugin(INetworkDefinition& network, ITensor& input, PluginFieldCollection const& fc, char const* version)
{
    ITensor* inputs[] = {&input};
    if (std::strcmp(version, "3") == 0)
    {
        auto* creator
            = dynamic_cast<IPluginCreatorV3One*>(getPluginRegistry()->getCreator("Int8ChannelAffine", version));
        std::unique_ptr<IPluginV3> plugin(
            creator ? creator->createPlugin("affine", &fc, TensorRTPhase::kBUILD) : nullptr);
        return plugin ? network.addPluginV3(inputs, 1, nullptr, 0, *plugin) : nullptr;
    }
    IPluginCreator* creator = getPluginRegistry()->getPluginCreator("Int8ChannelAffine", version);
    IPluginV2* plugin = creator ? creator->createPlugin("affine", &fc) : nullptr;
    if (plugin == nullptr)
    {
        return nullptr;
    }
    ILayer* layer = network.addPluginV2(inputs, 1, *plugin);
    plugin->destroy(); // the network keeps its own clone
    return layer;
}

//! Adds x -> [Q] -> Int8ChannelAffine -> [DQ] -> y.
bool defineNetwork(INetworkDefinition& network, bool qdq, int32_t format, char const* version)
{
    PluginField fields[] = {PluginField("format", &format, PluginFieldType::kINT32, 1),
        PluginField("weight", kWeight, PluginFieldType::kFLOAT32, kChannels),
        PluginField("bias", kBias, PluginFieldType::kFLOAT32, kChannels)};
    PluginFieldCollection const fc{3, fields};
    Dims const shape{4, {-1, kChannels, kHeight, kWidth}};
    ITensor* x = network.addInput("x", qdq ? DataType::kFLOAT : DataType::kINT8, shape);
    ITensor* quantized = x;
    if (qdq)
    {
        quantized = network.addQuantize(*x, *scaleConstant(network, kInScale), DataType::kINT8)->getOutput(0);
    }
    else
    {
        x->setDynamicRange(-127.0F * kInScale, 127.0F * kInScale);
    }
    ILayer* layer = addPlugin(network, *quantized, fc, version);
    if (layer == nullptr)
    {
        return false;
    }
    ITensor* y = layer->getOutput(0);
    if (qdq)
    {
        y = network.addDequantize(*y, *scaleConstant(network, kOutScale), DataType::kFLOAT)->getOutput(0);
    }
    else
    {
        y->setDynamicRange(-127.0F * kOutScale, 127.0F * kOutScale);
    }
    y->setName("y");
    network.markOutput(*y);
    return true;
}

int build(bool qdq, int32_t format, char const* version, std::string const& planPath, kiln::Backend backend)
{
    StderrLogger logger;
    std::unique_ptr<IBuilder> builder(createInferBuilder(logger));
    std::unique_ptr<INetworkDefinition> network(builder->createNetworkV2(0));
    if (!defineNetwork(*network, qdq, format, version))
    {
        return fail("defining the network failed (is the plugin library loaded?)");
    }
    std::unique_ptr<IBuilderConfig> config(builder->createBuilderConfig());
    kiln::setBackend(*config, backend);
    config->setFlag(BuilderFlag::kINT8);
    config->setProfilingVerbosity(ProfilingVerbosity::kDETAILED); // the inspector shows the plugin's formats
    IOptimizationProfile* profile = builder->createOptimizationProfile();
    profile->setDimensions("x", OptProfileSelector::kMIN, Dims{4, {1, kChannels, kHeight, kWidth}});
    profile->setDimensions("x", OptProfileSelector::kOPT, Dims{4, {2, kChannels, kHeight, kWidth}});
    profile->setDimensions("x", OptProfileSelector::kMAX, Dims{4, {4, kChannels, kHeight, kWidth}});
    config->addOptimizationProfile(profile);
    std::unique_ptr<IHostMemory> plan(builder->buildSerializedNetwork(*network, *config));
    if (plan == nullptr)
    {
        return fail("buildSerializedNetwork failed");
    }
    std::ofstream(planPath, std::ios::binary).write(static_cast<char const*>(plan->data()), plan->size());
    return 0;
}

//! Host or device memory for a run's tensors.
class TensorMemory
{
public:
    explicit TensorMemory(bool device)
        : mDevice(device)
    {
    }
    ~TensorMemory()
    {
#if defined(KILN_WITH_CUDA) && KILN_WITH_CUDA
        for (void* buffer : mBuffers)
        {
            cudaFree(buffer);
        }
#endif
    }
    TensorMemory(TensorMemory const&) = delete;
    TensorMemory& operator=(TensorMemory const&) = delete;

    void* address(std::vector<uint8_t>& bytes)
    {
        if (!mDevice)
        {
            return bytes.data();
        }
        void* buffer = nullptr;
#if defined(KILN_WITH_CUDA) && KILN_WITH_CUDA
        if (cudaMalloc(&buffer, bytes.size()) != cudaSuccess
            || cudaMemcpy(buffer, bytes.data(), bytes.size(), cudaMemcpyHostToDevice) != cudaSuccess)
        {
            return nullptr;
        }
        mBuffers.push_back(buffer);
#endif
        return buffer;
    }
    bool read(void const* address, std::vector<uint8_t>& bytes) const
    {
#if defined(KILN_WITH_CUDA) && KILN_WITH_CUDA
        if (mDevice)
        {
            return cudaDeviceSynchronize() == cudaSuccess
                && cudaMemcpy(bytes.data(), address, bytes.size(), cudaMemcpyDeviceToHost) == cudaSuccess;
        }
#endif
        (void) address;
        (void) bytes;
        return true;
    }

private:
    bool mDevice;
    std::vector<void*> mBuffers;
};

//! Runs batch `batch` and compares y with the values worked out here; "" or what differs.
std::string runBatch(IExecutionContext& context, bool qdq, int64_t batch, bool device)
{
    int64_t const count = batch * kChannels * kHeight * kWidth;
    size_t const elementBytes = qdq ? sizeof(float) : sizeof(int8_t);
    std::vector<uint8_t> x(static_cast<size_t>(count) * elementBytes);
    std::vector<uint8_t> y(x.size(), 0xAB);
    std::vector<int8_t> quantizedInputs(static_cast<size_t>(count));
    for (int64_t i = 0; i < count; ++i)
    {
        float const value = inputValue(i);
        quantizedInputs[i] = qdq ? saturated(value / kInScale) : static_cast<int8_t>(4 * (i % 23) - 44);
        if (qdq)
        {
            std::memcpy(x.data() + i * sizeof(float), &value, sizeof(float));
        }
        else
        {
            x[i] = static_cast<uint8_t>(quantizedInputs[i]);
        }
    }
    TensorMemory memory(device);
    void* const yAddress = memory.address(y);
    context.setInputShape("x", Dims{4, {batch, kChannels, kHeight, kWidth}});
    context.setTensorAddress("x", memory.address(x));
    context.setTensorAddress("y", yAddress);
    if (!context.enqueueV3(nullptr) || !memory.read(yAddress, y))
    {
        return "enqueueV3 failed";
    }
    for (int64_t i = 0; i < count; ++i)
    {
        int64_t const channel = i / (kHeight * kWidth) % kChannels;
        double const value = static_cast<double>(quantizedInputs[i]) * kInScale * kWeight[channel] + kBias[channel];
        int8_t const want = saturated(value / kOutScale);
        float got = 0.0F;
        if (qdq)
        {
            std::memcpy(&got, y.data() + i * sizeof(float), sizeof(float));
        }
        else
        {
            got = static_cast<float>(static_cast<int8_t>(y[i]));
        }
        float const expected = qdq ? static_cast<float>(want) * kOutScale : static_cast<float>(want);
        if (got != expected)
        {
            return "element " + std::to_string(i) + ": got " + std::to_string(got) + ", expected "
                + std::to_string(expected);
        }
    }
    return "";
}

int run(bool qdq, std::string const& planPath, kiln::Backend backend)
{
    std::ifstream file(planPath, std::ios::binary);
    std::vector<char> plan((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    StderrLogger logger;
    std::unique_ptr<IRuntime> runtime(createInferRuntime(logger));
    std::unique_ptr<ICudaEngine> engine(runtime->deserializeCudaEngine(plan.data(), plan.size()));
    std::unique_ptr<IExecutionContext> context(engine ? engine->createExecutionContext() : nullptr);
    if (context == nullptr)
    {
        return fail("the plan did not load");
    }
    // The engine inspector shows the format the plugin negotiated for its INT8 tensors.
    std::unique_ptr<IEngineInspector> inspector(engine->createEngineInspector());
    std::string const information = inspector ? inspector->getEngineInformation(LayerInformationFormat::kJSON) : "";
    for (char const* layout : {"Row major linear INT8", "(CHW4) INT8", "(CHW32) INT8"})
    {
        if (information.find(layout) != std::string::npos)
        {
            std::printf("the inspector shows %s\n", layout);
        }
    }
    for (int64_t batch : {3, 1})
    {
        std::string const difference = runBatch(*context, qdq, batch, backend == kiln::Backend::kCUDA);
        if (!difference.empty())
        {
            return fail("batch " + std::to_string(batch) + ": " + difference);
        }
    }
    std::printf("Int8ChannelAffine: outputs match for batch 3 and batch 1\n");
    return 0;
}

} // namespace

int main(int argc, char** argv)
{
    if (argc < 7 || argc > 8 || (std::strcmp(argv[1], "build") != 0 && std::strcmp(argv[1], "run") != 0))
    {
        return fail("usage: int8_workflow build|run <plugin library> <qdq|range> <0|4|32> <1|2|3> <plan file> "
                    "[cpu|cuda]");
    }
    kiln::Backend const backend = argc == 8 && std::strcmp(argv[7], "cuda") == 0 ? kiln::Backend::kCUDA
                                                                                 : kiln::Backend::kCPU;
    if (backend == kiln::Backend::kCUDA && !kiln::backendAvailable(kiln::Backend::kCUDA))
    {
        std::fprintf(stderr, "int8_workflow: no usable CUDA GPU (or no CUDA backend in this build)\n");
        return kNoGpu;
    }
    if (dlopen(argv[2], RTLD_NOW | RTLD_GLOBAL) == nullptr)
    {
        return fail(std::string("cannot load ") + argv[2] + ": " + dlerror());
    }
    bool const qdq = std::strcmp(argv[3], "qdq") == 0;
    int32_t const format = std::atoi(argv[4]);
    return std::strcmp(argv[1], "build") == 0 ? build(qdq, format, argv[5], argv[6], backend)
                                              : run(qdq, argv[6], backend);
}
