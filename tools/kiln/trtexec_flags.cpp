#include "trtexec_flags.h"

#include "runtime/plan_description.h"
#include "spec_parsing.h"

#include <NvInferVersion.h>

#include <cstring>
#include <map>
#include <sstream>

namespace kiln::cli
{
namespace
{

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
    return refused;
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
    if (o.stronglyTyped && o.fp16)
    {
        error = "--stronglyTyped keeps the types the model gives: it cannot go with --fp16 or --best";
        return false;
    }
    if (!o.calib.empty() && !o.int8)
    {
        error = "--calib gives INT8 scales: it needs --int8 (or --best)";
        return false;
    }
    bool const buildFlags = !f.workspace.empty() || f.best || o.stronglyTyped || o.int8 || o.fp8
        || o.builderOptimizationLevel >= 0 || o.profilingVerbosity.has_value() || !o.tacticSourceChanges.empty()
        || o.noBuilderCache;
    if (!o.loadEngine.empty() && buildFlags)
    {
        error
            = "--workspace, --best, --stronglyTyped, --int8, --fp8, --builderOptimizationLevel, --profilingVerbosity, "
              "--tacticSources and --noBuilderCache are build flags; a plan from --loadEngine is already built";
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
