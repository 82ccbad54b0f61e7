// Benchmark: the host time enqueueV3 spends per layer, on a network of many tiny layers (a [1, 8] tensor through
// activations, element-wise sums and shuffles), so that the layers' own work is negligible and what is measured is
// the engine's per-layer path: the loop over the layers, the views handed to the backend, the dispatch. Prints
// figures; CTest never runs it. bench/README.md says how to run it.
#include "allocation_counter.h"
#include "latency_stats.h"
#include "machine_facts.h"

#include <NvInfer.h>
#include <kiln/Backend.h>
#include <kiln/CpuBackend.h>

#if KILN_WITH_CUDA
#include "host_path_floor.h"

#include <cuda_runtime_api.h>
#endif

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace
{

using namespace nvinfer1;
using Clock = std::chrono::steady_clock;

constexpr int64_t kWidth = 8; // the tensor is [1, kWidth]

struct Options
{
    long layers{1000};
    long runs{500};
    long warmup{20};
    kiln::Backend backend{kiln::Backend::kCPU};
    kiln::CpuKernels cpuKernels{kiln::CpuKernels::kFAST};
    bool activationsOnly{false}; //!< every layer an activation: kernels that allocate nothing on the CPU
    long threads{0};             //!< the CPU context's threads; 0: the cores available
};

class StderrLogger final : public ILogger
{
public:
    void log(Severity severity, char const* message) noexcept override
    {
        if (severity <= Severity::kWARNING)
        {
            std::fprintf(stderr, "kiln: %s\n", message);
        }
    }
};

void printUsage(std::FILE* stream, char const* program)
{
    std::fprintf(stream,
        "usage: %s [--backend=cpu|cuda] [--layers=N] [--runs=N] [--warmup=N] [--cpuKernels=fast|reference]\n"
        "          [--layerKinds=mixed|activations] [--threads=N]\n"
        "  --backend     the backend the plan is built for and runs on (default cpu)\n"
        "  --layers      layers of the network as defined (default 1000); the plan's count is printed too\n"
        "  --runs        timed enqueueV3 calls (default 500); the median and minimum are reported\n"
        "  --warmup      untimed calls before them (default 20)\n"
        "  --cpuKernels  the CPU backend's kernels (default fast)\n"
        "  --layerKinds  mixed: activations, sums and shuffles (default); activations: only activations\n"
        "  --threads     the CPU context's threads (default 0: the cores available)\n",
        program);
}

bool parseCount(std::string const& text, long low, long high, long& value)
{
    char* end = nullptr;
    value = std::strtol(text.c_str(), &end, 10);
    return end != text.c_str() && *end == '\0' && value >= low && value <= high;
}

//! False (after printing why) when the command line is not understood.
bool parseOptions(int argc, char** argv, Options& options, bool& helpOnly)
{
    helpOnly = false;
    for (int i = 1; i < argc; ++i)
    {
        std::string const argument = argv[i];
        if (argument == "--help" || argument == "-h")
        {
            helpOnly = true;
            return true;
        }
        auto const equals = argument.find('=');
        std::string const flag = argument.substr(0, equals);
        std::string const value = equals == std::string::npos ? std::string() : argument.substr(equals + 1);
        bool ok = false;
        if (flag == "--backend")
        {
            ok = value == "cpu" || value == "cuda";
            options.backend = value == "cuda" ? kiln::Backend::kCUDA : kiln::Backend::kCPU;
        }
        else if (flag == "--cpuKernels")
        {
            ok = value == "fast" || value == "reference";
            options.cpuKernels = value == "reference" ? kiln::CpuKernels::kREFERENCE : kiln::CpuKernels::kFAST;
        }
        else if (flag == "--layerKinds")
        {
            ok = value == "mixed" || value == "activations";
            options.activationsOnly = value == "activations";
        }
        else if (flag == "--threads")
        {
            ok = parseCount(value, 0, 1024, options.threads);
        }
        else if (flag == "--layers")
        {
            ok = parseCount(value, 1, 100000, options.layers);
        }
        else if (flag == "--runs")
        {
            ok = parseCount(value, 1, 10000000, options.runs);
        }
        else if (flag == "--warmup")
        {
            ok = parseCount(value, 0, 10000000, options.warmup);
        }
        else
        {
            std::fprintf(stderr, "unknown option %s\n", argument.c_str());
            return false;
        }
        if (!ok)
        {
            std::fprintf(stderr, "bad value for %s: \"%s\"\n", flag.c_str(), value.c_str());
            return false;
        }
    }
    return true;
}

//! The kind of layer `i`: 0 an activation (ReLU where i % 8 == 0, else sigmoid), 1 a sum with the input, 2 and 3
//! shuffles to [kWidth, 1] and back.
int kindOf(long i, bool activationsOnly)
{
    return activationsOnly ? 0 : static_cast<int>(i % 4);
}

//! y = x, then `layers` layers cycling through: ReLU (or sigmoid), y + x, a shuffle to [kWidth, 1] and back (or only
//! activations). Each sum reads the network's input as well as the chain, so no two consecutive layers are only each
//! other's.
bool defineNetwork(INetworkDefinition& network, long layers, bool activationsOnly)
{
    ITensor* x = network.addInput("x", DataType::kFLOAT, Dims2{1, kWidth});
    ITensor* y = x;
    for (long i = 0; i < layers && y != nullptr; ++i)
    {
        ILayer* layer = nullptr;
        switch (kindOf(i, activationsOnly))
        {
        case 0: layer = network.addActivation(*y, i % 8 == 0 ? ActivationType::kRELU : ActivationType::kSIGMOID); break;
        case 1: layer = network.addElementWise(*y, *x, ElementWiseOperation::kSUM); break;
        default:
        {
            IShuffleLayer* shuffle = network.addShuffle(*y);
            if (shuffle != nullptr)
            {
                shuffle->setReshapeDimensions(i % 4 == 2 ? Dims2{kWidth, 1} : Dims2{1, kWidth});
            }
            layer = shuffle;
        }
        }
        y = layer != nullptr ? layer->getOutput(0) : nullptr;
    }
    if (y == nullptr)
    {
        return false;
    }
    if (!activationsOnly && layers % 4 == 3)
    {
        // The chain ends shaped [kWidth, 1]: one more shuffle so the output is [1, kWidth] like the input.
        IShuffleLayer* shuffle = network.addShuffle(*y);
        shuffle->setReshapeDimensions(Dims2{1, kWidth});
        y = shuffle->getOutput(0);
    }
    y->setName("y");
    network.markOutput(*y);
    return true;
}

//! Two buffers of kWidth floats in the backend's memory, and the stream enqueueV3 takes.
class Buffers
{
public:
    explicit Buffers(kiln::Backend backend)
        : mBackend(backend)
    {
        if (backend == kiln::Backend::kCPU)
        {
            mHost.assign(2 * kWidth, 0.5F);
            mInput = mHost.data();
            mOutput = mHost.data() + kWidth;
            return;
        }
#if KILN_WITH_CUDA
        void* memory = nullptr;
        if (cudaMalloc(&memory, 2 * kWidth * sizeof(float)) != cudaSuccess || cudaStreamCreate(&mStream) != cudaSuccess)
        {
            std::fprintf(stderr, "could not allocate device memory or a stream\n");
            std::exit(3);
        }
        std::vector<float> const halves(kWidth, 0.5F);
        cudaMemcpy(memory, halves.data(), kWidth * sizeof(float), cudaMemcpyHostToDevice);
        mInput = static_cast<float*>(memory);
        mOutput = mInput + kWidth;
#endif
    }
    ~Buffers()
    {
#if KILN_WITH_CUDA
        if (mBackend == kiln::Backend::kCUDA)
        {
            cudaFree(mInput);
            cudaStreamDestroy(mStream);
        }
#endif
    }
    Buffers(Buffers const&) = delete;
    Buffers& operator=(Buffers const&) = delete;

    float* input() const
    {
        return mInput;
    }
    float* output() const
    {
        return mOutput;
    }
    cudaStream_t stream() const
    {
        return mStream;
    }
    //! Waits for the queued work, outside the timed calls.
    void wait() const
    {
#if KILN_WITH_CUDA
        if (mBackend == kiln::Backend::kCUDA)
        {
            cudaStreamSynchronize(mStream);
        }
#endif
    }
    //! The first output value, to check that the network ran.
    float firstOutput() const
    {
        float value = NAN;
#if KILN_WITH_CUDA
        if (mBackend == kiln::Backend::kCUDA)
        {
            cudaMemcpy(&value, mOutput, sizeof(float), cudaMemcpyDeviceToHost);
            return value;
        }
#endif
        value = mOutput[0];
        return value;
    }

private:
    kiln::Backend mBackend;
    std::vector<float> mHost;
    float* mInput{nullptr};
    float* mOutput{nullptr};
    cudaStream_t mStream{nullptr};
};

//! What the network computes on inputs of 0.5, in double precision, to check the output.
double expectedOutput(long layers, bool activationsOnly)
{
    double y = 0.5;
    for (long i = 0; i < layers; ++i)
    {
        int const kind = kindOf(i, activationsOnly);
        if (kind == 0)
        {
            y = i % 8 == 0 ? std::max(y, 0.0) : 1.0 / (1.0 + std::exp(-y));
        }
        else if (kind == 1)
        {
            y += 0.5;
        }
    }
    return y;
}

} // namespace

