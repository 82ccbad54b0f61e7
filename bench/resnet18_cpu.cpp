// Benchmark: build time and CPU-backend inference latency of a ResNet-18-shaped network (random weights)
// built through TensorRT's network API, at batch 1 and 8. Prints figures and checks the output; it is
// not a test (CTest never runs it). bench/README.md says how to run it.
#include "latency_stats.h"
#include "machine_facts.h"
#include "output_checks.h"
#include "resnet18_network.h"
#include "seeded_random.h"

#include <NvInfer.h>
#include <kiln/Backend.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

namespace
{

using namespace nvinfer1;
using Clock = std::chrono::steady_clock;

constexpr char const* kInputName = "image";
constexpr char const* kOutputName = "logits";
constexpr int64_t kChannels = 3;
constexpr int64_t kImageSide = 224;
constexpr int64_t kImageSize = kChannels * kImageSide * kImageSide;
constexpr int64_t kLargeBatch = 8;

struct Options
{
    int runs{5};
    int warmup{1};
    uint32_t seed{18};
};

void printUsage(std::FILE* stream, char const* program)
{
    std::fprintf(stream,
        "usage: %s [--runs N] [--warmup N] [--seed N]\n"
        "  --runs N    timed inferences per batch size (default 5); the median and minimum are reported\n"
        "  --warmup N  untimed inferences before them (default 1)\n"
        "  --seed N    seed of the random weights and images (default 18)\n",
        program);
}

bool parseCount(char const* text, long low, long high, long& value)
{
    char* end = nullptr;
    value = std::strtol(text, &end, 10);
    return end != text && *end == '\0' && value >= low && value <= high;
}

//! False (after printing why) when the command line is not understood.
bool parseOptions(int argc, char** argv, Options& options, bool& helpOnly)
{
    helpOnly = false;
    for (int i = 1; i < argc; ++i)
    {
        std::string const flag = argv[i];
        if (flag == "--help" || flag == "-h")
        {
            helpOnly = true;
            return true;
        }
        long value = 0;
        bool const known = flag == "--runs" || flag == "--warmup" || flag == "--seed";
        if (!known || i + 1 >= argc)
        {
            std::fprintf(stderr, known ? "%s needs a value\n" : "unknown option %s\n", flag.c_str());
            return false;
        }
        char const* text = argv[++i];
        long const low = flag == "--runs" ? 1 : 0;
        long const high = flag == "--seed" ? static_cast<long>(std::numeric_limits<uint32_t>::max()) : 1'000'000;
        if (!parseCount(text, low, high, value))
        {
            std::fprintf(
                stderr, "%s takes a whole number from %ld to %ld, not \"%s\"\n", flag.c_str(), low, high, text);
            return false;
        }
        if (flag == "--runs")
        {
            options.runs = static_cast<int>(value);
        }
        else if (flag == "--warmup")
        {
            options.warmup = static_cast<int>(value);
        }
        else
        {
            options.seed = static_cast<uint32_t>(value);
        }
    }
    return true;
}

class StderrLogger : public ILogger
{
public:
    void log(Severity severity, char const* message) noexcept override
    {
        if (severity <= Severity::kWARNING)
        {
            std::fprintf(stderr, "[kiln %s] %s\n", severity == Severity::kWARNING ? "warning" : "error", message);
        }
    }
};

double millisecondsSince(Clock::time_point start)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

//! Image k has the same pixels whichever batch it is in and at whichever position, so outputs can be
//! compared across batch sizes. Values in [-1, 1), about the range of a normalized photograph.
std::vector<float> makeImages(int64_t firstImage, int64_t count, uint32_t seed)
{
    std::vector<float> pixels(static_cast<size_t>(count * kImageSize));
    for (int64_t k = 0; k < count; ++k)
    {
        kiln_bench::SeededRandom random(seed + 1U + static_cast<uint32_t>(firstImage + k));
        for (int64_t i = 0; i < kImageSize; ++i)
        {
            pixels[static_cast<size_t>(k * kImageSize + i)] = random.uniform(-1.0F, 1.0F);
        }
    }
    return pixels;
}

struct BuildFigures
{
    double defineMs{0.0}; //!< network API calls, including drawing the random weights
    double buildMs{0.0};  //!< buildSerializedNetwork
    double loadMs{0.0};   //!< deserializeCudaEngine + createExecutionContext
    size_t planBytes{0};
    int64_t parameters{0};
    int32_t layers{0};
};

struct Engine
{
    std::unique_ptr<IRuntime> runtime;
    std::unique_ptr<ICudaEngine> engine;
    std::unique_ptr<IExecutionContext> context;
};

//! One engine for both batch sizes, from a profile with a dynamic batch (min 1, opt 8, max 8): that is
//! how a TensorRT deployment serving both sizes is built, the build is paid once, and the check that
//! batch 1 and batch 8 agree then runs the same plan at two shapes, through the dynamic-shape path that
//! applications rely on.
bool buildEngine(ILogger& logger, uint32_t seed, Engine& out, BuildFigures& figures)
{
    Clock::time_point start = Clock::now();
    std::unique_ptr<IBuilder> builder(createInferBuilder(logger));
    std::unique_ptr<INetworkDefinition> network(builder ? builder->createNetworkV2(0) : nullptr);
    if (!network)
    {
        std::fprintf(stderr, "could not create a builder and network\n");
        return false;
    }
    // TensorRT's contract: the weights stay valid until the network is built (here, to the end of this function).
    kiln_bench::WeightStore weights;
    ITensor* input = network->addInput(kInputName, DataType::kFLOAT, Dims{4, {-1, kChannels, kImageSide, kImageSide}});
    ITensor* logits = input ? kiln_bench::addResNet18(*network, *input, weights, seed) : nullptr;
    if (logits == nullptr)
    {
        return false;
    }
    logits->setName(kOutputName);
    network->markOutput(*logits);
    figures.defineMs = millisecondsSince(start);
    figures.parameters = weights.valueCount();
    figures.layers = network->getNbLayers();

    std::unique_ptr<IBuilderConfig> config(builder->createBuilderConfig());
    if (!config || !kiln::setBackend(*config, kiln::Backend::kCPU))
    {
        std::fprintf(stderr, "could not select Kiln's CPU backend\n");
        return false;
    }
    IOptimizationProfile* profile = builder->createOptimizationProfile();
    Dims shape{4, {1, kChannels, kImageSide, kImageSide}};
    profile->setDimensions(kInputName, OptProfileSelector::kMIN, shape);
    shape.d[0] = kLargeBatch;
    profile->setDimensions(kInputName, OptProfileSelector::kOPT, shape);
    profile->setDimensions(kInputName, OptProfileSelector::kMAX, shape);
    if (config->addOptimizationProfile(profile) < 0)
    {
        std::fprintf(stderr, "the optimization profile was rejected\n");
        return false;
    }

    start = Clock::now();
    std::unique_ptr<IHostMemory> plan(builder->buildSerializedNetwork(*network, *config));
    figures.buildMs = millisecondsSince(start);
    if (!plan)
    {
        std::fprintf(stderr, "buildSerializedNetwork failed (the reason is logged above)\n");
        return false;
    }
    figures.planBytes = plan->size();

    start = Clock::now();
    out.runtime.reset(createInferRuntime(logger));
    out.engine.reset(out.runtime ? out.runtime->deserializeCudaEngine(plan->data(), plan->size()) : nullptr);
    out.context.reset(out.engine ? out.engine->createExecutionContext() : nullptr);
    figures.loadMs = millisecondsSince(start);
    if (!out.context)
    {
        std::fprintf(stderr, "could not load the plan and create an execution context\n");
        return false;
    }
    return true;
}

struct BatchRun
{
    kiln_bench::LatencySummary latency;
    //! Processor time this process used per run. On a shared machine, wall time includes waiting for a core;
    //! this does not. While Kiln's CPU backend runs on one thread, the two agree on an idle machine.
    kiln_bench::LatencySummary cpuTime;
    std::vector<float> logits; //!< from the last run
};

//! Runs the network on images [firstImage, firstImage + batch) warmup + runs times; times the last runs of them.
//! enqueueV3 on the CPU backend computes the whole network before it returns, so its duration is the latency.
bool runBatch(
    IExecutionContext& context, int64_t batch, int64_t firstImage, int warmup, int runs, uint32_t seed, BatchRun& out)
{
    if (!context.setInputShape(kInputName, Dims{4, {batch, kChannels, kImageSide, kImageSide}}))
    {
        std::fprintf(stderr, "batch %lld: setInputShape failed\n", static_cast<long long>(batch));
        return false;
    }
    Dims const outputShape = context.getTensorShape(kOutputName);
    if (outputShape.nbDims != 2 || outputShape.d[0] != batch || outputShape.d[1] != kiln_bench::kResNet18Classes)
    {
        std::fprintf(stderr, "batch %lld: the output shape is not [%lld, %lld]\n", static_cast<long long>(batch),
            static_cast<long long>(batch), static_cast<long long>(kiln_bench::kResNet18Classes));
        return false;
    }
    std::vector<float> images = makeImages(firstImage, batch, seed);
    out.logits.assign(static_cast<size_t>(batch * kiln_bench::kResNet18Classes), 0.0F);
    if (!context.setTensorAddress(kInputName, images.data())
        || !context.setTensorAddress(kOutputName, out.logits.data()))
    {
        std::fprintf(stderr, "batch %lld: setTensorAddress failed\n", static_cast<long long>(batch));
        return false;
    }
    std::vector<double> timings;
    std::vector<double> cpuTimings;
    for (int i = 0; i < warmup + runs; ++i)
    {
        // NaN in every slot first: a value the network fails to write then fails the finiteness check.
        std::fill(out.logits.begin(), out.logits.end(), std::numeric_limits<float>::quiet_NaN());
        std::clock_t const cpuStart = std::clock();
        Clock::time_point const start = Clock::now();
        if (!context.enqueueV3(nullptr))
        {
            std::fprintf(
                stderr, "batch %lld: enqueueV3 failed (the reason is logged above)\n", static_cast<long long>(batch));
            return false;
        }
        if (i >= warmup)
        {
            timings.push_back(millisecondsSince(start));
            cpuTimings.push_back(1000.0 * static_cast<double>(std::clock() - cpuStart) / CLOCKS_PER_SEC);
        }
    }
    out.latency = kiln_bench::summarize(timings);
    out.cpuTime = kiln_bench::summarize(cpuTimings);
    return true;
}

//! Prints and returns whether batch-1 logits of one image match its row in the batch-8 logits. Kiln's CPU
//! kernels compute each image in the same order whatever the batch, so today the difference is zero; the
//! tolerance allows for a kernel that groups its sums differently when the batch changes.
bool agrees(std::vector<float> const& single, std::vector<float> const& batched, int64_t row)
{
    int64_t const classes = kiln_bench::kResNet18Classes;
    float const difference = kiln_bench::maxAbsDifference(single.data(), batched.data() + row * classes, classes);
    kiln_bench::LogitsRange const range = kiln_bench::rangeOf(single);
    float const scale = std::max({1.0F, std::fabs(range.lowest), std::fabs(range.highest)});
    bool const ok = difference <= 1e-5F * scale;
    std::printf("  image %lld alone vs. row %lld of batch 8: max |difference| %.3g (%s)\n", static_cast<long long>(row),
        static_cast<long long>(row), static_cast<double>(difference), ok ? "ok" : "MISMATCH");
    return ok;
}

bool checkOutput(char const* what, std::vector<float> const& logits, int64_t batch)
{
    std::string const problem = kiln_bench::checkLogits(logits, batch, kiln_bench::kResNet18Classes);
    kiln_bench::LogitsRange const range = kiln_bench::rangeOf(logits);
    std::printf("  %s: shape [%lld, %lld], logits in [%.4g, %.4g]: %s\n", what, static_cast<long long>(batch),
        static_cast<long long>(kiln_bench::kResNet18Classes), static_cast<double>(range.lowest),
        static_cast<double>(range.highest), problem.empty() ? "finite, ok" : problem.c_str());
    return problem.empty();
}

void printMachine()
{
    kiln_bench::MachineFacts const facts = kiln_bench::collectMachineFacts();
    std::printf("Kiln ResNet-18 benchmark, CPU backend\n");
    std::printf("  CPU: %s, %u logical cores (std::thread::hardware_concurrency)\n", facts.cpuModel.c_str(),
        facts.logicalCores);
    if (!facts.loadAverage.empty())
    {
        std::printf("  load average at start (1, 5, 15 min): %s\n", facts.loadAverage.c_str());
    }
    std::printf("  build type: %s, compiler: %s\n", facts.buildType.c_str(), facts.compiler.c_str());
}

void printBuild(BuildFigures const& figures)
{
    std::printf("\nBuild (one engine, input [N, 3, 224, 224], profile N = 1 / 8 / 8)\n");
    std::printf("  layers: %d, parameters: %lld (torchvision resnet18: %lld)\n", figures.layers,
        static_cast<long long>(figures.parameters), static_cast<long long>(kiln_bench::kResNet18ParameterCount));
    std::printf("  network definition (API calls + random weights): %10.1f ms\n", figures.defineMs);
    std::printf("  buildSerializedNetwork:                          %10.1f ms\n", figures.buildMs);
    std::printf("  deserializeCudaEngine + createExecutionContext:  %10.1f ms\n", figures.loadMs);
    std::printf("  plan size: %zu bytes (%.1f MiB)\n", figures.planBytes,
        static_cast<double>(figures.planBytes) / (1024.0 * 1024.0));
}

void printLatency(int64_t batch, BatchRun const& run)
{
    double const imagesPerSecond = static_cast<double>(batch) * 1000.0 / run.latency.medianMs;
    std::printf("  %5lld | %11.1f | %11.1f | %14.2f | %16.1f | %4d\n", static_cast<long long>(batch),
        run.latency.medianMs, run.latency.minMs, imagesPerSecond, run.cpuTime.medianMs, run.latency.runs);
}

//! Says so when the runs waited for a core (wall time well above processor time): their latency then
//! measures the machine's load as much as Kiln.
void warnIfContended(int64_t batch, BatchRun const& run)
{
    if (run.cpuTime.medianMs < 0.9 * run.latency.medianMs)
    {
        std::printf("  note: the batch-%lld runs got %.0f%% of a core; other work on the machine inflated their"
                    " latency\n",
            static_cast<long long>(batch), 100.0 * run.cpuTime.medianMs / run.latency.medianMs);
    }
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
    printMachine();

    StderrLogger logger;
    Engine engine;
    BuildFigures build;
    if (!buildEngine(logger, options.seed, engine, build))
    {
        return 3;
    }
    printBuild(build);
    std::fflush(stdout);

    BatchRun single;
    BatchRun batched;
    BatchRun lastAlone;
    std::printf("\nRunning: %d warm-up + %d timed inferences per batch size ...\n", options.warmup, options.runs);
    std::fflush(stdout);
    bool ran = runBatch(*engine.context, 1, 0, options.warmup, options.runs, options.seed, single);
    ran = ran && runBatch(*engine.context, kLargeBatch, 0, options.warmup, options.runs, options.seed, batched);
    // The batch's last image alone as well: a batch-stride error shows up in the last row, not in the first.
    ran = ran && runBatch(*engine.context, 1, kLargeBatch - 1, 0, 1, options.seed, lastAlone);
    if (!ran)
    {
        return 3;
    }

    std::printf("\nInference (CPU backend, enqueueV3; %d timed runs after %d warm-up)\n", options.runs, options.warmup);
    std::printf("  batch | median (ms) |    min (ms) | images/s (med) | CPU ms/run (med) | runs\n");
    printLatency(1, single);
    printLatency(kLargeBatch, batched);
    warnIfContended(1, single);
    warnIfContended(kLargeBatch, batched);

    std::printf("\nChecks\n");
    bool ok = build.parameters == kiln_bench::kResNet18ParameterCount;
    std::printf("  parameter count matches torchvision's resnet18: %s\n", ok ? "ok" : "MISMATCH");
    ok = checkOutput("batch 1", single.logits, 1) && ok;
    ok = checkOutput("batch 8", batched.logits, kLargeBatch) && ok;
    ok = checkOutput("batch 1, last image", lastAlone.logits, 1) && ok;
    ok = agrees(single.logits, batched.logits, 0) && ok;
    ok = agrees(lastAlone.logits, batched.logits, kLargeBatch - 1) && ok;
    std::printf("%s\n", ok ? "All checks passed." : "CHECKS FAILED.");
    return ok ? 0 : 1;
}
