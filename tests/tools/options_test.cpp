// The main command's flags: trtexec's defaults, values reaching the options, and refused combinations.
#include "options.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace
{

using namespace kiln::cli;

ParseOutcome parse(std::vector<std::string> args, Options& options, std::string& error)
{
    args.insert(args.begin(), "kiln");
    std::vector<char*> argv;
    for (std::string& arg : args)
    {
        argv.push_back(arg.data());
    }
    return parseOptions(static_cast<int>(argv.size()), argv.data(), options, error);
}

TEST(Options, TrtexecDefaults)
{
    Options o;
    std::string error;
    ASSERT_EQ(parse({"--onnx=m.onnx"}, o, error), ParseOutcome::kRUN) << error;
    EXPECT_EQ(o.iterations, 10);
    EXPECT_EQ(o.warmUpMs, 200.0F);
    EXPECT_EQ(o.durationS, 3.0F);
    EXPECT_EQ(o.avgRuns, 10);
    EXPECT_EQ(o.percentiles, (std::vector<float>{90, 95, 99}));
    EXPECT_EQ(o.infStreams, 1);
    EXPECT_FALSE(o.fp16);
    // trtexec's habit: the GPU where one is usable.
    EXPECT_EQ(o.backend, kiln::backendAvailable(kiln::Backend::kCUDA) ? kiln::Backend::kCUDA : kiln::Backend::kCPU);
    EXPECT_FALSE(o.compare);
    EXPECT_EQ(o.convolutionLayout, kiln::ConvolutionLayout::kBY_TIMING);
    EXPECT_EQ(o.commandLine, "kiln --onnx=m.onnx");
}

TEST(Options, ValuesReachTheOptions)
{
    Options o;
    std::string error;
    ASSERT_EQ(
        parse({"--onnx", "m.onnx", "--fp16", "--iterations=4", "--warmUp=0", "--duration=1.5", "--avgRuns=2",
                  "--percentile=99", "--shapes=x:2x3", "--minShapes=x:1x3", "--optShapes=x:2x3", "--maxShapes=x:4x3",
                  "--memPoolSize=workspace:2K", "--loadInputs=x:a.bin", "--loadInputs='y':b.bin",
                  "--staticPlugins=a.so", "--plugins=b.so", "--dynamicPlugins=c.so", "--backend=cpu", "--compare=cpu",
                  "--atol=0.1", "--rtol=0.2", "--compareLayers", "--exportOutput=o.json", "--convolutionLayout=hwc"},
            o, error),
        ParseOutcome::kRUN)
        << error;
    EXPECT_TRUE(o.fp16);
    EXPECT_EQ(o.iterations, 4);
    EXPECT_EQ(o.warmUpMs, 0.0F);
    EXPECT_EQ(o.durationS, 1.5F);
    EXPECT_EQ(o.percentiles, (std::vector<float>{99}));
    ASSERT_EQ(o.shapes.size(), 1U);
    EXPECT_EQ(o.maxShapes[0].dims.d[0], 4);
    ASSERT_EQ(o.memPoolSizes.size(), 1U);
    EXPECT_EQ(o.memPoolSizes[0].bytes, 2048U);
    ASSERT_EQ(o.loadInputs.size(), 2U);
    EXPECT_EQ(o.loadInputs[1].name, "y");
    EXPECT_EQ(o.loadInputs[1].value, "b.bin");
    EXPECT_EQ(o.plugins.staticLibraries, (std::vector<std::string>{"a.so", "b.so"}));
    EXPECT_EQ(o.plugins.dynamicLibraries, (std::vector<std::string>{"c.so"}));
    EXPECT_EQ(o.backend, kiln::Backend::kCPU);
    EXPECT_TRUE(o.compare);
    EXPECT_TRUE(o.compareLayers);
    EXPECT_EQ(o.atol, 0.1);
    EXPECT_EQ(o.rtol, 0.2);
    EXPECT_EQ(o.exportOutput, "o.json");
    EXPECT_EQ(o.convolutionLayout, kiln::ConvolutionLayout::kCHANNELS_LAST);
    Options linear;
    ASSERT_EQ(parse({"--onnx=m.onnx", "--convolutionLayout=linear"}, linear, error), ParseOutcome::kRUN) << error;
    EXPECT_EQ(linear.convolutionLayout, kiln::ConvolutionLayout::kLINEAR);
}

TEST(Options, TrtexecFlagsBeyondKilnsOwnTakeTrtexecsMeaning)
{
    Options o;
    std::string error;
    ASSERT_EQ(parse({"--onnx=m.onnx", "--workspace=64", "--best", "--builderOptimizationLevel=3",
                        "--profilingVerbosity=detailed", "--tacticSources=-CUDNN,+CUBLAS_LT", "--noBuilderCache",
                        "--dumpLayerInfo", "--precisionConstraints=none"},
                  o, error),
        ParseOutcome::kRUN)
        << error;
    ASSERT_EQ(o.memPoolSizes.size(), 1U);
    EXPECT_EQ(o.memPoolSizes[0].pool, "workspace");
    EXPECT_EQ(o.memPoolSizes[0].bytes, 64U << 20U);
    EXPECT_TRUE(o.fp16 && o.int8 && o.fp8) << "--best enables FP16, INT8 and FP8";
    EXPECT_EQ(o.builderOptimizationLevel, 3);
    EXPECT_EQ(o.profilingVerbosity, nvinfer1::ProfilingVerbosity::kDETAILED);
    ASSERT_EQ(o.tacticSourceChanges.size(), 2U);
    EXPECT_FALSE(o.tacticSourceChanges[0].allow);
    EXPECT_EQ(o.tacticSourceChanges[0].source, nvinfer1::TacticSource::kCUDNN);
    EXPECT_TRUE(o.tacticSourceChanges[1].allow);
    EXPECT_EQ(o.tacticSourceChanges[1].source, nvinfer1::TacticSource::kCUBLAS_LT);
    EXPECT_TRUE(o.noBuilderCache);
    EXPECT_TRUE(o.dumpLayerInfo);
    EXPECT_EQ(o.flagWarnings.size(), 1U) << "--tacticSources (kept, not obeyed) says so";

    Options typed;
    ASSERT_EQ(parse({"--onnx=m.onnx", "--stronglyTyped"}, typed, error), ParseOutcome::kRUN) << error;
    EXPECT_TRUE(typed.stronglyTyped);
    EXPECT_FALSE(typed.int8 || typed.fp8);

    Options quantized;
    ASSERT_EQ(parse({"--onnx=m.onnx", "--int8", "--fp8"}, quantized, error), ParseOutcome::kRUN) << error;
    EXPECT_TRUE(quantized.int8 && quantized.fp8 && !quantized.fp16);
}

TEST(Options, MoreTrtexecFlagsAreTakenOrWarnedAbout)
{
    Options o;
    std::string error;
    ASSERT_EQ(
        parse({"--onnx=m.onnx", "--bf16", "--noTF32", "--sparsity=enable", "--avgTiming=4", "--minTiming=2",
                  "--maxAuxStreams=0", "--heuristic", "--tempdir=/tmp", "--useRuntime=full",
                  "--hardwareCompatibilityLevel=none", "--sleepTime=0", "--buildOnly", "--streams=3", "--idleTime=7"},
            o, error),
        ParseOutcome::kRUN)
        << error;
    EXPECT_TRUE(o.bf16 && o.noTF32 && o.sparseWeights);
    EXPECT_EQ(o.avgTimingIterations, 4);
    EXPECT_TRUE(o.skipInference) << "--buildOnly is --skipInference";
    EXPECT_EQ(o.infStreams, 3) << "--streams is --infStreams";
    EXPECT_EQ(o.idleTimeMs, 7);
    // Said for each flag taken without effect: sparsity, avgTiming, minTiming, maxAuxStreams, heuristic, tempdir.
    EXPECT_EQ(o.flagWarnings.size(), 6U);
    for (char const* flag : {"--sparsity", "--avgTiming", "--minTiming", "--maxAuxStreams", "--heuristic", "--tempdir"})
    {
        EXPECT_TRUE(std::any_of(o.flagWarnings.begin(), o.flagWarnings.end(), [&](std::string const& warning) {
            return warning.rfind(flag, 0) == 0;
        })) << flag;
    }

    Options plain;
    ASSERT_EQ(parse({"--onnx=m.onnx", "--sparsity=disable"}, plain, error), ParseOutcome::kRUN) << error;
    EXPECT_FALSE(plain.sparseWeights || plain.bf16 || plain.noTF32);
    EXPECT_EQ(plain.avgTimingIterations, -1);
    EXPECT_TRUE(plain.flagWarnings.empty());
}

TEST(Options, RefusedInputsNameTheProblem)
{
    struct Case
    {
        std::vector<std::string> args;
        std::string message;
    };
    for (Case const& c : std::vector<Case>{
             {{"--onnx=m.onnx", "--bogus"}, "unknown flag --bogus"},
             {{"--onnx=m.onnx", "stray"}, "unexpected argument stray"},
             {{"--onnx=m.onnx", "--loadInputs=", "--fp16"}, "--loadInputs has an empty value"},
             {{"--loadEngine=p.plan", "--int8"}, "are build flags"},
             {{"--onnx=m.onnx", "--versionCompatible"}, "--versionCompatible: Kiln's plans are run by Kiln's own"},
             {{"--onnx=m.onnx", "--inputIOFormats=fp16:chw"}, "--inputIOFormats: not supported yet"},
             {{"--onnx=m.onnx", "--layerPrecisions=conv:fp16"}, "--layerPrecisions: not supported yet"},
             {{"--onnx=m.onnx", "--precisionConstraints=obey"}, "--precisionConstraints: not supported yet"},
             {{"--onnx=m.onnx", "--stronglyTyped", "--fp16"}, "--stronglyTyped keeps the types the model gives"},
             {{"--onnx=m.onnx", "--stronglyTyped", "--bf16"}, "--stronglyTyped keeps the types the model gives"},
             {{"--loadEngine=p.plan", "--noTF32"}, "are build flags"},
             {{"--onnx=m.onnx", "--sparsity=force"}, "--sparsity=force: Kiln has no sparse kernels"},
             {{"--onnx=m.onnx", "--sparsity=some"}, "--sparsity: \"some\" is not a mode"},
             {{"--onnx=m.onnx", "--avgTiming=0"}, "--avgTiming: \"0\" is not valid"},
             {{"--onnx=m.onnx", "--minTiming=x"}, "--minTiming: \"x\" is not valid"},
             {{"--onnx=m.onnx", "--maxAuxStreams=-1"}, "--maxAuxStreams: \"-1\" is not valid"},
             {{"--onnx=m.onnx", "--streams=2", "--infStreams=2"}, "--streams is trtexec's older name of --infStreams"},
             {{"--onnx=m.onnx", "--streams=0"}, "--streams: \"0\" is not valid"},
             {{"--onnx=m.onnx", "--useDLACore=0", "--allowGPUFallback"}, "--useDLACore: Kiln has no DLA"},
             {{"--onnx=m.onnx", "--safe"}, "--safe: Kiln builds standard engines only"},
             {{"--onnx=m.onnx", "--hardwareCompatibilityLevel=ampere+"},
                 "--hardwareCompatibilityLevel: Kiln builds a plan for the GPU it times on"},
             {{"--onnx=m.onnx", "--useRuntime=lean"}, "--useRuntime: Kiln has one runtime"},
             {{"--onnx=m.onnx", "--sleepTime=5"}, "--sleepTime: not supported yet"},
             {{"--onnx=m.onnx", "--idleTime=-3"}, "--idleTime: \"-3\" is not valid"},
             {{"--onnx=m.onnx", "--stripWeights"}, "--stripWeights: not supported yet"},
             {{"--onnx=m.onnx", "--markDebug=x"}, "--markDebug: not supported yet in the kiln command"},
             {{"--onnx=m.onnx", "--timeDeserialize"}, "--timeDeserialize times loading a plan: it needs --loadEngine"},
             {{"--onnx=m.onnx", "--builderOptimizationLevel=6"}, "expected 0 to 5"},
             {{"--onnx=m.onnx", "--profilingVerbosity=loud"}, "expected layer_names_only, detailed or none"},
             {{"--onnx=m.onnx", "--tacticSources=CUDNN"}, "\"CUDNN\" is not +SOURCE or -SOURCE"},
             {{"--onnx=m.onnx", "--workspace=lots"}, "--workspace: "},
             {{"--loadEngine=p.plan", "--best"}, "are build flags"},
             {{"--onnx=m.onnx", "--getPlanVersionOnly"}, "--getPlanVersionOnly reads a plan: it needs --loadEngine"},
             {{}, "no model"},
             {{"--onnx=m.onnx", "--loadEngine=p.plan"}, "--onnx and --loadEngine both give the model"},
             {{"--loadEngine=p.plan", "--fp16"}, "are build flags"},
             {{"--onnx=m.onnx", "--optShapes=x:1"}, "go together"},
             {{"--onnx=m.onnx", "--iterations=x"}, "--iterations"},
             {{"--onnx=m.onnx", "--warmUp=-1"},
                 "--warmUp: \"-1\" is not valid: the value must be a non-negative number"},
             {{"--onnx=m.onnx", "--infStreams=0"}, "--infStreams: \"0\" is not valid: the value must be a positive"},
             // Every numeric flag goes through one checked parser: signs, overflow, trailing text, caps.
             {{"--onnx=m.onnx", "--iterations=-5"},
                 "--iterations: \"-5\" is not valid: the value must be a positive integer (at most 2147483647)"},
             {{"--onnx=m.onnx", "--iterations=99999999999999999999"},
                 "--iterations: \"99999999999999999999\" is not "
                 "valid (it overflows)"},
             {{"--onnx=m.onnx", "--iterations=3000000000"}, "(at most 2147483647)"},
             {{"--onnx=m.onnx", "--iterations=10x"}, "--iterations: \"10x\" is not valid"},
             {{"--onnx=m.onnx", "--avgRuns=-1"}, "--avgRuns: \"-1\" is not valid"},
             {{"--onnx=m.onnx", "--infStreams=100000"},
                 "--infStreams: \"100000\" is not valid: the value must be a "
                 "positive integer (at most 256)"},
             {{"--onnx=m.onnx", "--device=-1"}, "--device: \"-1\" is not valid: the value must be a non-negative"},
             {{"--onnx=m.onnx", "--device=4294967296"}, "--device: \"4294967296\" is not valid"},
             {{"--onnx=m.onnx", "--threads=-2"}, "--threads: \"-2\" is not valid"},
             {{"--onnx=m.onnx", "--duration=nan"}, "--duration: \"nan\" is not valid"},
             {{"--onnx=m.onnx", "--duration=1e999"}, "--duration: \"1e999\" is not valid"},
             {{"--onnx=m.onnx", "--atol=-0.1"}, "--atol: \"-0.1\" is not valid"},
             {{"--onnx=m.onnx", "--memPoolSize=workspace:99999999999999999999"},
                 "--memPoolSize: \"workspace:99999999999999999999\": the size overflows"},
             {{"--onnx=m.onnx", "--memPoolSize=workspace:9000000000G"}, "the size overflows"},
             {{"--onnx=m.onnx", "--workspace=99999999999999999999"},
                 "--workspace: \"workspace:99999999999999999999\": "
                 "the size overflows"},
             {{"--onnx=m.onnx", "--shapes=x:99999999999999999999"}, "(it overflows a 64-bit extent)"},
             {{"--onnx=m.onnx", "--compare=cpu", "--skipInference"}, "cannot go with --skipInference"},
             {{"--onnx=m.onnx", "--convolutionLayout=nhwc"}, "expected timed, hwc or linear"},
             {{"--loadEngine=p.plan", "--convolutionLayout=linear"}, "are build flags"},
         })
    {
        Options o;
        std::string error;
        EXPECT_EQ(parse(c.args, o, error), ParseOutcome::kERROR) << c.message;
        EXPECT_NE(error.find(c.message), std::string::npos) << "expected \"" << c.message << "\" in: " << error;
    }
}

} // namespace
