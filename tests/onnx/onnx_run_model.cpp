// onnx_run_model MODEL DIR [--backend=cpu|cuda]: parses an ONNX model with Kiln's parser, builds it for the CPU
// backend (the default) or the CUDA backend, runs it on DIR/input_<i>.npy (network input i, in the graph's order)
// and writes DIR/output_<i>.npy. The Python tests in architectures/ compare those outputs with ONNX Runtime's.
// Exits 1 with the parser's, builder's or CUDA's errors, and 77 (CTest's skip code) when --backend=cuda cannot run
// here: a build without the CUDA backend, or no usable GPU.
#include "npy_file.h"

#include <NvInfer.h>
#include <NvOnnxParser.h>
#include <kiln/Backend.h>

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

namespace
{

constexpr int kSkip = 77; // the Python test and CTest report this exit code as "skipped"

class StderrLogger : public nvinfer1::ILogger
{
public:
    void log(Severity severity, char const* message) noexcept override
    {
        if (severity <= Severity::kWARNING)
        {
            std::fprintf(stderr, "%s\n", message);
        }
    }
};

nvinfer1::Dims dimsOf(kiln::test::HostTensor const& array)
{
    nvinfer1::Dims dims{};
    dims.nbDims = static_cast<int32_t>(array.shape.size());
    for (int32_t d = 0; d < dims.nbDims; ++d)
    {
        dims.d[d] = array.shape[static_cast<size_t>(d)];
    }
    return dims;
}

// ---- Tensor memory -------------------------------------------------------------------------------------------------
// Where the engine reads its inputs and writes its outputs, and how the run is enqueued: host memory on the CPU
// backend; device memory on the CUDA backend, as in TensorRT.

class TensorMemory
{
public:
    virtual ~TensorMemory() = default;
    //! The address to bind for an input. Shape-tensor inputs are read on the host by every backend.
    virtual void const* input(kiln::test::HostTensor const& host, bool isShapeTensor) = 0;
    //! The address to bind for an output; after run() its values are in `host`.
    virtual void* output(kiln::test::HostTensor& host) = 0;
    virtual bool run(nvinfer1::IExecutionContext& context) = 0;
};

// The CPU backend reads and writes the host arrays themselves.
class HostMemory final : public TensorMemory
{
public:
    void const* input(kiln::test::HostTensor const& host, bool) override
    {
        return host.bytes.data();
    }
    void* output(kiln::test::HostTensor& host) override
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

    void const* input(kiln::test::HostTensor const& host, bool isShapeTensor) override
    {
        if (isShapeTensor)
        {
            return host.bytes.data();
        }
        void* device = allocate(host.bytes.size());
        check(cudaMemcpy(device, host.bytes.data(), host.bytes.size(), cudaMemcpyHostToDevice), "copying an input");
        return device;
    }

