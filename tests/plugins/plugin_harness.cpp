#include "plugin_harness.h"

#include "core/data_type.h"
#include "plan_in_another_process.h"

#include <NvInferPlugin.h>
#include <kiln/Logging.h>

#ifdef KILN_WITH_CUDA
#include <cuda_runtime_api.h>
#endif

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>

namespace kiln::test
{

using namespace nvinfer1;

namespace
{

template <typename T>
std::vector<uint8_t> bytesOf(std::vector<T> const& values)
{
    std::vector<uint8_t> bytes(values.size() * sizeof(T));
    if (!values.empty())
    {
        std::memcpy(bytes.data(), values.data(), bytes.size());
    }
    return bytes;
}

//! The plugin layer of `call`, added to `network` on `inputs`; null with the creator's errors logged.
class PluginLayerMaker
{
public:
    explicit PluginLayerMaker(PluginCall& call)
        : mCall(call)
    {
    }
    ~PluginLayerMaker()
    {
        if (mV2 != nullptr)
        {
            mV2->destroy();
        }
    }
    PluginLayerMaker(PluginLayerMaker const&) = delete;
    PluginLayerMaker& operator=(PluginLayerMaker const&) = delete;

    //! Creates the plugin; false when the registry has no such creator or the creator refused.
    bool create()
    {
        IPluginCreatorInterface* creator
            = getPluginRegistry()->getCreator(mCall.name.c_str(), mCall.version.c_str(), "");
        if (creator == nullptr)
        {
            ADD_FAILURE() << "no creator " << mCall.name << " version " << mCall.version << " is registered";
            return false;
        }
        if (auto* v2 = dynamic_cast<IPluginCreator*>(creator))
        {
            mV2 = v2->createPlugin("plugin", mCall.fields.collection());
            return mV2 != nullptr;
        }
        auto* v3 = dynamic_cast<IPluginCreatorV3One*>(creator);
        mV3.reset(v3->createPlugin("plugin", mCall.fields.collection(), TensorRTPhase::kBUILD));
        return mV3 != nullptr;
    }

    ILayer* add(INetworkDefinition& network, std::vector<ITensor*> const& inputs)
    {
        auto const count = static_cast<int32_t>(inputs.size());
        if (mV2 != nullptr)
        {
            return network.addPluginV2(inputs.data(), count, *mV2);
        }
        return network.addPluginV3(inputs.data(), count, nullptr, 0, *mV3);
    }

private:
    PluginCall& mCall;
    IPluginV2* mV2{nullptr};
    std::unique_ptr<IPluginV3> mV3;
};

std::unique_ptr<IHostMemory> buildPlan(RecordingLogger& logger, kiln::Backend backend, PluginCall& call,
    std::vector<HostTensor> const& inputs, bool fp16, std::vector<float> const& int8Scales)
{
    std::unique_ptr<IBuilder> builder(createInferBuilder(logger));
    std::unique_ptr<INetworkDefinition> network(builder->createNetworkV2(0));
    std::vector<ITensor*> tensors;
    for (size_t i = 0; i < inputs.size(); ++i)
    {
        Dims dims{};
        dims.nbDims = static_cast<int32_t>(inputs[i].shape.size());
        std::copy(inputs[i].shape.begin(), inputs[i].shape.end(), dims.d);
        tensors.push_back(network->addInput(("input" + std::to_string(i)).c_str(), inputs[i].type, dims));
    }
    PluginLayerMaker maker(call);
    if (!maker.create())
    {
        return nullptr;
    }
    ILayer* layer = maker.add(*network, tensors);
    if (layer == nullptr)
    {
        return nullptr;
    }
    for (int32_t i = 0; i < layer->getNbOutputs(); ++i)
    {
        layer->getOutput(i)->setName(("output" + std::to_string(i)).c_str());
        network->markOutput(*layer->getOutput(i));
        tensors.push_back(layer->getOutput(i));
    }
    for (size_t t = 0; t < int8Scales.size() && t < tensors.size(); ++t)
    {
        tensors[t]->setDynamicRange(-127.F * int8Scales[t], 127.F * int8Scales[t]);
    }
    std::unique_ptr<IBuilderConfig> config(builder->createBuilderConfig());
    kiln::setBackend(*config, backend);
    if (!int8Scales.empty())
    {
        config->setFlag(BuilderFlag::kINT8);
    }
    if (fp16)
    {
        config->setFlag(BuilderFlag::kFP16);
    }
    return std::unique_ptr<IHostMemory>(builder->buildSerializedNetwork(*network, *config));
}

//! Where KILN_FUZZ_SEED_DIR names a folder, the first CPU plan of each plugin name and version goes there: the plan
//! fuzzers' seeds (tests/fuzz/make_seeds.sh).
void saveFuzzSeed(kiln::Backend backend, PluginCall const& call, IHostMemory const& plan)
{
    char const* dir = std::getenv("KILN_FUZZ_SEED_DIR");
    if (dir == nullptr || backend != kiln::Backend::kCPU)
    {
        return;
    }
    std::string const path = std::string(dir) + "/" + call.name + "_v" + call.version + ".plan";
    if (!std::ifstream(path).good())
    {
        std::ofstream(path, std::ios::binary).write(static_cast<char const*>(plan.data()), plan.size());
    }
}

//! Where a run's tensors live: host vectors on the CPU, copies in device memory on CUDA.
class RunMemory
{
public:
    explicit RunMemory(kiln::Backend backend)
        : mDevice(backend == kiln::Backend::kCUDA)
    {
    }
    ~RunMemory()
    {
#ifdef KILN_WITH_CUDA
        for (void* memory : mAllocations)
        {
            cudaFree(memory);
        }
#endif
    }
    RunMemory(RunMemory const&) = delete;
    RunMemory& operator=(RunMemory const&) = delete;

