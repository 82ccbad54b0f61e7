#include "model_runner.h"

#include "data_dependent_output.h" // the kiln command's
#include "plan/plan_format.h"

#include <NvInfer.h>
#include <NvInferPlugin.h>
#include <NvOnnxParser.h>
#include <kiln/CpuBackend.h>

#ifdef KILN_RUN_MODEL_CUDA
#include <cuda_runtime_api.h>
#endif

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace kiln::test
{
namespace
{

nvinfer1::Dims dimsOf(HostTensor const& array)
{
    nvinfer1::Dims dims{};
    dims.nbDims = static_cast<int32_t>(array.shape.size());
    for (int32_t d = 0; d < dims.nbDims; ++d)
    {
        dims.d[d] = array.shape[static_cast<size_t>(d)];
    }
    return dims;
}

// Prints warnings and errors to stderr, as trtexec does, and keeps the errors for ModelRun::error.
class RecordingLogger : public nvinfer1::ILogger
{
public:
    void log(Severity severity, char const* message) noexcept override
    {
        if (severity <= Severity::kWARNING)
        {
            std::fprintf(stderr, "%s\n", message);
        }
        if (severity <= Severity::kERROR)
        {
            errors += std::string(message) + "\n";
        }
    }

    std::string errors;
};

// ---- Tensor memory -------------------------------------------------------------------------------------------------
// Where the engine reads its inputs and writes its outputs, and how the run is enqueued: host memory on the CPU
// backend; device memory on the CUDA backend, as in TensorRT.

class TensorMemory
{
public:
    virtual ~TensorMemory() = default;
    //! The address to bind for an input. Shape-tensor inputs are read on the host by every backend.
    virtual void const* input(HostTensor const& host, bool isShapeTensor) = 0;
    //! The address to bind for an output; after run() its values are in `host`.
    virtual void* output(HostTensor& host) = 0;
    virtual bool run(nvinfer1::IExecutionContext& context) = 0;
};

// The CPU backend reads and writes the host arrays themselves.
class HostMemory final : public TensorMemory
{
public:
    void const* input(HostTensor const& host, bool) override
    {
        return host.bytes.data();
    }
    void* output(HostTensor& host) override
    {
        return host.bytes.data();
    }
    bool run(nvinfer1::IExecutionContext& context) override
    {
        return context.enqueueV3(nullptr);
    }
};

#ifdef KILN_RUN_MODEL_CUDA
// ---- Device buffers (builds with the CUDA backend only) ------------------------------------------------------------
// Inputs are copied to the device before the run and outputs back after it. CUDA errors throw; main prints them and
// exits 1.

void check(cudaError_t status, char const* what)
{
    if (status != cudaSuccess)
    {
        throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(status));
    }
}

// Why this machine has no GPU to run on, or empty when it has one.
std::string whyNoGpu()
{
    int count = 0;
    cudaError_t const status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess)
    {
        return std::string("no usable CUDA GPU (cudaGetDeviceCount: ") + cudaGetErrorString(status) + ")";
    }
    return count == 0 ? "no CUDA GPU on this machine" : "";
}

// Owns the device copies of one run's inputs and outputs and frees them however the run ends.
class DeviceBuffers final : public TensorMemory
{
public:
    DeviceBuffers() = default;
    DeviceBuffers(DeviceBuffers const&) = delete;
    DeviceBuffers& operator=(DeviceBuffers const&) = delete;
    ~DeviceBuffers() override
    {
        for (void* buffer : mBuffers)
        {
            cudaFree(buffer);
        }
    }

    void const* input(HostTensor const& host, bool isShapeTensor) override
    {
        if (isShapeTensor)
        {
            return host.bytes.data();
        }
        void* device = allocate(host.bytes.size());
        check(cudaMemcpy(device, host.bytes.data(), host.bytes.size(), cudaMemcpyHostToDevice), "copying an input");
        return device;
    }

    void* output(HostTensor& host) override
    {
        void* device = allocate(host.bytes.size());
        mOutputs.emplace_back(device, &host);
        return device;
    }

    // Runs on a stream of its own, waits for it, and copies the outputs back.
    bool run(nvinfer1::IExecutionContext& context) override
    {
        cudaStream_t stream = nullptr;
        check(cudaStreamCreate(&stream), "cudaStreamCreate");
        bool const enqueued = context.enqueueV3(stream);
        cudaError_t const finished = cudaStreamSynchronize(stream);
        cudaStreamDestroy(stream);
        check(finished, "waiting for the run");
        if (!enqueued)
        {
            return false;
        }
        for (auto const& [device, host] : mOutputs)
        {
            check(cudaMemcpy(host->bytes.data(), device, host->bytes.size(), cudaMemcpyDeviceToHost),
                "copying an output");
        }
        return true;
    }

private:
    void* allocate(size_t bytes)
    {
        void* device = nullptr;
        if (bytes > 0) // an empty tensor keeps a null address, which Kiln accepts for it
        {
            check(cudaMalloc(&device, bytes), "cudaMalloc");
            mBuffers.push_back(device);
        }
        return device;
    }