    void* output(kiln::test::HostTensor& host) override
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
    std::vector<std::pair<void*, kiln::test::HostTensor*>> mOutputs;
};
#endif // KILN_RUN_MODEL_CUDA

// The memory for `backend`, or null after printing why it cannot run here (the caller exits kSkip).
std::unique_ptr<TensorMemory> memoryFor(kiln::Backend backend)
{
    if (backend != kiln::Backend::kCUDA)
    {
        return std::make_unique<HostMemory>();
    }
#ifdef KILN_RUN_MODEL_CUDA
    std::string const why = whyNoGpu();
    if (why.empty())
    {
        return std::make_unique<DeviceBuffers>();
    }
    std::fprintf(stderr, "--backend=cuda: %s\n", why.c_str());
#else
    std::fprintf(stderr, "--backend=cuda: this build of Kiln has no CUDA backend (configure with KILN_CUDA=ON)\n");
#endif
    return nullptr;
}

int run(std::string const& modelPath, std::string const& dir, kiln::Backend backend)
{
    // Asked first, so that a machine that cannot run the backend skips before any work.
    std::unique_ptr<TensorMemory> memory = memoryFor(backend);
    if (!memory)
    {
        return kSkip;
    }

    StderrLogger logger;
    std::unique_ptr<nvinfer1::IBuilder> builder{nvinfer1::createInferBuilder(logger)};
    std::unique_ptr<nvinfer1::INetworkDefinition> network{builder->createNetworkV2(0)};
    std::unique_ptr<nvonnxparser::IParser> parser{nvonnxparser::createParser(*network, logger)};
    if (!parser->parseFromFile(modelPath.c_str(), static_cast<int32_t>(nvinfer1::ILogger::Severity::kWARNING)))
    {
        for (int32_t i = 0; i < parser->getNbErrors(); ++i)
        {
            std::fprintf(stderr, "parse error: %s\n", parser->getError(i)->desc());
        }
        return 1;
    }
    std::vector<kiln::test::HostTensor> inputs;
    std::unique_ptr<nvinfer1::IBuilderConfig> config{builder->createBuilderConfig()};
    kiln::setBackend(*config, backend);
    nvinfer1::IOptimizationProfile* profile = builder->createOptimizationProfile();
    for (int32_t i = 0; i < network->getNbInputs(); ++i)
    {
        inputs.push_back(kiln::test::readNpy(dir + "/input_" + std::to_string(i) + ".npy"));
        // The given shape is the profile's only shape, for inputs with run-time extents.
        char const* name = network->getInput(i)->getName();
        for (auto selector : {nvinfer1::OptProfileSelector::kMIN, nvinfer1::OptProfileSelector::kOPT,
                 nvinfer1::OptProfileSelector::kMAX})
        {
            profile->setDimensions(name, selector, dimsOf(inputs.back()));
        }
    }
    config->addOptimizationProfile(profile);
    std::unique_ptr<nvinfer1::IHostMemory> plan{builder->buildSerializedNetwork(*network, *config)};
    if (!plan)
    {
        std::fprintf(stderr, "the build failed\n");
        return 1;
    }
    std::unique_ptr<nvinfer1::IRuntime> runtime{nvinfer1::createInferRuntime(logger)};
    std::unique_ptr<nvinfer1::ICudaEngine> engine{runtime->deserializeCudaEngine(plan->data(), plan->size())};
    std::unique_ptr<nvinfer1::IExecutionContext> context{engine ? engine->createExecutionContext() : nullptr};
    if (!context)
    {
        std::fprintf(stderr, "the plan did not load\n");
        return 1;
    }

    for (int32_t i = 0; i < network->getNbInputs(); ++i)
    {
        char const* name = network->getInput(i)->getName();
        kiln::test::HostTensor const& input = inputs[static_cast<size_t>(i)];
        if (!context->setInputShape(name, dimsOf(input))
            || !context->setInputTensorAddress(name, memory->input(input, engine->isShapeInferenceIO(name))))
        {
            std::fprintf(stderr, "input %d (%s) was not accepted\n", i, name);
            return 1;
        }
    }
    std::vector<kiln::test::HostTensor> outputs(static_cast<size_t>(network->getNbOutputs()));
    for (int32_t i = 0; i < network->getNbOutputs(); ++i)
    {
        char const* name = network->getOutput(i)->getName();
        nvinfer1::Dims const dims = context->getTensorShape(name);
        kiln::test::HostTensor& out = outputs[static_cast<size_t>(i)];
        kiln::Shape const shape(dims.d, dims.d + std::max(dims.nbDims, 0));
        out = kiln::test::zeros(shape, engine->getTensorDataType(name));
        context->setTensorAddress(name, memory->output(out));
    }

    if (!memory->run(*context))
    {
        std::fprintf(stderr, "the run failed\n");
        return 1;
    }
    for (size_t i = 0; i < outputs.size(); ++i)
    {
        kiln::test::writeNpy(dir + "/output_" + std::to_string(i) + ".npy", outputs[i]);
    }
    return 0;
}

} // namespace

int main(int argc, char** argv)
{
    kiln::Backend backend = kiln::Backend::kCPU;
    std::vector<std::string> positional;
    for (int i = 1; i < argc; ++i)
    {
        std::string const arg = argv[i];
        if (arg == "--backend=cpu")
        {
            backend = kiln::Backend::kCPU;
        }
        else if (arg == "--backend=cuda")
        {
            backend = kiln::Backend::kCUDA;
        }
        else if (arg.rfind("--", 0) != 0)
        {
            positional.push_back(arg);
        }
        else
        {
            positional.clear(); // an unknown option: print the usage
            break;
        }
    }
    if (positional.size() != 2)
    {
        std::fprintf(stderr, "usage: onnx_run_model MODEL.onnx DIR [--backend=cpu|cuda] (reads DIR/input_<i>.npy, "
                             "writes DIR/output_<i>.npy; the default backend is cpu)\n");
        return 2;
    }
    try
    {
        return run(positional[0], positional[1], backend);
    }
    catch (std::exception const& e)
    {
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
}
