#include "trtexec_flags.h"

#include "runtime/plan_description.h"
#include "spec_parsing.h"

#include <NvInferVersion.h>

#include <cstring>
#include <limits>
#include <map>
#include <sstream>

namespace kiln::cli
{
namespace
{

//! trtexec's flags that Kiln takes without acting on them (`refused` false: a warning says why) or refuses (unless
//! given `allowed`, the value that asks for what Kiln does).
struct OtherFlag
{
    char const* name;
    bool takesValue;
    bool refused;
    char const* allowed; //!< nullptr: every use is refused
    char const* why;
};

constexpr char const* kNotYet = "not supported yet";

constexpr OtherFlag kOtherFlags[] = {
    {"--heuristic", false, false, nullptr, "Kiln's builder times what it times; there is no heuristic mode to enable"},
    {"--allowGPUFallback", false, false, nullptr, "Kiln has no DLA, so every layer runs on the backend's device"},
    {"--tempdir", true, false, nullptr, "Kiln writes no temporary files"},
    {"--tempfileControls", true, false, nullptr, "Kiln writes no temporary files"},
    {"--noCompilationCache", false, false, nullptr, "Kiln compiles no kernels while building: there is no cache"},
    {"--exposeDMA", false, false, nullptr,
        "Kiln queues each inference's copies in its own stream, before and after its compute, always"},
    {"--useDLACore", true, true, nullptr, "Kiln has no DLA: its backends are CUDA GPUs and the CPU"},
    {"--safe", false, true, nullptr, "Kiln builds standard engines only; there is no safety runtime"},
    {"--consistency", false, true, nullptr, "Kiln builds standard engines only; there is no safety runtime"},
    {"--hardwareCompatibilityLevel", true, true, "none",
        "Kiln builds a plan for the GPU it times on; no compatibility level but none is offered"},
    {"--useRuntime", true, true, "full", "Kiln has one runtime, the full one; there is no lean or dispatch runtime"},
    {"--leanDLLPath", true, true, nullptr, "Kiln has one runtime; there is no lean runtime to load"},
    {"--excludeLeanRuntime", false, true, nullptr, "Kiln's plans embed no lean runtime"},
    {"--stripWeights", false, true, nullptr, "not supported yet: Kiln's plans hold their weights"},
    {"--allowWeightStreaming", false, true, nullptr, "not supported yet: an engine's weights stay in device memory"},
    {"--weightStreamingBudget", true, true, nullptr, "not supported yet: an engine's weights stay in device memory"},
    {"--setPluginsToSerialize", true, true, nullptr,
        "not supported yet: a plan names the plugins it needs (kiln inspect); load their libraries with --plugins"},
    {"--markDebug", true, true, nullptr,
        "not supported yet in the kiln command: mark debug tensors with INetworkDefinition::markDebug"},
    {"--directIO", false, true, nullptr, "not supported yet: I/O tensors keep the network's types, in linear layout"},
    {"--errorOnTimingCacheMiss", false, true, nullptr, kNotYet},
    {"--persistentCacheRatio", true, true, nullptr, kNotYet},
    {"--sleepTime", true, true, "0", "not supported yet: each inference starts when it is queued"},
    {"--useManagedMemory", false, true, nullptr,
        "not supported yet: inputs and outputs are separate host and device buffers"},
    {"--dumpRawBindingsToFile", false, true, nullptr, "not supported yet: --exportOutput writes the outputs (JSON)"},
    {"--timeRefit", false, true, nullptr, kNotYet},
    {"--dumpRefit", false, true, nullptr, "not supported yet: --refit lists the refittable weights"},
};

//! The refused flags that were given, each with why Kiln refuses it.
std::vector<std::string> refusals(TrtexecFlags const& f)
{
    std::vector<std::string> refused;
    auto const refuse = [&](bool given, char const* flag, char const* why) {
        if (given)
        {
            refused.push_back(std::string(flag) + ": " + why);
        }
    };
    refuse(f.versionCompatible, "--versionCompatible",
        "Kiln's plans are run by Kiln's own runtime; there is no lean runtime to embed in them");
    char const* const ioFormats = "not supported yet: Kiln's I/O tensors keep the types the network gives them, in "
                                  "linear layout";
    refuse(!f.inputIOFormats.empty(), "--inputIOFormats", ioFormats);
    refuse(!f.outputIOFormats.empty(), "--outputIOFormats", ioFormats);
    char const* const perLayer = "not supported yet: Kiln chooses each layer's precision from --fp16 (or "
                                 "--stronglyTyped) alone";
    refuse(!f.layerPrecisions.empty(), "--layerPrecisions", perLayer);
    refuse(!f.layerOutputTypes.empty(), "--layerOutputTypes", perLayer);
    refuse(!f.precisionConstraints.empty() && f.precisionConstraints != "none", "--precisionConstraints", perLayer);
    refuse(f.sparsity == "force", "--sparsity=force",
        "Kiln has no sparse kernels, so it would prune the weights to a 2:4 pattern for nothing");
    for (OtherFlag const& flag : kOtherFlags)
    {
        auto const given = f.others.find(flag.name);
        bool const allowed = given != f.others.end() && flag.allowed != nullptr && given->second == flag.allowed;
        refuse(flag.refused && given != f.others.end() && !allowed, flag.name, flag.why);
    }
    return refused;
}

//! --sparsity's spellings: disable (the default) or enable (kSPARSE_WEIGHTS); force is refused (refusals).
bool parseSparsity(std::string const& text, bool& sparseWeights, std::string& error)
{
    if (text != "disable" && text != "enable" && text != "force")
    {
        error = "--sparsity: \"" + text + "\" is not a mode; expected disable, enable or force";
        return false;
    }
    sparseWeights = text == "enable";
    return true;
}

bool parseOptimizationLevel(std::string const& text, int32_t& level, std::string& error)
{
    if (text.size() != 1 || text[0] < '0' || text[0] > '5')
    {
        error = "--builderOptimizationLevel: \"" + text + "\" is not a level; expected 0 to 5";
        return false;
    }
    level = text[0] - '0';
    return true;
}

bool parseProfilingVerbosity(std::string const& text, nvinfer1::ProfilingVerbosity& verbosity, std::string& error)
{
    // trtexec's spellings, "default" and "verbose" included.
    std::map<std::string, nvinfer1::ProfilingVerbosity> const names{
        {"layer_names_only", nvinfer1::ProfilingVerbosity::kLAYER_NAMES_ONLY},
        {"default", nvinfer1::ProfilingVerbosity::kLAYER_NAMES_ONLY},
        {"detailed", nvinfer1::ProfilingVerbosity::kDETAILED}, {"verbose", nvinfer1::ProfilingVerbosity::kDETAILED},
        {"none", nvinfer1::ProfilingVerbosity::kNONE}};
    auto const found = names.find(text);
    if (found == names.end())
    {
        error
            = "--profilingVerbosity: \"" + text + "\" is not a verbosity; expected layer_names_only, detailed or none";
        return false;
    }
    verbosity = found->second;
    return true;
}

//! "-CUDNN,+CUBLAS_LT": each source's name with + (allow) or - (disallow).
bool parseTacticSources(std::string const& text, std::vector<TacticSourceChange>& changes, std::string& error)
{
    std::map<std::string, nvinfer1::TacticSource> const names{{"CUBLAS", nvinfer1::TacticSource::kCUBLAS},
        {"CUBLAS_LT", nvinfer1::TacticSource::kCUBLAS_LT}, {"CUDNN", nvinfer1::TacticSource::kCUDNN},
        {"EDGE_MASK_CONVOLUTIONS", nvinfer1::TacticSource::kEDGE_MASK_CONVOLUTIONS},
        {"JIT_CONVOLUTIONS", nvinfer1::TacticSource::kJIT_CONVOLUTIONS}};
    std::stringstream entries(text);
    for (std::string entry; std::getline(entries, entry, ',');)
    {
        auto const found = entry.size() > 1 ? names.find(entry.substr(1)) : names.end();
        if ((entry[0] != '+' && entry[0] != '-') || found == names.end())
        {
            error = "--tacticSources: \"" + entry
                + "\" is not +SOURCE or -SOURCE with SOURCE one of CUBLAS, "
                  "CUBLAS_LT, CUDNN, EDGE_MASK_CONVOLUTIONS, JIT_CONVOLUTIONS";
            return false;
        }
        changes.push_back({entry[0] == '+', found->second});
    }
    return true;
}

//! --sparsity, --avgTiming, --minTiming, --maxAuxStreams and --idleTime into `o`, with a warning for each that Kiln
//! takes without acting on it. False with `error` for a bad value.
bool applyCountsAndModes(TrtexecFlags const& f, Options& o, std::string& error, std::vector<std::string>& warnings)
{
    if (!f.sparsity.empty() && !parseSparsity(f.sparsity, o.sparseWeights, error))
    {
        return false;
    }
    constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();
    int64_t avgTiming = -1;
    int64_t idleTime = 0;
    int64_t ignored = 0;
    bool const parsed
        = (f.avgTiming.empty() || parseInteger("--avgTiming", f.avgTiming, 1, kInt32Max, avgTiming, error))
        && (f.idleTime.empty() || parseInteger("--idleTime", f.idleTime, 0, kInt32Max, idleTime, error))
        && (f.minTiming.empty() || parseInteger("--minTiming", f.minTiming, 1, kInt32Max, ignored, error))
        && (f.maxAuxStreams.empty() || parseInteger("--maxAuxStreams", f.maxAuxStreams, 0, kInt32Max, ignored, error));
    if (!parsed)
    {
        return false;
    }
    o.avgTimingIterations = static_cast<int32_t>(avgTiming);
    o.idleTimeMs = static_cast<int32_t>(idleTime);
    auto const warnIf = [&](bool given, char const* warning) {
        if (given)
        {
            warnings.emplace_back(warning);
        }
    };
    warnIf(o.sparseWeights,
        "--sparsity=enable: kSPARSE_WEIGHTS is set, but Kiln has no sparse kernels: dense ones run every layer");
    warnIf(!f.avgTiming.empty(),
        "--avgTiming: kept in the builder configuration; Kiln's builder times each algorithm "
        "over a count of runs of its own");
    warnIf(!f.minTiming.empty(), "--minTiming: taken and ignored; TensorRT 10's builder has no minimum of timing runs");
    warnIf(
        !f.maxAuxStreams.empty(), "--maxAuxStreams: taken and ignored; Kiln runs a context's layers on its one stream");
    return true;
}

} // namespace

void addTrtexecFlags(CLI::App& app, Options& o, TrtexecFlags& f)
{
    auto* group = app.add_option_group("trtexec", "trtexec's flags beyond Kiln's own");
    group->add_option("--workspace", f.workspace, "Deprecated spelling of --memPoolSize=workspace:N (N in MiB)");
    group->add_flag("--best", f.best, "Enable every precision: FP32, FP16, INT8 and FP8 (--fp16 --int8 --fp8)");
    group->add_flag("--stronglyTyped", o.stronglyTyped,
        "Build a strongly typed network: every tensor keeps the type the model gives it");
    group->add_option("--builderOptimizationLevel", f.builderOptimizationLevel,
        "Builder optimization level 0 to 5 (kept in the configuration; Kiln's builder times what it times)");
    group->add_option("--profilingVerbosity", f.profilingVerbosity,
        "Layer information the engine keeps: layer_names_only, detailed or none (Kiln's plans keep it all)");
    group->add_option("--tacticSources", f.tacticSources,
        "Allow (+) or disallow (-) tactic libraries: e.g. -CUDNN,+CUBLAS_LT (kept in the configuration)");
    group->add_flag("--noBuilderCache", o.noBuilderCache, "Build without the timing cache (kDISABLE_TIMING_CACHE)");
    group->add_flag("--dumpLayerInfo", o.dumpLayerInfo, "Print the engine's layer information (JSON)");
    group->add_flag("--timeDeserialize", o.timeDeserialize,
        "Time deserializing the plan of --loadEngine (after a first load, which loads what it needs), then exit");
    group->add_flag("--getPlanVersionOnly", o.getPlanVersionOnly,
        "Print the plan file's format version and the Kiln version that wrote it, then exit (with --loadEngine)");
    group->add_flag("--int8", o.int8,
        "Enable INT8 (kINT8): Q/DQ models quantize as they say (their convolutions and products by weights run on "
        "INT8 on both backends); other models quantize implicitly with --calib");
    group->add_option("--calib", o.calib,
        "Read an INT8 calibration cache (TensorRT's format): its scales quantize convolutions and matrix multiplies "
        "implicitly (with --int8)");
    group->add_flag("--fp8", o.fp8,
        "Enable FP8 (kFP8): Q/DQ models quantize as they say (their products by weights run on FP8 on CUDA GPUs of "
        "compute capability 8.9 or later; the CPU computes FP8 layers as written)");
    group->add_flag("--refit", o.refit,
        "Build a refittable engine (kREFIT: weights an IRefitter can replace) and list its refittable weights");
    group->add_flag("--versionCompatible", f.versionCompatible, "Refused: there is no lean runtime to embed");
    group->add_option("--inputIOFormats", f.inputIOFormats, "Refused: I/O tensors keep the network's types");
    group->add_option("--outputIOFormats", f.outputIOFormats, "Refused: I/O tensors keep the network's types");
    group->add_option("--layerPrecisions", f.layerPrecisions, "Refused: no per-layer precisions yet");
    group->add_option("--layerOutputTypes", f.layerOutputTypes, "Refused: no per-layer precisions yet");
    group->add_option("--precisionConstraints", f.precisionConstraints, "none only (Kiln's default)");
    group->add_flag("--bf16", f.bf16,
        "Enable BF16 (kBF16): built-in layers store their tensors and weights in BF16 and compute in FP32 (with "
        "--fp16 too, FP16 is chosen)");
    group->add_flag(
        "--noTF32", f.noTF32, "Disable TF32 (kTF32 cleared): Kiln's FP32 layers never compute at TF32's precision");
    group->add_option("--sparsity", f.sparsity,
        "disable (default) or enable (kSPARSE_WEIGHTS: Kiln has no sparse kernels, so nothing changes); force is "
        "refused");
    group->add_option("--avgTiming", f.avgTiming,
        "Timing runs averaged for each algorithm (kept in the configuration; Kiln's builder takes its own count)");
    group->add_option("--minTiming", f.minTiming, "Taken and ignored: TensorRT 10's builder has no such setting");
    group->add_option(
        "--maxAuxStreams", f.maxAuxStreams, "Taken and ignored: Kiln runs a context's layers on its one stream");
    group->add_flag("--buildOnly", o.skipInference, "trtexec's older name of --skipInference");
    group->add_option("--idleTime", f.idleTime, "Sleep N milliseconds between two of a stream's inferences");
    for (OtherFlag const& flag : kOtherFlags)
    {
        std::string const help = std::string(flag.refused ? "Refused" : "Taken and ignored") + ": " + flag.why;
        std::string const name = flag.name;
        if (flag.takesValue)
        {
            group->add_option_function<std::string>(
                name, [&f, name](std::string const& value) { f.others[name] = value; }, help);
        }
        else
        {
            group->add_flag_callback(
                name, [&f, name] { f.others[name] = "true"; }, help);
        }
    }
}

bool applyTrtexecFlags(TrtexecFlags const& f, Options& o, std::string& error, std::vector<std::string>& warnings)
{
    std::vector<std::string> const refused = refusals(f);
    if (!refused.empty())
    {
        error = refused.front();
        return false;
    }
    if (!f.workspace.empty() && !parseMemPoolSizes("workspace:" + f.workspace, o.memPoolSizes, error))
    {
        error = "--workspace: " + error;
        return false;
    }
    if (f.best)
    {
        o.fp16 = o.int8 = o.fp8 = true;
    }
    o.bf16 = f.bf16;
    o.noTF32 = f.noTF32;
    if (!applyCountsAndModes(f, o, error, warnings))
    {
        return false;
    }
    if (o.bf16 && o.fp16)
    {
        warnings.push_back("--bf16 with --fp16: Kiln stores the reduced-precision tensors in FP16");
    }
    for (OtherFlag const& flag : kOtherFlags)
    {
        if (!flag.refused && f.others.count(flag.name) != 0)
        {
            warnings.push_back(std::string(flag.name) + ": taken and ignored; " + flag.why);
        }
    }
    if (!f.builderOptimizationLevel.empty()
        && !parseOptimizationLevel(f.builderOptimizationLevel, o.builderOptimizationLevel, error))
    {
        return false;
    }
    if (!f.profilingVerbosity.empty())
    {
        nvinfer1::ProfilingVerbosity verbosity{};
        if (!parseProfilingVerbosity(f.profilingVerbosity, verbosity, error))
        {
            return false;
        }
        o.profilingVerbosity = verbosity;
    }
    if (!f.tacticSources.empty())
    {
        if (!parseTacticSources(f.tacticSources, o.tacticSourceChanges, error))
        {
            return false;
        }
        warnings.push_back("--tacticSources: kept in the builder configuration; Kiln chooses among cuDNN, cuBLASLt "
                           "and its own kernels itself");
    }
    if (o.stronglyTyped && (o.fp16 || o.bf16))
    {
        error = "--stronglyTyped keeps the types the model gives: it cannot go with --fp16, --bf16 or --best";
        return false;
    }
    if (!o.calib.empty() && !o.int8)
    {
        error = "--calib gives INT8 scales: it needs --int8 (or --best)";
        return false;
    }
    bool const buildFlags = !f.workspace.empty() || f.best || o.stronglyTyped || o.int8 || o.fp8 || o.bf16 || o.noTF32
        || !f.sparsity.empty() || !f.avgTiming.empty() || !f.minTiming.empty() || o.builderOptimizationLevel >= 0
        || o.profilingVerbosity.has_value() || !o.tacticSourceChanges.empty() || o.noBuilderCache;
    if (!o.loadEngine.empty() && buildFlags)
    {
        error = "--workspace, --best, --stronglyTyped, --int8, --fp8, --bf16, --noTF32, --sparsity, --avgTiming, "
                "--minTiming, --builderOptimizationLevel, --profilingVerbosity, --tacticSources and --noBuilderCache "
                "are build flags; a plan from --loadEngine is already built";
        return false;
    }
    if (o.timeDeserialize && o.loadEngine.empty())
    {
        error = "--timeDeserialize times loading a plan: it needs --loadEngine";
        return false;
    }
    if (o.getPlanVersionOnly && o.loadEngine.empty())
    {
        error = "--getPlanVersionOnly reads a plan: it needs --loadEngine";
        return false;
    }
    return true;
}

bool planVersionLine(std::vector<uint8_t> const& plan, std::string& line, std::string& error)
{
    std::optional<PlanVersions> const versions = readPlanVersions(plan.data(), plan.size());
    if (!versions)
    {
        error = "--getPlanVersionOnly: the file is not a Kiln plan (no KILNPLAN header)";
        return false;
    }
    uint32_t const kilnVersion = versions->kiln;
    line = "Plan format version " + std::to_string(versions->format) + ", written by Kiln "
        + std::to_string(kilnVersion / 10000) + "." + std::to_string(kilnVersion / 100 % 100) + "."
        + std::to_string(kilnVersion % 100);
    return true;
}

} // namespace kiln::cli
