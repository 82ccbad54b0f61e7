// The seed documents' workflow, one process per phase, as a user would write it:
//
//   seed_workflow build <plugin library> <plugin> <plan file> [cpu|cuda]
//       loads the library (its REGISTER_TENSORRT_PLUGIN creators register), finds the
//       creator in getPluginRegistry(), fills a PluginFieldCollection from
//       getFieldNames(), creates the plugin, adds it to a network, builds with a
//       dynamic batch profile and writes the plan;
//   seed_workflow run <plugin library or "none"> <plugin> <plan file> [cpu|cuda]
//       loads the library, deserializes the plan, runs two batch sizes and checks
//       the outputs against values computed here (with cuda, in device memory, so
//       the plugins' CUDA kernels run). Exit code 77: cuda asked for, but no GPU.
//
// <plugin> is MyCustomPlugin (IPluginV2DynamicExt), FooPlugin (IPluginV2IOExt),
// CustomPlugin (IPluginV2) or ScaledAdd (IPluginV3). Exit code 0 means success.
#include <NvInfer.h>
#include <kiln/Backend.h>

#if defined(KILN_WITH_CUDA) && KILN_WITH_CUDA
#include <cuda_runtime_api.h>
#endif

#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
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

constexpr int64_t kChannels = 3;
constexpr int64_t kHeight = 2;
constexpr int64_t kWidth = 2;
float const kWeight[kChannels] = {2.0f, -1.0f, 0.5f};
float const kBias[kChannels] = {1.0f, 0.0f, -2.0f};
constexpr float kAlpha = 0.25f; // FooPlugin's slope and ScaledAdd's scale
constexpr float kMin = -1.5f;   // CustomPlugin's bounds
constexpr float kMax = 2.0f;

int fail(std::string const& message)
{
    std::fprintf(stderr, "seed_workflow: %s\n", message.c_str());
    return 1;
}

constexpr int kNoGpu = 77;

//! Where the tensors of a run live: host vectors, or (CUDA backend) device copies of them.
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

    //! The address to give the context for `values`; null when device memory cannot be had.
    void* address(std::vector<float>& values)
    {
        if (!mDevice)
        {
            return values.data();
        }
        void* buffer = nullptr;
#if defined(KILN_WITH_CUDA) && KILN_WITH_CUDA
        size_t const bytes = values.size() * sizeof(float);
        if (cudaMalloc(&buffer, bytes) != cudaSuccess
            || cudaMemcpy(buffer, values.data(), bytes, cudaMemcpyHostToDevice) != cudaSuccess)
        {
            return nullptr;
        }
        mBuffers.push_back(buffer);
#endif
        return buffer;
    }
    //! Copies the device buffer at `address` back into `values` (nothing to do for host memory).
    bool read(void const* address, std::vector<float>& values) const
    {
#if defined(KILN_WITH_CUDA) && KILN_WITH_CUDA
        if (mDevice)
        {
            return cudaDeviceSynchronize() == cudaSuccess
                && cudaMemcpy(values.data(), address, values.size() * sizeof(float), cudaMemcpyDeviceToHost)
                == cudaSuccess;
        }
#endif
        (void) address;
        (void) values;
        return true;
    }

private:
    bool mDevice;
    std::vector<void*> mBuffers;
};

//! The fields the seeds' user code fills in, by the names getFieldNames reports.
std::vector<PluginField> fieldsFor(std::string const& plugin, PluginFieldCollection const& names)
{
    static int32_t const inChannel = kChannels;
    std::vector<PluginField> fields;
    for (int32_t i = 0; i < names.nbFields; ++i)
    {
        std::string const name = names.fields[i].name;
        if (plugin == "MyCustomPlugin" && name == "in_channel")
        {
            fields.emplace_back("in_channel", &inChannel, PluginFieldType::kINT32, 1);
        }
        else if (plugin == "MyCustomPlugin" && name == "weight")
        {
            fields.emplace_back("weight", kWeight, PluginFieldType::kFLOAT32, kChannels);
        }
        else if (plugin == "MyCustomPlugin" && name == "bias")
        {
            fields.emplace_back("bias", kBias, PluginFieldType::kFLOAT32, kChannels);
        }
        else if ((plugin == "FooPlugin" || plugin == "ScaledAdd") && name == "alpha")
        {
            fields.emplace_back("alpha", &kAlpha, PluginFieldType::kFLOAT32, 1);
        }
        else if (plugin == "CustomPlugin" && name == "min")
        {
            fields.emplace_back("min", &kMin, PluginFieldType::kFLOAT32, 1);
        }
        else if (plugin == "CustomPlugin" && name == "max")
        {
            fields.emplace_back("max", &kMax, PluginFieldType::kFLOAT32, 1);
        }
    }
    return fields;
}