    std::vector<void*> mBuffers;
    std::vector<std::pair<void*, HostTensor*>> mOutputs;
};
#endif // KILN_RUN_MODEL_CUDA

// The memory for `backend`, or null with `why` it cannot run here.
std::unique_ptr<TensorMemory> memoryFor(kiln::Backend backend, std::string& why)
{
    if (backend != kiln::Backend::kCUDA)
    {
        return std::make_unique<HostMemory>();
    }
#ifdef KILN_RUN_MODEL_CUDA
    why = whyNoGpu();
    if (why.empty())
    {
        return std::make_unique<DeviceBuffers>();
    }
#else
    why = "this build of Kiln has no CUDA backend (configure with KILN_CUDA=ON)";
#endif
    return nullptr;
}

// The builder's configuration: `backend`, and the inputs' shapes as the profile's only shapes.
void configure(nvinfer1::IBuilder& builder, nvinfer1::INetworkDefinition const& network,
    std::vector<HostTensor> const& inputs, kiln::Backend backend, nvinfer1::IBuilderConfig& config)
{
    kiln::setBackend(config, backend);
    nvinfer1::IOptimizationProfile* profile = builder.createOptimizationProfile();
    for (int32_t i = 0; i < network.getNbInputs(); ++i)
    {
        char const* name = network.getInput(i)->getName();
        for (auto selector : {nvinfer1::OptProfileSelector::kMIN, nvinfer1::OptProfileSelector::kOPT,
                 nvinfer1::OptProfileSelector::kMAX})
        {
            profile->setDimensions(name, selector, dimsOf(inputs[static_cast<size_t>(i)]));
        }
    }
    config.addOptimizationProfile(profile);
}

// An output whose extent depends on values (NonZero's count) is -1 until a run: it is received through an
// IOutputAllocator bound to memory of its largest size (getMaxOutputSize), as TensorRT requires.
bool isDataDependent(nvinfer1::Dims const& dims)
{
    return std::any_of(dims.d, dims.d + std::max(dims.nbDims, 0), [](int64_t extent) { return extent < 0; });
}

// Binds the inputs and outputs (in the network's order) and runs once; false with ModelRun::error if a binding or
// the run fails.
bool execute(nvinfer1::INetworkDefinition const& network, nvinfer1::ICudaEngine const& engine,
    nvinfer1::IExecutionContext& context, std::vector<HostTensor> const& inputs, TensorMemory& memory, ModelRun& result)
{
    for (int32_t i = 0; i < network.getNbInputs(); ++i)
    {
        char const* name = network.getInput(i)->getName();
        HostTensor const& host = inputs[static_cast<size_t>(i)];
        if (!context.setInputShape(name, dimsOf(host))
            || !context.setInputTensorAddress(name, memory.input(host, engine.isShapeInferenceIO(name))))
        {
            result.error += std::string("input ") + name + " was not accepted\n";
            return false;
        }
    }
    result.outputs.resize(static_cast<size_t>(network.getNbOutputs()));
    std::vector<std::unique_ptr<kiln::cli::DataDependentOutput>> allocators(result.outputs.size());
    for (size_t i = 0; i < result.outputs.size(); ++i)
    {
        char const* name = network.getOutput(static_cast<int32_t>(i))->getName();
        nvinfer1::Dims const dims = context.getTensorShape(name);
        HostTensor& output = result.outputs[i];
        if (!isDataDependent(dims))
        {
            output = zeros(kiln::Shape(dims.d, dims.d + std::max(dims.nbDims, 0)), engine.getTensorDataType(name));
            context.setTensorAddress(name, memory.output(output));
            continue;
        }
        int64_t const largest = context.getMaxOutputSize(name);
        output = zeros(kiln::Shape{largest / static_cast<int64_t>(elementSize(engine.getTensorDataType(name)))},
            engine.getTensorDataType(name));
        allocators[i]
            = std::make_unique<kiln::cli::DataDependentOutput>(memory.output(output), static_cast<uint64_t>(largest));
        context.setOutputAllocator(name, allocators[i].get());
    }
    if (!memory.run(context))
    {
        result.error += "the run failed\n";
        return false;
    }
    for (size_t i = 0; i < result.outputs.size(); ++i)
    {
        if (allocators[i] != nullptr) // keep the part the run wrote, in the shape it told
        {
            nvinfer1::Dims const& told = allocators[i]->shape();
            result.outputs[i].shape.assign(told.d, told.d + std::max(told.nbDims, 0));
            result.outputs[i].bytes.resize(
                static_cast<size_t>(volume(result.outputs[i].shape)) * elementSize(result.outputs[i].type));
        }
    }
    return true;
}

