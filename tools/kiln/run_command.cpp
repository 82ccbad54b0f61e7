#include "run_command.h"

#include "cli_logger.h"
#include "context_buffers.h"
#include "engine_build.h"
#include "exports.h"
#include "input_data.h"
#include "layer_profiler.h"
#include "loaded_engine.h"
#include "options.h"
#include "performance_report.h"
#include "reference_compare.h"
#include "statistics.h"
#include "timing_loop.h"
#include "trtexec_flags.h"

#include "core/printable_text.h"

#include <NvInferVersion.h>
#include <kiln/Logging.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <fstream>
#include <new>

namespace kiln::cli
{
namespace
{

constexpr char const* kTestName = "Kiln.kiln [Kiln v" KILN_VERSION_STRING "]";

int finish(bool passed, std::string const& commandLine)
{
    std::fflush(stderr);
    std::printf("&&&& %s %s # %s\n", passed ? "PASSED" : "FAILED", kTestName, printableText(commandLine).c_str());
    std::fflush(stdout);
    return passed ? 0 : 1;
}

//! Says which accepted flags do nothing on the chosen backend, so nobody reads the numbers as if they did.
void noteIneffectiveFlags(Options const& o)
{
    for (std::string const& warning : o.flagWarnings)
    {
        logWarning(warning);
    }
    for (auto const& [set, flag] : {std::pair{o.useCudaGraph, "--useCudaGraph"},
             std::pair{o.noDataTransfers, "--noDataTransfers"}, std::pair{o.useSpinWait, "--useSpinWait"},
             std::pair{!o.timingCacheFile.empty(), "--timingCacheFile"}, std::pair{o.device != 0, "--device"},
             std::pair{o.convolutionLayout != kiln::ConvolutionLayout::kBY_TIMING, "--convolutionLayout"}})
    {
        if (set && o.backend != Backend::kCUDA)
        {
            logWarning(std::string(flag) + " has no effect on the CPU backend (accepted for trtexec compatibility)");
        }
    }
    for (PoolSize const& pool : o.memPoolSizes)
    {
        if (pool.pool != "workspace")
        {
            logWarning("--memPoolSize: the " + pool.pool + " pool has no effect in Kiln (there is no DLA)");
        }
    }
}

//! Labels each plugin layer in the profile with the plugin it runs.
void labelPluginLayers(nvinfer1::ICudaEngine const& engine, LayerProfiler& profiler)
{
    std::unique_ptr<nvinfer1::IEngineInspector> inspector(engine.createEngineInspector());
    if (inspector == nullptr)
    {
        return;
    }
    for (int32_t l = 0; l < engine.getNbLayers(); ++l)
    {
        char const* info = inspector->getLayerInformation(l, nvinfer1::LayerInformationFormat::kJSON);
        nlohmann::json const layer = nlohmann::json::parse(info ? info : "", nullptr, false);
        if (layer.is_object() && layer.contains("Plugin") && layer.contains("Name"))
        {
            profiler.setLabel(
                layer["Name"].get<std::string>(), "plugin " + layer["Plugin"].value("Name", std::string("?")));
        }
    }
}

bool savePlan(std::string const& path, void const* data, size_t size)
{
    std::ofstream file(path, std::ios::binary);
    if (!file.write(static_cast<char const*>(data), static_cast<std::streamsize>(size)))
    {
        logError("--saveEngine: cannot write \"" + path + "\"");
        return false;
    }
    logInfo("Engine saved to " + path);
    return true;
}

//! --getPlanVersionOnly: the plan file's versions, from its header alone (trtexec does not load the engine either).
bool printPlanVersion(std::string const& path)
{
    std::vector<uint8_t> plan;
    std::string error;
    std::string line;
    if (!readFile(path, "--loadEngine", plan, error) || !planVersionLine(plan, line, error))
    {
        logError(error);
        return false;
    }
    logInfo(line);
    return true;
}

//! --timeDeserialize: the plan of --loadEngine read once and deserialized once untimed (which loads what it needs),
//! then kDeserializations times more, each by a runtime of its own, and the times summarized. Nothing runs.
bool timeDeserialization(std::string const& path)
{
    constexpr int32_t kDeserializations = 10;
    std::vector<uint8_t> plan;
    std::string error;
    if (!readFile(path, "--loadEngine", plan, error))
    {
        logError(error);
        return false;
    }
    std::vector<double> milliseconds;
    for (int32_t i = -1; i < kDeserializations; ++i) // -1: the untimed first load
    {
        auto const start = std::chrono::steady_clock::now();
        LoadedEngine loaded;
        if (!loadEngine(plan.data(), plan.size(), path, loaded))
        {
            return false;
        }
        if (i >= 0)
        {
            milliseconds.push_back(
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
        }
    }
    Statistics const times = summarize(milliseconds, {});
    char line[256];
    std::snprintf(line, sizeof(line),
        "Deserialization of %zu bytes, %d times: median %.3f ms, min %.3f ms, max %.3f ms", plan.size(),
        kDeserializations, times.median, times.min, times.max);
    logInfo(line);
    return true;
}

//! --refit: the engine's refittable weights, each as its layer and role (and its name, where it has one).
bool listRefittableWeights(nvinfer1::ICudaEngine& engine)
{
    std::unique_ptr<nvinfer1::IRefitter> refitter{nvinfer1::createInferRefitter(engine, logger())};
    if (refitter == nullptr)
    {
        return false; // the refitter logged why
    }
    int32_t const count = refitter->getAll(0, nullptr, nullptr);
    std::vector<char const*> layers(static_cast<size_t>(count));
    std::vector<nvinfer1::WeightsRole> roles(static_cast<size_t>(count));
    refitter->getAll(count, layers.data(), roles.data());
    logInfo("Refittable weights: " + std::to_string(count) + " (" + std::to_string(refitter->getAllWeights(0, nullptr))
        + " named)");
    char const* const roleNames[] = {"kernel", "bias", "shift", "scale", "constant", "any"};
    for (size_t i = 0; i < layers.size(); ++i)
    {
        logVerbose(std::string("  ") + layers[i] + ": " + roleNames[static_cast<int32_t>(roles[i])]);
    }
    return true;
}

//! The plan built from --onnx, saved where --saveEngine says; nullptr (the error logged) where either fails.
std::unique_ptr<nvinfer1::IHostMemory> builtAndSaved(Options const& o)
{
    std::unique_ptr<nvinfer1::IHostMemory> plan
        = buildFromOnnx(o, BuildRequest{o.backend, o.fp16, false, /*showProgress=*/true, o.cpuKernels});
    if (plan == nullptr)
    {
        return nullptr;
    }
    logInfo("Engine built: " + std::to_string(plan->size()) + " bytes, for the " + std::string(backendName(o.backend))
        + " backend");
    if (!o.saveEngine.empty() && !savePlan(o.saveEngine, plan->data(), plan->size()))
    {
        return nullptr;
    }
    return plan;
}

//! The engine to run: loaded from --loadEngine, or built from --onnx (and saved with --saveEngine).
bool obtainEngine(Options const& o, LoadedEngine& loaded)
{
    std::string error;
    if (!o.loadEngine.empty())
    {
        std::vector<uint8_t> plan;
        if (!readFile(o.loadEngine, "--loadEngine", plan, error))
        {
            logError(error);
            return false;
        }
        logInfo("Loading the engine from " + o.loadEngine);
        return loadEngine(plan.data(), plan.size(), o.loadEngine, loaded)
            && (o.saveEngine.empty() || savePlan(o.saveEngine, plan.data(), plan.size()));
    }
    std::unique_ptr<nvinfer1::IHostMemory> const plan = builtAndSaved(o);
    return plan != nullptr && loadEngine(plan->data(), plan->size(), "the built plan", loaded);
}

//! Whether this command builds a CUDA plan on a machine where the CUDA backend cannot run (this build of Kiln has it,
//! no GPU is usable): --backend=cuda --skipInference from --onnx, nothing that needs the engine loaded. The builder
//! needs no GPU; loading a CUDA plan does.
bool buildsCudaPlanWithoutGpu(Options const& o)
{
    return o.backend == Backend::kCUDA && getNbBackendPasses(Backend::kCUDA) > 0 && !backendAvailable(Backend::kCUDA)
        && o.skipInference && o.loadEngine.empty();
}

//! --backend=cuda --skipInference without a GPU: the plan built and saved, not loaded. Its cuDNN and cuBLASLt
//! algorithms are untimed (their heuristics choose them when a context first runs on a GPU).
bool buildCudaPlanWithoutGpu(Options const& o)
{
    if (o.dumpLayerInfo || !o.exportLayerInfo.empty())
    {
        logError(std::string(o.dumpLayerInfo ? "--dumpLayerInfo" : "--exportLayerInfo")
            + ": the engine's layer information needs the plan loaded, and a CUDA plan loads only where a GPU is "
              "usable; save it (--saveEngine) and list its layers with `kiln inspect PLAN`");
        return false;
    }
    logWarning("--backend=cuda: no GPU is usable here; the CUDA plan is built with its cuDNN and cuBLASLt algorithms "
               "untimed (chosen by their heuristics when it first runs on a GPU), and not loaded");
    if (builtAndSaved(o) == nullptr)
    {
        return false;
    }
    logInfo("Skipped inference phase since --skipInference is added.");
    return true;
}

void logInputs(Options const& o, std::vector<HostTensor> const& inputs)
{
    for (HostTensor const& input : inputs)
    {
        bool const loaded = std::any_of(
            o.loadInputs.begin(), o.loadInputs.end(), [&](NameValue const& entry) { return entry.name == input.name; });
        logInfo("Input \"" + input.name + "\": " + trtexecTypeName(input.type) + " " + dimsSpec(input.dims)
            + (loaded ? " (from --loadInputs)" : " (random values)"));
    }
}

//! The measured loop (profiled unless --separateProfileRun), then the separate profiling run if asked for.
bool timeAndProfile(Options const& o, std::vector<ContextBuffers*> const& streams, LayerProfiler& profiler,
    TimingResult& timing, std::string& error)
{
    logInfo("Starting inference");
    bool const profileTimedRun = o.profiling() && !o.separateProfileRun;
    if (!runTimingLoop(streams, o, profileTimedRun ? &profiler : nullptr, timing, error))
    {
        return false;
    }
    if (!o.profiling() || !o.separateProfileRun)
    {
        return true;
    }
    // As many inferences as were timed, with the profiler attached.
    for (ContextBuffers* stream : streams)
    {
        stream->context().setProfiler(&profiler);
    }
    int32_t const runs = static_cast<int32_t>(timing.traces.size() / streams.size());
    return runInferences(streams, std::max(runs, 1), error);
}

//! The report, the profile, the dumps and the exports.
bool reportResults(Options const& o, TimingResult const& timing, LayerProfiler const& profiler,
    std::vector<HostTensor> const& outputs, std::string& error)
{
    printPerformanceReport(timing, o, o.backend);
    if (o.dumpProfile)
    {
        profiler.print();
    }
    if (o.dumpOutput)
    {
        dumpOutputs(outputs);
    }
    return (o.exportProfile.empty() || profiler.exportJson(o.exportProfile, error))
        && (o.exportTimes.empty() || exportTimes(o.exportTimes, timing.traces, error))
        && (o.exportOutput.empty() || exportOutputs(o.exportOutput, outputs, error));
}

bool runInference(Options const& o, nvinfer1::ICudaEngine& engine)
{
    std::string error;
    std::vector<HostTensor> inputs;
    if (!makeInputs(engine, o, inputs, error))
    {
        logError(error);
        return false;
    }
    logInputs(o, inputs);
    std::vector<ContextBuffers> buffers(static_cast<size_t>(o.infStreams));
    std::vector<ContextBuffers*> streams;
    StreamSettings const settings{
        o.backend, o.device, !o.noDataTransfers, o.useSpinWait, o.useCudaGraph, o.threads, o.fixedThreads};
    for (ContextBuffers& stream : buffers)
    {
        if (!stream.setUp(engine, inputs, settings, error))
        {
            logError(error);
            return false;
        }
        streams.push_back(&stream);
    }
    LayerProfiler profiler;
    labelPluginLayers(engine, profiler);
    TimingResult timing;
    bool const ran
        = (o.exportLayerInfo.empty() || exportLayerInfo(o.exportLayerInfo, engine, &buffers[0].context(), error))
        && (!o.dumpLayerInfo || dumpLayerInfo(engine, &buffers[0].context(), error))
        && timeAndProfile(o, streams, profiler, timing, error)
        && reportResults(o, timing, profiler, buffers[0].outputs(), error);
    if (!ran)
    {
        logError(error);
        return false;
    }
    return !o.compare || compareWithReference(o, inputs, buffers[0].outputs());
}

} // namespace

namespace
{

//! Everything after the flags are parsed: the plugins, the engine, the inference and the report.
bool runParsed(Options const& o)
{
    std::string error;
    bool const withoutGpu = buildsCudaPlanWithoutGpu(o);
    if (!backendAvailable(o.backend) && !withoutGpu)
    {
        bool const builds = getNbBackendPasses(Backend::kCUDA) > 0; // no GPU, but this Kiln has the CUDA backend
        logError("--backend=cuda: the CUDA backend is not available (this build of Kiln has no CUDA backend, or "
                 "no GPU was found); use --backend=cpu"
            + std::string(builds ? ", or --skipInference to build and save a CUDA plan without a GPU" : ""));
        return false;
    }
    noteIneffectiveFlags(o);
    kiln::setLogger(&logger()); // initLibNvInferPlugins and the registry report through it too
    if (!loadPluginLibraries(o.plugins))
    {
        return false;
    }
    if (o.getPlanVersionOnly)
    {
        return printPlanVersion(o.loadEngine);
    }
    if (withoutGpu)
    {
        return buildCudaPlanWithoutGpu(o);
    }
    if (o.timeDeserialize)
    {
        return timeDeserialization(o.loadEngine);
    }
    LoadedEngine loaded;
    if (!obtainEngine(o, loaded) || (o.refit && !listRefittableWeights(*loaded.engine)))
    {
        return false;
    }
    if (o.skipInference)
    {
        if ((!o.exportLayerInfo.empty() && !exportLayerInfo(o.exportLayerInfo, *loaded.engine, nullptr, error))
            || (o.dumpLayerInfo && !dumpLayerInfo(*loaded.engine, nullptr, error)))
        {
            logError(error);
            return false;
        }
        logInfo("Skipped inference phase since --skipInference is added.");
        return true;
    }
    return runInference(o, *loaded.engine);
}

} // namespace

int runMainCommand(int argc, char** argv)
{
    Options o;
    std::string error;
    ParseOutcome const outcome = parseOptions(argc, argv, o, error);
    if (outcome == ParseOutcome::kHELP)
    {
        return 0;
    }
    std::printf("&&&& RUNNING %s # %s\n", kTestName, printableText(o.commandLine).c_str());
    std::fflush(stdout);
    if (outcome == ParseOutcome::kERROR)
    {
        logError(error);
        return finish(false, o.commandLine);
    }
    logger().setVerbose(o.verbose);
    // The steps report what fails with the flag, file or tensor it concerns; this is the net under them, so that
    // nothing ends the command without its error and its FAILED line.
    try
    {
        return finish(runParsed(o), o.commandLine);
    }
    catch (std::bad_alloc const&)
    {
        logError("out of memory: an allocation failed (a tensor, a file or an output larger than this machine can "
                 "hold)");
    }
    catch (std::exception const& e)
    {
        logError(std::string("unexpected error: ") + e.what());
    }
    return finish(false, o.commandLine);
}

} // namespace kiln::cli