float expected(std::string const& plugin, float x, float second, int64_t channel)
{
    if (plugin == "MyCustomPlugin")
    {
        return x * kWeight[channel] + kBias[channel];
    }
    if (plugin == "FooPlugin")
    {
        return x >= 0 ? x : kAlpha * x;
    }
    if (plugin == "CustomPlugin")
    {
        return std::min(std::max(x, kMin), kMax);
    }
    return x + kAlpha * second; // ScaledAdd
}

int build(std::string const& plugin, std::string const& planPath, kiln::Backend backend)
{
    StderrLogger logger;
    std::unique_ptr<IBuilder> builder(createInferBuilder(logger));
    std::unique_ptr<INetworkDefinition> network(builder->createNetworkV2(0));
    ITensor* x = network->addInput("x", DataType::kFLOAT, Dims{4, {-1, kChannels, kHeight, kWidth}});
    ITensor* b = plugin == "ScaledAdd"
        ? network->addInput("b", DataType::kFLOAT, Dims{4, {-1, kChannels, kHeight, kWidth}})
        : nullptr;

    ILayer* layer = nullptr;
    if (plugin == "ScaledAdd")
    {
        auto* creator = static_cast<IPluginCreatorV3One*>(getPluginRegistry()->getCreator("ScaledAdd", "1"));
        if (creator == nullptr)
        {
            return fail("no creator for ScaledAdd version 1");
        }
        std::vector<PluginField> fields = fieldsFor(plugin, *creator->getFieldNames());
        PluginFieldCollection fc{static_cast<int32_t>(fields.size()), fields.data()};
        std::unique_ptr<IPluginV3> object(creator->createPlugin("scaled_add", &fc, TensorRTPhase::kBUILD));
        if (object == nullptr)
        {
            return fail("createPlugin failed");
        }
        ITensor* inputs[] = {x, b};
        layer = network->addPluginV3(inputs, 2, nullptr, 0, *object);
    }
    else
    {
        IPluginCreator* creator = getPluginRegistry()->getPluginCreator(plugin.c_str(), "1");
        if (creator == nullptr)
        {
            return fail("no creator for " + plugin + " version 1");
        }
        std::vector<PluginField> fields = fieldsFor(plugin, *creator->getFieldNames());
        PluginFieldCollection fc{static_cast<int32_t>(fields.size()), fields.data()};
        IPluginV2* object = creator->createPlugin(plugin.c_str(), &fc);
        if (object == nullptr)
        {
            return fail("createPlugin failed");
        }
        layer = network->addPluginV2(&x, 1, *object);
        object->destroy(); // the network keeps its own clone, as the seeds rely on
    }
    if (layer == nullptr)
    {
        return fail("adding the plugin layer failed");
    }
    layer->getOutput(0)->setName("y");
    network->markOutput(*layer->getOutput(0));

    std::unique_ptr<IBuilderConfig> config(builder->createBuilderConfig());
    kiln::setBackend(*config, backend);
    IOptimizationProfile* profile = builder->createOptimizationProfile();
    for (char const* input : {"x", "b"})
    {
        if (std::strcmp(input, "b") == 0 && b == nullptr)
        {
            continue;
        }
        profile->setDimensions(input, OptProfileSelector::kMIN, Dims{4, {1, kChannels, kHeight, kWidth}});
        profile->setDimensions(input, OptProfileSelector::kOPT, Dims{4, {2, kChannels, kHeight, kWidth}});
        profile->setDimensions(input, OptProfileSelector::kMAX, Dims{4, {4, kChannels, kHeight, kWidth}});
    }
    config->addOptimizationProfile(profile);
    std::unique_ptr<IHostMemory> plan(builder->buildSerializedNetwork(*network, *config));
    if (plan == nullptr)
    {
        return fail("buildSerializedNetwork failed");
    }
    std::ofstream(planPath, std::ios::binary).write(static_cast<char const*>(plan->data()), plan->size());
    return 0;
}

