#include "options.h"

#include "trtexec_flags.h"

#include <CLI/CLI.hpp>

#include <NvInferVersion.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <limits>

namespace kiln::cli
{
namespace
{

//! Each inference stream is a context with its own buffers and thread; each CPU thread a thread.
constexpr int64_t kMaxStreams = 256;
constexpr int64_t kMaxThreads = 4096;

//! The raw text of the flags whose values have their own grammar (spec_parsing.h).
struct RawSpecs
{
    std::string shapes;
    std::string minShapes;
    std::string optShapes;
    std::string maxShapes;
    std::string memPoolSize;
    std::string percentile;
    std::vector<std::string> loadInputs;
    //! --plugins: its own list, since two options bound to one vector overwrite each other in CLI11.
    std::vector<std::string> deprecatedPlugins;
    std::string backend;
    std::string convolutionLayout;
    std::string compare;
    std::string cpuKernels;
    // Numbers, parsed by parseInteger and parseReal (spec_parsing.h) rather than CLI11, so that every one is
    // checked for range and overflow with a message naming its flag.
    std::string iterations;
    std::string warmUp;
    std::string duration;
    std::string avgRuns;
    std::string infStreams;
    std::string streams; //!< trtexec's older name of --infStreams
    std::string device;
    std::string threads;
    std::string atol;
    std::string rtol;
};

void addFlags(CLI::App& app, Options& o, RawSpecs& raw)
{
    // Model and plan.
    app.add_option("--onnx", o.onnx, "ONNX model to parse, build and run");
    app.add_option("--loadEngine", o.loadEngine, "Load a plan (Kiln's serialized engine) instead of building one");
    app.add_option("--saveEngine", o.saveEngine, "Save the built plan to this file");

    // Build.
    app.add_flag("--fp16", o.fp16, "Allow FP16 precision in addition to FP32 (default = disabled)");
    app.add_option("--shapes", raw.shapes,
        "Inference shapes of dynamic inputs: name:1x3x224x224[,name:...] (names may be quoted with '; "
        "a 0-D input is name:scalar or name:; a shape-tensor input takes its values: name:2x3 is {2, 3})");
    app.add_option("--minShapes", raw.minShapes,
        "Build a profile with these minimum shapes (name:1x3x224x224,...; shape tensors: values)");
    app.add_option("--optShapes", raw.optShapes,
        "Build a profile with these optimum shapes (name:1x3x224x224,...; shape tensors: values)");
    app.add_option("--maxShapes", raw.maxShapes,
        "Build a profile with these maximum shapes (name:1x3x224x224,...; shape tensors: values)");
    app.add_option("--memPoolSize", raw.memPoolSize,
        "Memory pool limits: workspace:N[,pool:N]; N in MiB, or with the suffix B, K, M or G");
    app.add_option("--timingCacheFile", o.timingCacheFile,
        "Timing cache file: read when it exists, then rewritten with the build's new timings (CUDA backend)");
    app.add_option("--staticPlugins", o.plugins.staticLibraries, "Plugin library to dlopen (repeatable)");
    app.add_option("--plugins", raw.deprecatedPlugins, "Deprecated spelling of --staticPlugins");
    app.add_option("--dynamicPlugins", o.plugins.dynamicLibraries,
        "Plugin library to load through IPluginRegistry::loadLibrary (repeatable)");
    app.add_option("--convolutionLayout", raw.convolutionLayout,
        "How FP16 convolution chains are stored on the CUDA backend: timed (channels-last where it times faster), "
        "hwc (always channels-last) or linear (default = timed)");
    app.add_option("--backend", raw.backend,
        "Backend to build for and run on: cpu or cuda (default = the environment variable KILN_BACKEND where it is "
        "set, else cuda where a GPU is usable, else cpu); with --skipInference a cuda plan builds without a GPU");
    app.add_option("--cpuKernels", raw.cpuKernels,
        "Kernels of the CPU backend: fast (oneDNN, after fusions) or reference (every layer as written; what "
        "--compare=cpu checks against) (default = fast)");

    // Inference.
    app.add_flag("--skipInference", o.skipInference, "Build (and save) the plan, then exit without running it");
    app.add_option("--iterations", raw.iterations, "Run at least N inference iterations (default = 10)");
    app.add_option("--warmUp", raw.warmUp, "Run for N milliseconds to warm up before measuring (default = 200)");
    app.add_option("--duration", raw.duration, "Run at least N seconds of measured inferences (default = 3)");
    app.add_option("--avgRuns", raw.avgRuns, "Report averages over N consecutive iterations (default = 10)");
    app.add_option("--percentile", raw.percentile, "Report these percentiles, in [0, 100] (default = 90,95,99)");
    app.add_option("--infStreams", raw.infStreams, "Run inferences on N streams (contexts) at once (default = 1)");
    app.add_option("--streams", raw.streams, "trtexec's older name of --infStreams");
    app.add_option("--device", raw.device, "Select the CUDA device N (default = 0)");
    app.add_option("--threads", raw.threads,
        "The most threads of the CPU backend's context (default = 0: the cores available); a run takes one where that "
        "times faster (other work on the cores) unless --fixedThreads; results are the same at any count");
    app.add_flag("--fixedThreads", o.fixedThreads, "Run every inference on --threads threads (CPU backend)");
    app.add_flag("--useCudaGraph", o.useCudaGraph,
        "Capture one inference into a CUDA graph and replay it (CUDA backend; no effect on the CPU backend)");
    app.add_flag("--noDataTransfers", o.noDataTransfers,
        "Do not copy inputs to and outputs from the device (no effect on the CPU backend)");
    app.add_flag(
        "--useSpinWait", o.useSpinWait, "Spin-wait for the GPU instead of blocking (no effect on the CPU backend)");
    app.add_option("--loadInputs", raw.loadInputs,
        "Read inputs from raw binary files of the input's type: name:file[,name:file] (names may be quoted with ')");

    // Reporting.
    app.add_flag("--verbose", o.verbose, "Log verbosely");
    app.add_flag("--dumpOutput", o.dumpOutput, "Print the outputs of the last inference");
    app.add_flag("--dumpProfile", o.dumpProfile, "Print the time of each layer");
    app.add_flag("--separateProfileRun", o.separateProfileRun,
        "Time the layers in a separate run, so profiling does not affect the performance summary");
    app.add_option("--exportTimes", o.exportTimes, "Write the timing of every inference to this JSON file");
    app.add_option("--exportOutput", o.exportOutput, "Write the outputs to this JSON file");
    app.add_option("--exportProfile", o.exportProfile, "Write the per-layer times to this JSON file");
    app.add_option("--exportLayerInfo", o.exportLayerInfo, "Write the engine's layer information to this JSON file");

    // Comparison (Kiln's own).
    app.add_option("--compare", raw.compare,
        "Also run the model on the CPU reference (FP32) with the same inputs and compare every output: cpu");
    app.add_option("--atol", raw.atol, "Absolute tolerance of --compare (default = 1e-5)");
    app.add_option("--rtol", raw.rtol, "Relative tolerance of --compare (default = 1e-5)");
    app.add_flag("--compareLayers", o.compareLayers,
        "With --compare: compare every layer's outputs and name the first layer that diverges");
}

bool parseShapesFlag(char const* flag, std::string const& text, std::vector<ShapeSpec>& specs, std::string& error)
{
    if (text.empty())
    {
        return true;
    }
    if (!parseShapeSpecs(text, specs, error))
    {
        error = std::string(flag) + ": " + error;
        return false;
    }
    return true;
}

//! Parses the flags that hold lists (shapes, pool sizes, percentiles, input files) into `o`.
bool parseListFlags(Options& o, RawSpecs const& raw, std::string& error)
{
    if (!parseShapesFlag("--shapes", raw.shapes, o.shapes, error)
        || !parseShapesFlag("--minShapes", raw.minShapes, o.minShapes, error)
        || !parseShapesFlag("--optShapes", raw.optShapes, o.optShapes, error)
        || !parseShapesFlag("--maxShapes", raw.maxShapes, o.maxShapes, error))
    {
        return false;
    }
    bool const anyProfile = !o.minShapes.empty() || !o.optShapes.empty() || !o.maxShapes.empty();
    bool const fullProfile = !o.minShapes.empty() && !o.optShapes.empty() && !o.maxShapes.empty();
    if (anyProfile && !fullProfile)
    {
        error = "--minShapes, --optShapes and --maxShapes go together: give all three";
        return false;
    }
    if (!raw.memPoolSize.empty() && !parseMemPoolSizes(raw.memPoolSize, o.memPoolSizes, error))
    {
        error = "--memPoolSize: " + error;
        return false;
    }
    if (!raw.percentile.empty() && !parsePercentiles(raw.percentile, o.percentiles, error))
    {
        error = "--percentile: " + error;
        return false;
    }
    for (std::string const& text : raw.loadInputs)
    {
        std::vector<NameValue> entries;
        if (!parseNameValueList(text, entries, error))
        {
            error = "--loadInputs: " + error;
            return false;
        }
        o.loadInputs.insert(o.loadInputs.end(), entries.begin(), entries.end());
    }
    return true;
}

//! Parses the flags that name one of a few choices (backend, convolution layout, reference) into `o`.
bool parseChoiceFlags(Options& o, RawSpecs const& raw, std::string& error)
{
    // Without --backend, KILN_BACKEND chooses, as it does for every application built on Kiln's library.
    char const* environment = std::getenv("KILN_BACKEND");
    bool const fromEnvironment = raw.backend.empty() && environment != nullptr && *environment != '\0';
    std::string const backend = fromEnvironment ? std::string(environment) : raw.backend;
    if (backend.empty())
    {
        o.backend = defaultBackend(); // the GPU when there is one, as trtexec and Kiln's library do
    }
    else if (backend == "cpu")
    {
        o.backend = Backend::kCPU;
    }
    else if (backend == "cuda")
    {
        o.backend = Backend::kCUDA;
    }
    else
    {
        error = std::string(fromEnvironment ? "the environment variable KILN_BACKEND" : "--backend") + ": \"" + backend
            + "\" is not a backend; expected cpu or cuda";
        return false;
    }
    if (raw.convolutionLayout == "hwc")
    {
        o.convolutionLayout = kiln::ConvolutionLayout::kCHANNELS_LAST;
    }
    else if (raw.convolutionLayout == "linear")
    {
        o.convolutionLayout = kiln::ConvolutionLayout::kLINEAR;
    }
    else if (!raw.convolutionLayout.empty() && raw.convolutionLayout != "timed")
    {
        error = "--convolutionLayout: \"" + raw.convolutionLayout + "\" is not a layout; expected timed, hwc or linear";
        return false;
    }
    if (raw.cpuKernels == "reference")
    {
        o.cpuKernels = CpuKernels::kREFERENCE;
    }
    else if (!raw.cpuKernels.empty() && raw.cpuKernels != "fast")
    {
        error = "--cpuKernels: \"" + raw.cpuKernels + "\" is not a set of kernels; expected fast or reference";
        return false;
    }
    if (!raw.compare.empty() && raw.compare != "cpu")
    {
        error = "--compare: \"" + raw.compare + "\" is not a reference Kiln has; expected --compare=cpu";
        return false;
    }
    o.compare = !raw.compare.empty();
    return true;
}

//! The numeric flags, each through the one checked parser: counts at least 1, times, tolerances and the device not
//! negative, and caps where a larger value would only exhaust the machine (streams and threads are each a thread).
bool parseNumericFlags(Options& o, RawSpecs const& raw, std::string& error)
{
    if (!raw.streams.empty() && !raw.infStreams.empty())
    {
        error = "--streams is trtexec's older name of --infStreams: give one of them";
        return false;
    }
    constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();
    constexpr double kRealMax = std::numeric_limits<double>::max();
    struct IntegerFlag
    {
        char const* flag;
        std::string const& text;
        int64_t minimum;
        int64_t maximum;
        int32_t& value;
    };
    for (IntegerFlag const& f : {IntegerFlag{"--iterations", raw.iterations, 1, kInt32Max, o.iterations},
             IntegerFlag{"--avgRuns", raw.avgRuns, 1, kInt32Max, o.avgRuns},
             IntegerFlag{"--infStreams", raw.infStreams, 1, kMaxStreams, o.infStreams},
             IntegerFlag{"--streams", raw.streams, 1, kMaxStreams, o.infStreams},
             IntegerFlag{"--device", raw.device, 0, kInt32Max, o.device},
             IntegerFlag{"--threads", raw.threads, 0, kMaxThreads, o.threads}})
    {
        int64_t value = 0;
        if (!f.text.empty() && !parseInteger(f.flag, f.text, f.minimum, f.maximum, value, error))
        {
            return false;
        }
        f.value = f.text.empty() ? f.value : static_cast<int32_t>(value);
    }
    double warmUp = o.warmUpMs;
    double duration = o.durationS;
    bool const parsed = (raw.warmUp.empty() || parseReal("--warmUp", raw.warmUp, 0, kRealMax, warmUp, error))
        && (raw.duration.empty() || parseReal("--duration", raw.duration, 0, kRealMax, duration, error))
        && (raw.atol.empty() || parseReal("--atol", raw.atol, 0, kRealMax, o.atol, error))
        && (raw.rtol.empty() || parseReal("--rtol", raw.rtol, 0, kRealMax, o.rtol, error));
    o.warmUpMs = static_cast<float>(std::min(warmUp, double(std::numeric_limits<float>::max())));
    o.durationS = static_cast<float>(std::min(duration, double(std::numeric_limits<float>::max())));
    return parsed;
}

bool checkValues(Options& o, RawSpecs const& raw, std::string& error)
{
    o.plugins.staticLibraries.insert(
        o.plugins.staticLibraries.end(), raw.deprecatedPlugins.begin(), raw.deprecatedPlugins.end());
    return parseListFlags(o, raw, error) && parseChoiceFlags(o, raw, error) && parseNumericFlags(o, raw, error);
}

bool checkCombinations(Options const& o, std::string& error)
{
    if (o.onnx.empty() == o.loadEngine.empty())
    {
        error = o.onnx.empty() ? "no model: give --onnx=MODEL.onnx or --loadEngine=PLAN"
                               : "--onnx and --loadEngine both give the model: use one";
        return false;
    }
    bool const buildFlags = !o.minShapes.empty() || o.fp16 || !o.memPoolSizes.empty()
        || o.convolutionLayout != kiln::ConvolutionLayout::kBY_TIMING || o.cpuKernels != CpuKernels::kFAST;
    if (!o.loadEngine.empty() && buildFlags)
    {
        error = "--minShapes/--optShapes/--maxShapes, --fp16, --memPoolSize, --convolutionLayout and --cpuKernels "
                "are build flags; a plan from --loadEngine is already built";
        return false;
    }
    if (o.compare && o.onnx.empty())
    {
        error = "--compare builds the CPU reference from the model: it needs --onnx (a plan from --loadEngine "
                "cannot be rebuilt)";
        return false;
    }
    if (o.compareLayers && !o.compare)
    {
        error = "--compareLayers refines --compare: add --compare=cpu";
        return false;
    }
    if (o.compare && o.skipInference)
    {
        error = "--compare runs the model: it cannot go with --skipInference";
        return false;
    }
    return true;
}

} // namespace

ParseOutcome parseOptions(int argc, char** argv, Options& options, std::string& error)
{
    for (int i = 0; i < argc; ++i)
    {
        options.commandLine += (i == 0 ? "" : " ") + std::string(argv[i]);
    }

    // CLI11 would read "--loadInputs=" as a flag whose value is the next argument, and swallow that argument.
    for (int i = 1; i < argc; ++i)
    {
        std::string const arg = argv[i];
        if (arg.size() > 3 && arg.rfind("--", 0) == 0 && arg.back() == '=')
        {
            error
                = arg.substr(0, arg.size() - 1) + " has an empty value (write " + arg + "VALUE, or leave the flag out)";
            return ParseOutcome::kERROR;
        }
    }
    CLI::App app{"kiln " KILN_VERSION_STRING ": builds, times and checks models with trtexec's flags.\n"
                 "Subcommands: kiln inspect PLAN, kiln plugins [--staticPlugins=LIB ...]"};
    app.allow_extras();
    RawSpecs raw;
    addFlags(app, options, raw);
    TrtexecFlags trtexecFlags;
    addTrtexecFlags(app, options, trtexecFlags);
    try
    {
        app.parse(argc, argv);
    }
    catch (CLI::CallForHelp const&)
    {
        std::cout << app.help();
        return ParseOutcome::kHELP;
    }
    catch (CLI::ParseError const& e)
    {
        error = e.what();
        return ParseOutcome::kERROR;
    }
    std::vector<std::string> const extras = app.remaining();
    if (!extras.empty())
    {
        std::string const& first = extras.front();
        bool const isFlag = first.rfind("-", 0) == 0;
        error = (isFlag ? "unknown flag " + first.substr(0, first.find('=')) : "unexpected argument " + first)
            + " (kiln --help lists the flags)";
        return ParseOutcome::kERROR;
    }
    if (!checkValues(options, raw, error) || !applyTrtexecFlags(trtexecFlags, options, error, options.flagWarnings)
        || !checkCombinations(options, error))
    {
        return ParseOutcome::kERROR;
    }
    return ParseOutcome::kRUN;
}

} // namespace kiln::cli