int main(int argc, char** argv)
{
    Options options;
    bool helpOnly = false;
    if (!parseOptions(argc, argv, options, helpOnly))
    {
        printUsage(stderr, argv[0]);
        return 2;
    }
    if (helpOnly)
    {
        printUsage(stdout, argv[0]);
        return 0;
    }
    if (!kiln::backendAvailable(options.backend))
    {
        std::fprintf(stderr, "the %s backend is not available here\n", kiln::backendName(options.backend));
        return 3;
    }
    StderrLogger logger;
    std::unique_ptr<IBuilder> builder(createInferBuilder(logger));
    std::unique_ptr<INetworkDefinition> network(builder->createNetworkV2(0));
    std::unique_ptr<IBuilderConfig> config(builder->createBuilderConfig());
    kiln::setBackend(*config, options.backend);
    kiln::setCpuKernels(*config, options.cpuKernels);
    if (!defineNetwork(*network, options.layers, options.activationsOnly))
    {
        std::fprintf(stderr, "could not define the network\n");
        return 3;
    }
    std::unique_ptr<IHostMemory> plan(builder->buildSerializedNetwork(*network, *config));
    std::unique_ptr<IRuntime> runtime(createInferRuntime(logger));
    std::unique_ptr<ICudaEngine> engine(plan ? runtime->deserializeCudaEngine(plan->data(), plan->size()) : nullptr);
    std::unique_ptr<IExecutionContext> context(engine ? engine->createExecutionContext() : nullptr);
    if (context == nullptr)
    {
        std::fprintf(stderr, "could not build or load the network\n");
        return 3;
    }
    if (options.backend == kiln::Backend::kCPU && !kiln::setCpuThreads(*context, static_cast<int32_t>(options.threads)))
    {
        return 3;
    }
    Buffers buffers(options.backend);
    context->setTensorAddress("x", buffers.input());
    context->setTensorAddress("y", buffers.output());

    std::vector<double> timesMs;
    timesMs.reserve(static_cast<size_t>(options.runs));
    uint64_t timedAllocations = 0; // operator new calls within the timed enqueueV3 calls
    for (long run = 0; run < options.warmup + options.runs; ++run)
    {
        uint64_t const allocationsBefore = kiln_bench::allocationCount();
        Clock::time_point const start = Clock::now();
        bool const ok = context->enqueueV3(buffers.stream());
        Clock::time_point const end = Clock::now();
        uint64_t const allocations = kiln_bench::allocationCount() - allocationsBefore;
        buffers.wait();
        if (!ok)
        {
            std::fprintf(stderr, "enqueueV3 failed\n");
            return 3;
        }
        if (run >= options.warmup)
        {
            timesMs.push_back(std::chrono::duration<double, std::milli>(end - start).count());
            timedAllocations += allocations;
        }
    }
    double const expected = expectedOutput(options.layers, options.activationsOnly);
    float const actual = buffers.firstOutput();
    if (!(std::fabs(actual - expected) <= 1e-4 * std::max(1.0, std::fabs(expected))))
    {
        std::fprintf(stderr, "wrong output: %.6f, expected %.6f\n", actual, expected);
        return 1;
    }

    kiln_bench::MachineFacts const machine = kiln_bench::collectMachineFacts();
    kiln_bench::LatencySummary const summary = kiln_bench::summarize(timesMs);
    int32_t const planLayers = engine->getNbLayers();
    std::printf("machine: %s, %u logical cores, load average %s\n", machine.cpuModel.c_str(), machine.logicalCores,
        machine.loadAverage.c_str());
    std::printf("build: %s, %s\n", machine.buildType.c_str(), machine.compiler.c_str());
    if (options.backend == kiln::Backend::kCPU)
    {
        std::printf("backend: cpu (%s kernels, threads %ld)\n",
            options.cpuKernels == kiln::CpuKernels::kFAST ? "fast" : "reference", options.threads);
    }
    else
    {
        std::printf("backend: %s\n", kiln::backendName(options.backend));
    }
    std::printf("layers: %ld defined (%s), %d in the plan\n", options.layers,
        options.activationsOnly ? "activations" : "activations, sums, shuffles", planLayers);
    std::printf("enqueueV3 host time over %d runs: median %.3f ms, min %.3f ms\n", summary.runs, summary.medianMs,
        summary.minMs);
    std::printf("per plan layer: median %.3f us, min %.3f us\n", summary.medianMs * 1000.0 / planLayers,
        summary.minMs * 1000.0 / planLayers);
    double const allocationsPerRun = static_cast<double>(timedAllocations) / static_cast<double>(options.runs);
    std::printf("heap allocations (operator new) per enqueueV3: %.1f, per plan layer: %.2f\n", allocationsPerRun,
        allocationsPerRun / planLayers);
#if KILN_WITH_CUDA
    if (options.backend == kiln::Backend::kCUDA)
    {
        kiln_bench::HostFloors const floors = kiln_bench::measureHostFloors(buffers.stream());
        std::printf("host time of one CUDA call here (median): kernel launch + cudaGetLastError %.3f us, the same "
                    "with a 2 KB argument %.3f us, cudaMemcpyAsync device to device %.3f us, cudaGetLastError %.3f "
                    "us\n",
            floors.launchUs, floors.largeArgumentLaunchUs, floors.copyUs, floors.lastErrorUs);
    }
#endif
    return 0;
}