//! `plan` changed by `rewrite`: read, changed and written again.
std::vector<uint8_t> rewritten(nvinfer1::IHostMemory const& plan, PlanRewrite const& rewrite, std::string& error)
{
    plan::PlanModel model;
    if (!plan::readPlan(plan.data(), plan.size(), model, error))
    {
        return {};
    }
    rewrite(model);
    return plan::writePlan(model);
}

ModelRun runOrThrow(std::string const& modelPath, std::vector<HostTensor> const& inputs, kiln::Backend backend,
    PlanRewrite const& rewrite, std::vector<nvinfer1::BuilderFlag> const& flags)
{
    ModelRun result;
    // Asked first, so that a machine that cannot run the backend skips before any work.
    std::unique_ptr<TensorMemory> memory = memoryFor(backend, result.error);
    if (!memory)
    {
        result.skipped = true;
        return result;
    }
    RecordingLogger logger;
    // As an application linking libnvinfer_plugin does, once: models that name NVIDIA's standard plugins find Kiln's.
    static bool const pluginsRegistered = initLibNvInferPlugins(nullptr, "");
    (void) pluginsRegistered;
    std::unique_ptr<nvinfer1::IBuilder> builder{nvinfer1::createInferBuilder(logger)};
    std::unique_ptr<nvinfer1::INetworkDefinition> network{builder->createNetworkV2(0)};
    std::unique_ptr<nvonnxparser::IParser> parser{nvonnxparser::createParser(*network, logger)};
    if (!parser->parseFromFile(modelPath.c_str(), static_cast<int32_t>(nvinfer1::ILogger::Severity::kWARNING)))
    {
        for (int32_t i = 0; i < parser->getNbErrors(); ++i)
        {
            result.error += std::string("parse error: ") + parser->getError(i)->desc() + "\n";
        }
        return result;
    }
    if (network->getNbInputs() != static_cast<int32_t>(inputs.size()))
    {
        result.error = "the model has " + std::to_string(network->getNbInputs()) + " inputs, "
            + std::to_string(inputs.size()) + " were given\n";
        return result;
    }
    std::unique_ptr<nvinfer1::IBuilderConfig> config{builder->createBuilderConfig()};
    configure(*builder, *network, inputs, backend, *config);
    for (nvinfer1::BuilderFlag const flag : flags)
    {
        config->setFlag(flag);
    }
    if (rewrite)
    {
        kiln::setCpuKernels(*config, kiln::CpuKernels::kREFERENCE); // a rewrite sees every layer as written
    }
    std::unique_ptr<nvinfer1::IHostMemory> plan{builder->buildSerializedNetwork(*network, *config)};
    std::vector<uint8_t> bytes;
    if (plan)
    {
        auto const* built = static_cast<uint8_t const*>(plan->data());
        bytes = rewrite ? rewritten(*plan, rewrite, result.error) : std::vector<uint8_t>(built, built + plan->size());
    }
    std::unique_ptr<nvinfer1::IRuntime> runtime{nvinfer1::createInferRuntime(logger)};
    std::unique_ptr<nvinfer1::ICudaEngine> engine{
        bytes.empty() ? nullptr : runtime->deserializeCudaEngine(bytes.data(), bytes.size())};
    std::unique_ptr<nvinfer1::IExecutionContext> context{engine ? engine->createExecutionContext() : nullptr};
    if (!context || !execute(*network, *engine, *context, inputs, *memory, result))
    {
        result.error = logger.errors + (plan ? "" : "the build failed\n") + result.error;
        result.outputs.clear();
    }
    return result;
}

} // namespace

ModelRun runOnnxModel(std::string const& modelPath, std::vector<HostTensor> const& inputs, kiln::Backend backend,
    PlanRewrite const& rewrite, std::vector<nvinfer1::BuilderFlag> const& flags)
{
    try
    {
        return runOrThrow(modelPath, inputs, backend, rewrite, flags);
    }
    catch (std::exception const& e)
    {
        ModelRun failed;
        failed.error = e.what();
        return failed;
    }
}

} // namespace kiln::test