int run(std::string const& plugin, std::string const& planPath, kiln::Backend backend)
{
    std::ifstream file(planPath, std::ios::binary);
    std::vector<char> plan((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    StderrLogger logger;
    std::unique_ptr<IRuntime> runtime(createInferRuntime(logger));
    std::unique_ptr<ICudaEngine> engine(runtime->deserializeCudaEngine(plan.data(), plan.size()));
    if (engine == nullptr)
    {
        return fail("deserializeCudaEngine failed");
    }
    std::unique_ptr<IExecutionContext> context(engine->createExecutionContext());
    if (context == nullptr)
    {
        return fail("createExecutionContext failed");
    }
    bool const twoInputs = plugin == "ScaledAdd";
    for (int64_t batch : {3, 1})
    {
        int64_t const count = batch * kChannels * kHeight * kWidth;
        std::vector<float> x(count), b(count), y(count, -999.0f);
        for (int64_t i = 0; i < count; ++i)
        {
            x[i] = 0.5f * static_cast<float>(i % 11) - 2.5f;
            b[i] = static_cast<float>(i % 5);
        }
        Dims const shape{4, {batch, kChannels, kHeight, kWidth}};
        TensorMemory memory(backend == kiln::Backend::kCUDA);
        void* const yAddress = memory.address(y);
        context->setInputShape("x", shape);
        context->setTensorAddress("x", memory.address(x));
        if (twoInputs)
        {
            context->setInputShape("b", shape);
            context->setTensorAddress("b", memory.address(b));
        }
        context->setTensorAddress("y", yAddress);
        if (context->getTensorShape("y").d[0] != batch)
        {
            return fail("output batch is " + std::to_string(context->getTensorShape("y").d[0]));
        }
        if (!context->enqueueV3(nullptr) || !memory.read(yAddress, y))
        {
            return fail("enqueueV3 failed for batch " + std::to_string(batch));
        }
        for (int64_t i = 0; i < count; ++i)
        {
            int64_t const channel = (i / (kHeight * kWidth)) % kChannels;
            float const want = expected(plugin, x[i], b[i], channel);
            if (std::fabs(y[i] - want) > 1e-6f)
            {
                return fail("batch " + std::to_string(batch) + " element " + std::to_string(i) + ": got "
                    + std::to_string(y[i]) + ", expected " + std::to_string(want));
            }
        }
    }
    std::printf("%s: outputs match for batch 3 and batch 1\n", plugin.c_str());
    return 0;
}

} // namespace

int main(int argc, char** argv)
{
    if (argc < 5 || argc > 6 || (std::strcmp(argv[1], "build") != 0 && std::strcmp(argv[1], "run") != 0))
    {
        return fail("usage: seed_workflow build|run <plugin library|none> <plugin> <plan file> [cpu|cuda]");
    }
    kiln::Backend const backend = argc == 6 && std::strcmp(argv[5], "cuda") == 0 ? kiln::Backend::kCUDA
                                                                                 : kiln::Backend::kCPU;
    if (backend == kiln::Backend::kCUDA && !kiln::backendAvailable(kiln::Backend::kCUDA))
    {
        std::fprintf(stderr, "seed_workflow: no usable CUDA GPU (or no CUDA backend in this build)\n");
        return kNoGpu;
    }
    std::string const library = argv[2];
    if (library != "none" && dlopen(library.c_str(), RTLD_NOW | RTLD_GLOBAL) == nullptr)
    {
        return fail(std::string("cannot load ") + library + ": " + dlerror());
    }
    return std::strcmp(argv[1], "build") == 0 ? build(argv[3], argv[4], backend) : run(argv[3], argv[4], backend);
}