    //! The address the engine reads `tensor` at (a device copy on CUDA).
    void* place(HostTensor& tensor)
    {
#ifdef KILN_WITH_CUDA
        if (mDevice)
        {
            void* memory = nullptr;
            EXPECT_EQ(cudaMalloc(&memory, tensor.bytes.size() + 1), cudaSuccess);
            EXPECT_EQ(
                cudaMemcpy(memory, tensor.bytes.data(), tensor.bytes.size(), cudaMemcpyHostToDevice), cudaSuccess);
            mAllocations.push_back(memory);
            return memory;
        }
#endif
        return tensor.bytes.empty() ? reinterpret_cast<void*>(&mEmpty) : tensor.bytes.data();
    }
    //! Brings what the engine wrote at `address` back into `tensor`.
    void fetch(void const* address, HostTensor& tensor)
    {
#ifdef KILN_WITH_CUDA
        if (mDevice)
        {
            EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
            EXPECT_EQ(
                cudaMemcpy(tensor.bytes.data(), address, tensor.bytes.size(), cudaMemcpyDeviceToHost), cudaSuccess);
        }
#endif
        (void) address;
        (void) tensor;
    }

private:
    bool mDevice;
    std::vector<void*> mAllocations;
    uint64_t mEmpty{0};
};

} // namespace

FieldSet& FieldSet::add(char const* name, int32_t value)
{
    return addRaw(name, PluginFieldType::kINT32, bytesOf(std::vector<int32_t>{value}), 1);
}

FieldSet& FieldSet::add(char const* name, float value)
{
    return addRaw(name, PluginFieldType::kFLOAT32, bytesOf(std::vector<float>{value}), 1);
}

FieldSet& FieldSet::add(char const* name, std::vector<int32_t> const& values)
{
    return addRaw(name, PluginFieldType::kINT32, bytesOf(values), static_cast<int32_t>(values.size()));
}

FieldSet& FieldSet::add(char const* name, std::vector<float> const& values)
{
    return addRaw(name, PluginFieldType::kFLOAT32, bytesOf(values), static_cast<int32_t>(values.size()));
}

FieldSet& FieldSet::add(char const* name, std::string const& text)
{
    return addRaw(name, PluginFieldType::kCHAR, std::vector<uint8_t>(text.begin(), text.end()),
        static_cast<int32_t>(text.size()));
}

FieldSet& FieldSet::addRaw(char const* name, PluginFieldType type, std::vector<uint8_t> bytes, int32_t length)
{
    mNames.emplace_back(name);
    mData.push_back(std::move(bytes));
    mFields.emplace_back(mNames.back().c_str(), mData.back().data(), type, length);
    return *this;
}

PluginFieldCollection const* FieldSet::collection()
{
    mCollection.nbFields = static_cast<int32_t>(mFields.size());
    mCollection.fields = mFields.data();
    return &mCollection;
}

void registerCollection()
{
    static std::once_flag once;
    std::call_once(once, [] { initLibNvInferPlugins(nullptr, ""); });
}

bool gpuAvailable()
{
#ifdef KILN_WITH_CUDA
    int count = 0;
    return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
#else
    return false;
#endif
}

namespace
{

//! runPlugin and runInt8Plugin.
std::vector<HostTensor> runPluginWith(kiln::Backend backend, PluginCall& call, std::vector<HostTensor> const& inputs,
    bool fp16, std::vector<float> const& int8Scales, std::string* errors)
{
    registerCollection();
    RecordingLogger logger;
    std::unique_ptr<IHostMemory> plan = buildPlan(logger, backend, call, inputs, fp16, int8Scales);
    if (errors != nullptr)
    {
        *errors = logger.errors();
    }
    if (plan == nullptr)
    {
        EXPECT_TRUE(errors != nullptr) << "building " << call.name << " failed:\n" << logger.errors();
        return {};
    }
    saveFuzzSeed(backend, call, *plan);
    std::unique_ptr<IRuntime> runtime(createInferRuntime(logger));
    std::unique_ptr<ICudaEngine> engine(runtime->deserializeCudaEngine(plan->data(), plan->size()));
    if (engine == nullptr)
    {
        ADD_FAILURE() << "loading the plan of " << call.name << " failed:\n" << logger.errors();
        return {};
    }
    std::unique_ptr<IExecutionContext> context(engine->createExecutionContext());
    RunMemory memory(backend);
    std::vector<HostTensor> inputCopies = inputs;
    for (size_t i = 0; i < inputCopies.size(); ++i)
    {
        context->setTensorAddress(("input" + std::to_string(i)).c_str(), memory.place(inputCopies[i]));
    }
    std::vector<HostTensor> outputs;
    std::vector<void*> outputAddresses;
    for (int32_t i = 0;; ++i)
    {
        std::string const name = "output" + std::to_string(i);
        if (engine->getTensorIOMode(name.c_str()) != TensorIOMode::kOUTPUT)
        {
            break;
        }
        Dims const dims = context->getTensorShape(name.c_str());
        outputs.push_back(zeros(Shape(dims.d, dims.d + dims.nbDims), engine->getTensorDataType(name.c_str())));
        outputAddresses.push_back(memory.place(outputs.back()));
        context->setTensorAddress(name.c_str(), outputAddresses.back());
    }
    bool const ran = context->enqueueV3(nullptr);
    if (errors != nullptr)
    {
        *errors = logger.errors();
    }
    if (!ran)
    {
        EXPECT_TRUE(errors != nullptr) << "running " << call.name << " failed:\n" << logger.errors();
        return {};
    }
    for (size_t i = 0; i < outputs.size(); ++i)
    {
        memory.fetch(outputAddresses[i], outputs[i]);
    }
    checkPlanInAnotherProcess(backend, call.name, call.version, *plan, inputs, outputs);
    return outputs;
}

} // namespace

std::vector<HostTensor> runPlugin(
    kiln::Backend backend, PluginCall& call, std::vector<HostTensor> const& inputs, bool fp16, std::string* errors)
{
    return runPluginWith(backend, call, inputs, fp16, {}, errors);
}

std::vector<HostTensor> runInt8Plugin(kiln::Backend backend, PluginCall& call, std::vector<HostTensor> const& inputs,
    std::vector<float> const& int8Scales, std::string* errors)
{
    return runPluginWith(backend, call, inputs, false, int8Scales, errors);
}

std::string creationErrors(PluginCall& call)
{
    registerCollection();
    RecordingLogger logger;
    kiln::setLogger(&logger);
    PluginLayerMaker maker(call);
    bool const created = maker.create();
    kiln::setLogger(nullptr);
    std::string const errors = logger.errors();
    return created ? "" : (errors.empty() ? "(refused without an error message)" : errors);
}

} // namespace kiln::test
