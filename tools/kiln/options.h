// The main command's options: trtexec's flags with trtexec's defaults, and Kiln's own.
#pragma once

#include "plugin_libraries.h"
#include "spec_parsing.h"

#include <NvInfer.h>
#include <kiln/Backend.h>
#include <kiln/ConvolutionLayout.h>
#include <kiln/CpuBackend.h>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace kiln::cli
{

//! One entry of --tacticSources: allow (+) or disallow (-) a tactic library.
struct TacticSourceChange
{
    bool allow{true};
    nvinfer1::TacticSource source{nvinfer1::TacticSource::kCUBLAS};
};

struct Options
{
    // Model and plan.
    std::string onnx;
    std::string loadEngine;
    std::string saveEngine;

    // Build.
    bool fp16{false};
    std::vector<ShapeSpec> shapes; //!< inference shapes; also the profile when no min/opt/max is given
    std::vector<ShapeSpec> minShapes;
    std::vector<ShapeSpec> optShapes;
    std::vector<ShapeSpec> maxShapes;
    std::vector<PoolSize> memPoolSizes;
    std::string timingCacheFile;
    kiln::ConvolutionLayout convolutionLayout{kiln::ConvolutionLayout::kBY_TIMING};
    kiln::CpuKernels cpuKernels{kiln::CpuKernels::kFAST};
    PluginLibraries plugins;
    Backend backend{Backend::kCPU};
    // trtexec's build flags beyond Kiln's own (trtexec_flags.h).
    bool stronglyTyped{false};            //!< the network built with kSTRONGLY_TYPED
    bool int8{false};                     //!< BuilderFlag::kINT8 (--int8, --best)
    std::string calib;                    //!< --calib: an INT8 calibration cache for implicit quantization
    bool fp8{false};                      //!< BuilderFlag::kFP8 (--fp8, --best)
    bool bf16{false};                     //!< BuilderFlag::kBF16 (--bf16)
    bool noTF32{false};                   //!< BuilderFlag::kTF32 cleared (--noTF32)
    bool sparseWeights{false};            //!< BuilderFlag::kSPARSE_WEIGHTS (--sparsity=enable)
    int32_t avgTimingIterations{-1};      //!< --avgTiming; -1: the builder's default
    int32_t builderOptimizationLevel{-1}; //!< -1: the builder's default
    std::optional<nvinfer1::ProfilingVerbosity> profilingVerbosity;
    std::vector<TacticSourceChange> tacticSourceChanges;
    bool noBuilderCache{false}; //!< kDISABLE_TIMING_CACHE
    bool refit{false};          //!< --refit: a refittable engine (kREFIT), whose refittable weights are listed

    // Inference.
    bool skipInference{false};
    int32_t iterations{10};
    float warmUpMs{200.0F};
    float durationS{3.0F};
    int32_t avgRuns{10};
    std::vector<float> percentiles{90.0F, 95.0F, 99.0F};
    int32_t infStreams{1};
    int32_t device{0};
    int32_t threads{0};       //!< --threads: the CPU backend's; 0: the cores available
    bool fixedThreads{false}; //!< --fixedThreads: every run on `threads`, never fewer
    bool useCudaGraph{false};
    bool noDataTransfers{false};
    bool useSpinWait{false};
    int32_t idleTimeMs{0};             //!< --idleTime: the host sleeps this long between one stream's inferences
    std::vector<NameValue> loadInputs; //!< tensor name, file

    // Reporting.
    bool verbose{false};
    bool dumpOutput{false};
    bool dumpProfile{false};
    bool separateProfileRun{false};
    std::string exportTimes;
    std::string exportOutput;
    std::string exportProfile;
    std::string exportLayerInfo;
    bool dumpLayerInfo{false};
    bool getPlanVersionOnly{false};
    bool timeDeserialize{false}; //!< --timeDeserialize: time loading the plan of --loadEngine, then exit
    //! What the flags' parsing has to say without refusing them (trtexec flags Kiln takes only in part).
    std::vector<std::string> flagWarnings;

    // Comparison with the CPU reference (Kiln's own).
    bool compare{false};
    double atol{1e-5};
    double rtol{1e-5};
    bool compareLayers{false};

    //! The command line as typed, for the &&&& lines.
    std::string commandLine;

    bool profiling() const
    {
        return dumpProfile || !exportProfile.empty();
    }
};

enum class ParseOutcome
{
    kRUN,   //!< options are valid: run
    kHELP,  //!< --help was printed: exit 0
    kERROR, //!< error holds what is wrong: exit non-zero
};

//! Parses the main command's flags (argv[0] is the program). Checks every value and the combinations
//! that cannot work (e.g. neither --onnx nor --loadEngine).
ParseOutcome parseOptions(int argc, char** argv, Options& options, std::string& error);

} // namespace kiln::cli
