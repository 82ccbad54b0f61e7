// The kiln command run as a user runs trtexec: flags, report lines, plan round trips, inputs and
// outputs against values worked out by hand, comparison with the CPU reference, and errors.
#include "backend/cpu/fast/fast_path.h"
#include "kiln_runner.h"
#include "test_models.h"

#include <kiln/Backend.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <regex>

namespace
{

using kiln::test::readText;
using kiln::test::runKiln;
using kiln::test::ScratchDir;
using nlohmann::json;

std::string const kDefaultModel = DEFAULT_MODEL;
std::string const kSeedPlugins = std::string("--staticPlugins=") + SEED_PLUGINS;
std::string const kWrongPlugin = std::string("--staticPlugins=") + WRONG_PLUGIN;
// Keeps timing short: no warm-up, no minimum duration, a few iterations.
std::vector<std::string> const kQuick{"--warmUp=0", "--duration=0", "--iterations=3"};

std::vector<std::string> operator+(std::vector<std::string> a, std::vector<std::string> const& b)
{
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

bool contains(std::string const& text, std::string const& part)
{
    return text.find(part) != std::string::npos;
}

TEST(KilnCommand, PrintsTrtexecPerformanceSummary)
{
    auto const run = runKiln(std::vector<std::string>{"--onnx=" + kDefaultModel, kSeedPlugins} + kQuick);
    ASSERT_EQ(run.exitCode, 0) << run.output;
    EXPECT_TRUE(contains(run.output, "&&&& RUNNING Kiln.kiln")) << run.output;
    EXPECT_TRUE(contains(run.output, "=== Performance summary ===")) << run.output;
    EXPECT_TRUE(std::regex_search(run.output, std::regex(R"(\[I\] Throughput: [0-9.e+]+ qps)"))) << run.output;
    for (char const* metric : {"Latency", "Enqueue Time", "H2D Latency", "Compute Time", "D2H Latency"})
    {
        std::regex const line(std::string(R"(\[I\] )") + metric
            + R"(: min = \S+ ms, max = \S+ ms, mean = \S+ ms, median = \S+ ms, percentile\(90%\) = \S+ ms, )"
              R"(percentile\(95%\) = \S+ ms, percentile\(99%\) = \S+ ms)");
        EXPECT_TRUE(std::regex_search(run.output, line)) << metric << "\n" << run.output;
    }
    EXPECT_FALSE(contains(run.output, "GPU Compute Time")) << "the CPU backend has no GPU";
    EXPECT_TRUE(std::regex_search(run.output, std::regex(R"(Total Host Walltime: \S+ s)")));
    EXPECT_TRUE(std::regex_search(run.output, std::regex(R"(Total Compute Time: \S+ s)")));
    EXPECT_TRUE(contains(run.output, "H2D and D2H Latency are 0"));
    EXPECT_TRUE(contains(run.output, "&&&& PASSED Kiln.kiln"));
    EXPECT_TRUE(contains(run.output, "# " + std::string(KILN_EXE) + " --onnx=" + kDefaultModel));
}

TEST(KilnCommand, IterationsAndPercentileFlagsShapeTheReport)
{
    auto const run = runKiln({"--onnx=" + kDefaultModel, kSeedPlugins, "--warmUp=0", "--duration=0", "--iterations=7",
        "--percentile=50,99.5"});
    ASSERT_EQ(run.exitCode, 0) << run.output;
    EXPECT_TRUE(contains(run.output, "Timing trace has 7 queries")) << run.output;
    EXPECT_TRUE(contains(run.output, "percentile(50%) = "));
    EXPECT_TRUE(contains(run.output, "percentile(99.5%) = "));
    EXPECT_FALSE(contains(run.output, "percentile(90%)"));
}

TEST(KilnCommand, DurationKeepsRunningPastTheIterations)
{
    auto const run
        = runKiln({"--onnx=" + kDefaultModel, kSeedPlugins, "--warmUp=50", "--duration=0.3", "--iterations=1"});
    ASSERT_EQ(run.exitCode, 0) << run.output;
    std::smatch match;
    ASSERT_TRUE(std::regex_search(run.output, match, std::regex(R"(Timing trace has (\d+) queries over (\S+) s)")));
    EXPECT_GT(std::stoi(match[1]), 1);
    EXPECT_GE(std::stod(match[2]), 0.3);
    EXPECT_TRUE(std::regex_search(run.output, std::regex(R"(Warmup completed [1-9]\d* queries over 50 ms)")));
}

TEST(KilnCommand, OutputsAreTheSameOnEveryThreadCount)
{
    // The command's OpenMP threads spin briefly and then sleep (tools/kiln/openmp_waiting.cpp); 3 threads, more than
    // a 2-core machine has, make them wait for each other often.
    ScratchDir dir;
    std::vector<json> outputs;
    for (char const* threads : {"1", "2", "3"})
    {
        std::string const exported = dir.path(std::string("threads") + threads + ".json");
        auto const run = runKiln(std::vector<std::string>{"--onnx=" + kDefaultModel, kSeedPlugins,
                                     std::string("--threads=") + threads, "--exportOutput=" + exported}
            + kQuick);
        ASSERT_EQ(run.exitCode, 0) << run.output;
        outputs.push_back(json::parse(readText(exported)));
    }
    EXPECT_EQ(outputs[1], outputs[0]);
    EXPECT_EQ(outputs[2], outputs[0]);
}

TEST(KilnCommand, SavedPlanLoadsAndGivesTheSameOutputs)
{
    ScratchDir dir;
    auto const built = runKiln(std::vector<std::string>{"--onnx=" + kDefaultModel, kSeedPlugins,
                                   "--saveEngine=" + dir.path("model.plan"), "--exportOutput=" + dir.path("built.json")}
        + kQuick);
    ASSERT_EQ(built.exitCode, 0) << built.output;
    auto const loaded = runKiln(std::vector<std::string>{"--loadEngine=" + dir.path("model.plan"), kSeedPlugins,
                                    "--exportOutput=" + dir.path("loaded.json")}
        + kQuick);
    ASSERT_EQ(loaded.exitCode, 0) << loaded.output;
    json const a = json::parse(readText(dir.path("built.json")));
    json const b = json::parse(readText(dir.path("loaded.json")));
    ASSERT_EQ(a.size(), 1U);
    EXPECT_EQ(a[0]["name"], "probabilities");
    EXPECT_EQ(a[0]["dimensions"], "1x10");
    EXPECT_EQ(a, b);
    double sum = 0;
    for (auto const& v : a[0]["values"])
    {
        sum += v.get<double>();
    }
    EXPECT_NEAR(sum, 1.0, 1e-5) << "the default model ends in a softmax";
}

TEST(KilnCommand, Fp16FlagBuildsLayersInHalfPrecision)
{
    ScratchDir dir;
    auto const built = runKiln({"--onnx=" + kDefaultModel, kSeedPlugins, "--fp16", "--skipInference",
        "--saveEngine=" + dir.path("fp16.plan")});
    ASSERT_EQ(built.exitCode, 0) << built.output;
    auto const inspected = runKiln({"inspect", dir.path("fp16.plan")});
    EXPECT_TRUE(std::regex_search(inspected.output, std::regex(R"(conv1 +Convolution +precision FP16)")))
        << inspected.output;
    EXPECT_TRUE(std::regex_search(inspected.output,
        std::regex(
            R"(channel_scale +PluginV2 +precision - +in FP16 -> out FP16, row-major linear, runs MyCustomPlugin version 1)")))
        << "the plugin takes FP16 when allowed";
}

TEST(KilnCommand, SkipInferenceBuildsAndSavesOnly)
{
    ScratchDir dir;
    auto const run = runKiln(
        {"--onnx=" + kDefaultModel, kSeedPlugins, "--skipInference", "--saveEngine=" + dir.path("model.plan")});
    ASSERT_EQ(run.exitCode, 0) << run.output;
    EXPECT_FALSE(contains(run.output, "Performance summary"));
    EXPECT_TRUE(contains(run.output, "Skipped inference phase since --skipInference is added."));
    EXPECT_EQ(readText(dir.path("model.plan")).substr(0, 8), "KILNPLAN");
}

TEST(KilnCommand, CudaPlansBuildWithoutAGpu)
{
    // The builder needs no GPU: with --skipInference a CUDA plan is built and saved on any machine whose Kiln has the
    // CUDA backend (loaded too where a GPU is usable), and `kiln inspect` lists it.
    if (kiln::getNbBackendPasses(kiln::Backend::kCUDA) == 0)
    {
        GTEST_SKIP() << "this build of Kiln has no CUDA backend";
    }
    ScratchDir dir;
    auto const run = runKiln({"--onnx=" + kDefaultModel, kSeedPlugins, "--backend=cuda", "--skipInference",
        "--saveEngine=" + dir.path("cuda.plan")});
    ASSERT_EQ(run.exitCode, 0) << run.output;
    EXPECT_TRUE(contains(run.output, "Engine built: ")) << run.output;
    if (!kiln::backendAvailable(kiln::Backend::kCUDA))
    {
        EXPECT_TRUE(contains(run.output, "no GPU is usable here; the CUDA plan is built")) << run.output;
    }
    auto const inspected = runKiln({"inspect", dir.path("cuda.plan")});
    ASSERT_EQ(inspected.exitCode, 0) << inspected.output;
    EXPECT_TRUE(contains(inspected.output, "cuda backend")) << inspected.output;
    EXPECT_TRUE(contains(inspected.output, "MyCustomPlugin")) << inspected.output;
}

TEST(KilnCommand, LoadInputsAndExportOutputAgreeWithHandWorkedValues)
{
    ScratchDir dir;
    kiln::test::writeDoubleReluModel(dir.path("double_relu.onnx"));
    float const x[] = {-1.0F, 0.5F, 2.0F, -3.0F, 4.0F, 0.0F};
    kiln::test::writeBytes(dir.path("x.bin"), x, sizeof(x));
    // The input name quoted, as trtexec allows.
    auto const run
        = runKiln(std::vector<std::string>{"--onnx=" + dir.path("double_relu.onnx"), "--shapes='x':2x3",
                      "--loadInputs='x':" + dir.path("x.bin"), "--exportOutput=" + dir.path("out.json"), "--dumpOutput"}
            + kQuick);
    ASSERT_EQ(run.exitCode, 0) << run.output;
    json const out = json::parse(readText(dir.path("out.json")));
    ASSERT_EQ(out.size(), 1U);
    EXPECT_EQ(out[0]["name"], "y");
    EXPECT_EQ(out[0]["dimensions"], "2x3");
    EXPECT_EQ(out[0]["values"], json({0.0, 1.0, 4.0, 0.0, 8.0, 0.0}));
    EXPECT_TRUE(contains(run.output, "Output Tensors:"));
    EXPECT_TRUE(contains(run.output, "y: (2x3)"));
    EXPECT_TRUE(contains(run.output, "0 1 4 0 8 0"));
    EXPECT_TRUE(contains(run.output, "Input \"x\": FP32 2x3 (from --loadInputs)"));
}

TEST(KilnCommand, CalibrationCacheQuantizesImplicitly)
{
    // x's scale 2 / 127 (0x3c810204) from a cache in TensorRT's format; numpy computes the same quantization:
    // clip(rint(x / s), -128, 127) * s times W quantized per column (s_c = max|W_c| / 127).
    ScratchDir dir;
    kiln::test::writeMatMulModel(dir.path("matmul.onnx"));
    std::string const cache = "TRT-8601-EntropyCalibration2\nx: 3c810204\ny: 3c000000\n";
    kiln::test::writeBytes(dir.path("calib.cache"), cache.data(), cache.size());
    float const x[] = {0.3F, -1.2F, 2.5F, 1.9F, 0.05F, -0.7F};
    kiln::test::writeBytes(dir.path("x.bin"), x, sizeof(x));
    std::vector<std::string> const args{"--onnx=" + dir.path("matmul.onnx"), "--loadInputs=x:" + dir.path("x.bin"),
        "--exportOutput=" + dir.path("out.json")};
    auto const run = runKiln(args + std::vector<std::string>{"--int8", "--calib=" + dir.path("calib.cache")} + kQuick);
    ASSERT_EQ(run.exitCode, 0) << run.output;
    json const out = json::parse(readText(dir.path("out.json")));
    std::vector<double> const expected{-2.5421290, -0.23555088, 1.5258231, -0.53170067};
    ASSERT_EQ(out[0]["values"].size(), expected.size());
    for (size_t i = 0; i < expected.size(); ++i)
    {
        EXPECT_NEAR(out[0]["values"][i].get<double>(), expected[i], 1e-6) << i;
    }
    auto const noInt8 = runKiln(args + std::vector<std::string>{"--calib=" + dir.path("calib.cache")} + kQuick);
    EXPECT_NE(noInt8.exitCode, 0);
    EXPECT_TRUE(contains(noInt8.output, "--calib gives INT8 scales: it needs --int8")) << noInt8.output;
    kiln::test::writeBytes(dir.path("bad.cache"), "x: 3c810204\n", 12);
    auto const bad = runKiln(args + std::vector<std::string>{"--int8", "--calib=" + dir.path("bad.cache")} + kQuick);
    EXPECT_NE(bad.exitCode, 0);
    EXPECT_TRUE(contains(bad.output, "does not start with a calibration cache's header")) << bad.output;
}

TEST(KilnCommand, ZeroDimensionalInputsTakeTrtexecsScalarShapeSyntax)
{
    ScratchDir dir;
    kiln::test::writeScaledReluModel(dir.path("scaled_relu.onnx"));
    float const x[] = {-1.0F, 0.5F, 2.0F, -3.0F, 4.0F, 0.0F};
    float const s = 3.0F;
    kiln::test::writeBytes(dir.path("x.bin"), x, sizeof(x));
    kiln::test::writeBytes(dir.path("s.bin"), &s, sizeof(s));
    for (std::string const scalar : {"s:scalar", "s:"})
    {
        auto const run
            = runKiln(std::vector<std::string>{"--onnx=" + dir.path("scaled_relu.onnx"), "--shapes=x:2x3," + scalar,
                          "--loadInputs=x:" + dir.path("x.bin") + ",s:" + dir.path("s.bin"),
                          "--exportOutput=" + dir.path("out.json")}
                + kQuick);
        ASSERT_EQ(run.exitCode, 0) << scalar << "\n" << run.output;
        json const out = json::parse(readText(dir.path("out.json")));
        ASSERT_EQ(out.size(), 1U) << scalar;
        EXPECT_EQ(out[0]["dimensions"], "2x3") << scalar;
        EXPECT_EQ(out[0]["values"], json({0.0, 1.5, 6.0, 0.0, 12.0, 0.0})) << scalar;
    }
}

TEST(KilnCommand, ShapeTensorInputsTakeTheirValuesFromTheShapeFlags)
{
    // As trtexec reads them: for a shape-tensor input, the shape flags give its values. --shapes=s:3x2 reshapes x to
    // [3, 2]; a profile from --minShapes/--optShapes/--maxShapes runs at its opt values; none given is an error naming
    // the input and the flag, as is a wrong count of values.
    ScratchDir dir;
    kiln::test::writeReshapeByInputModel(dir.path("reshape.onnx"));
    float const x[] = {1.0F, 2.0F, 3.0F, 4.0F, 5.0F, 6.0F};
    kiln::test::writeBytes(dir.path("x.bin"), x, sizeof(x));
    std::vector<std::string> const model{"--onnx=" + dir.path("reshape.onnx"), "--loadInputs=x:" + dir.path("x.bin")};
    auto const fixed
        = runKiln(model + std::vector<std::string>{"--shapes=s:3x2", "--exportOutput=" + dir.path("a.json")} + kQuick);
    ASSERT_EQ(fixed.exitCode, 0) << fixed.output;
    json const a = json::parse(readText(dir.path("a.json")));
    EXPECT_EQ(a[0]["dimensions"], "3x2");
    EXPECT_EQ(a[0]["values"], json({1.0, 2.0, 3.0, 4.0, 5.0, 6.0}));
    auto const profiled = runKiln(model
        + std::vector<std::string>{"--minShapes=s:1x6", "--optShapes=s:2x3", "--maxShapes=s:6x1",
            "--exportOutput=" + dir.path("b.json")}
        + kQuick);
    ASSERT_EQ(profiled.exitCode, 0) << profiled.output;
    EXPECT_EQ(json::parse(readText(dir.path("b.json")))[0]["dimensions"], "2x3") << "runs at the opt values";
    auto const none = runKiln(model + kQuick);
    EXPECT_NE(none.exitCode, 0);
    EXPECT_TRUE(contains(none.output, "input \"s\" is a shape tensor that no shape flag gives values")) << none.output;
    EXPECT_TRUE(contains(none.output, "give them with --shapes=s:")) << none.output;
    auto const wrongCount = runKiln(model + std::vector<std::string>{"--shapes=s:1x2x3"} + kQuick);
    EXPECT_NE(wrongCount.exitCode, 0);
    EXPECT_TRUE(contains(wrongCount.output, "is a shape tensor of 2 values, and the shape flags give it 3"))
        << wrongCount.output;
}

TEST(KilnCommand, IntegerInputsThatFeedOnlyDataNeedNoShapeFlags)
{
    // An INT64 input of three values that a gather reads as its indices could be a shape tensor while the network is
    // defined, but no shape depends on it: kiln builds without values for it and runs it as an ordinary input, from
    // --loadInputs (or random values) at the shape the model declares, as trtexec does with TensorRT.
    ScratchDir dir;
    kiln::test::writeGatherByInputModel(dir.path("gather.onnx"));
    float const x[] = {1.0F, 2.0F, 3.0F, 4.0F, 5.0F, 6.0F, 7.0F, 8.0F};
    int64_t const i[] = {3, 0, 3};
    kiln::test::writeBytes(dir.path("x.bin"), x, sizeof(x));
    kiln::test::writeBytes(dir.path("i.bin"), i, sizeof(i));
    auto const run = runKiln(
        std::vector<std::string>{"--onnx=" + dir.path("gather.onnx"),
            "--loadInputs=x:" + dir.path("x.bin") + ",i:" + dir.path("i.bin"), "--exportOutput=" + dir.path("out.json")}
        + kQuick);
    ASSERT_EQ(run.exitCode, 0) << run.output;
    json const out = json::parse(readText(dir.path("out.json")));
    ASSERT_EQ(out.size(), 1U);
    EXPECT_EQ(out[0]["dimensions"], "3x2");
    EXPECT_EQ(out[0]["values"], json({7.0, 8.0, 1.0, 2.0, 7.0, 8.0}));
}

TEST(KilnCommand, DataDependentOutputsAreReceivedAndExportedInTheirShape)
{
    // NonZero's count is known only once the network has run: kiln receives the output through an IOutputAllocator,
    // as trtexec does, and exports the shape and values the inference gave.
    ScratchDir dir;
    kiln::test::writeNonZeroModel(dir.path("non_zero.onnx"));
    float const x[] = {0.0F, 2.0F, 0.0F, 5.0F, -1.0F};
    kiln::test::writeBytes(dir.path("x.bin"), x, sizeof(x));
    auto const run = runKiln(std::vector<std::string>{"--onnx=" + dir.path("non_zero.onnx"), "--shapes=x:5",
                                 "--loadInputs=x:" + dir.path("x.bin"), "--exportOutput=" + dir.path("out.json")}
        + kQuick);
    ASSERT_EQ(run.exitCode, 0) << run.output;
    json const out = json::parse(readText(dir.path("out.json")));
    ASSERT_EQ(out.size(), 1U);
    EXPECT_EQ(out[0]["dimensions"], "1x3");
    EXPECT_EQ(out[0]["values"], json({1.0, 3.0, 4.0}));
}

TEST(KilnCommand, ProfileShapesTheRunAndExportsTheShapes)
{
    ScratchDir dir;
    kiln::test::writeDoubleReluModel(dir.path("double_relu.onnx"));
    auto const run = runKiln(std::vector<std::string>{"--onnx=" + dir.path("double_relu.onnx"), "--minShapes=x:1x3",
                                 "--optShapes=x:4x3", "--maxShapes=x:8x3", "--exportOutput=" + dir.path("opt.json")}
        + kQuick);
    ASSERT_EQ(run.exitCode, 0) << run.output;
    EXPECT_EQ(json::parse(readText(dir.path("opt.json")))[0]["dimensions"], "4x3") << "runs at the opt shape";
    auto const at6 = runKiln(
        std::vector<std::string>{"--onnx=" + dir.path("double_relu.onnx"), "--minShapes=x:1x3", "--optShapes=x:4x3",
            "--maxShapes=x:8x3", "--shapes=x:6x3", "--exportOutput=" + dir.path("six.json")}
        + kQuick);
    ASSERT_EQ(at6.exitCode, 0) << at6.output;
    EXPECT_EQ(json::parse(readText(dir.path("six.json")))[0]["dimensions"], "6x3");
}

TEST(KilnCommand, DynamicInputWithoutShapesRunsAtOneWithTrtexecsWarning)
{
    ScratchDir dir;
    kiln::test::writeDoubleReluModel(dir.path("double_relu.onnx"));
    auto const run = runKiln(std::vector<std::string>{"--onnx=" + dir.path("double_relu.onnx")} + kQuick);
    ASSERT_EQ(run.exitCode, 0) << run.output;
    EXPECT_TRUE(contains(run.output,
        "Dynamic dimensions required for input: x, but no shapes were provided. "
        "Automatically overriding shape to: 1x3"))
        << run.output;
}

TEST(KilnCommand, ExportTimesHasOneTraceEntryPerInference)
{
    ScratchDir dir;
    auto const run = runKiln({"--onnx=" + kDefaultModel, kSeedPlugins, "--warmUp=0", "--duration=0", "--iterations=5",
        "--exportTimes=" + dir.path("times.json")});
    ASSERT_EQ(run.exitCode, 0) << run.output;
    json const times = json::parse(readText(dir.path("times.json")));
    ASSERT_EQ(times.size(), 5U);
    for (auto const& t : times)
    {
        for (char const* key : {"startEnqMs", "endEnqMs", "startH2dMs", "endH2dMs", "startComputeMs", "endComputeMs",
                 "startD2hMs", "endD2hMs", "h2dMs", "computeMs", "d2hMs", "latencyMs"})
        {
            EXPECT_TRUE(t.contains(key)) << key;
        }
        EXPECT_NEAR(
            t["computeMs"].get<double>(), t["endComputeMs"].get<double>() - t["startComputeMs"].get<double>(), 1e-9);
        EXPECT_EQ(t["h2dMs"].get<double>(), 0.0);
    }
    EXPECT_LE(times[0]["endComputeMs"].get<double>(), times[1]["startComputeMs"].get<double>());
}

TEST(KilnCommand, DumpProfileKeepsTheTimesOfALayerWithALongName)
{
    // A fused attention of a quantized export is named after the 30 layers it replaces: over 3,000 characters.
    ScratchDir dir;
    std::string name;
    for (int i = 0; name.size() < 3000; ++i)
    {
        name += "/encoder/layer.0/attention/self/Layer_" + std::to_string(i) + " + ";
    }
    name += "end of the name";
    kiln::test::writeNamedReluModel(dir.path("named_relu.onnx"), name);
    auto const run
        = runKiln(std::vector<std::string>{"--onnx=" + dir.path("named_relu.onnx"), "--dumpProfile"} + kQuick);
    ASSERT_EQ(run.exitCode, 0) << run.output;
    EXPECT_TRUE(std::regex_search(run.output, std::regex(R"(end of the name +\S+ +\S+ +\S+ +100\.0)")))
        << run.output.substr(0, 2000);
}

TEST(KilnCommand, DumpProfileListsLayersWithPluginsByName)
{
    ScratchDir dir;
    auto const run = runKiln(std::vector<std::string>{"--onnx=" + kDefaultModel, kSeedPlugins, "--dumpProfile",
                                 "--exportProfile=" + dir.path("profile.json")}
        + kQuick);
    ASSERT_EQ(run.exitCode, 0) << run.output;
    EXPECT_TRUE(contains(run.output, "=== Profile (3 iterations ) ===")) << run.output;
    EXPECT_TRUE(std::regex_search(run.output, std::regex(R"(channel_scale \[plugin MyCustomPlugin\] +\S+ +\S+)")))
        << run.output;
    EXPECT_TRUE(std::regex_search(run.output, std::regex(R"(Total +\S+ +\S+ +\S+ +100\.0)")));
    json const profile = json::parse(readText(dir.path("profile.json")));
    ASSERT_GT(profile.size(), 1U);
    EXPECT_EQ(profile[0]["count"], 3);
    double percent = 0;
    bool sawPlugin = false;
    for (size_t i = 1; i < profile.size(); ++i)
    {
        percent += profile[i]["percentage"].get<double>();
        sawPlugin = sawPlugin || profile[i]["name"] == "channel_scale";
        EXPECT_NEAR(profile[i]["averageMs"].get<double>() * 3, profile[i]["timeMs"].get<double>(), 1e-9);
    }
    EXPECT_TRUE(sawPlugin);
    EXPECT_NEAR(percent, 100.0, 1e-6);
}

TEST(KilnCommand, ProfileCoversTheMeasuredInferencesOnly)
{
    auto const run = runKiln(
        {"--onnx=" + kDefaultModel, kSeedPlugins, "--warmUp=20", "--duration=0", "--iterations=4", "--dumpProfile"});
    ASSERT_EQ(run.exitCode, 0) << run.output;
    EXPECT_TRUE(std::regex_search(run.output, std::regex(R"(Warmup completed [1-9]\d* queries)"))) << run.output;
    EXPECT_TRUE(contains(run.output, "Timing trace has 4 queries"));
    EXPECT_TRUE(contains(run.output, "=== Profile (4 iterations ) ==="));
}

TEST(KilnCommand, SeparateProfileRunProfilesAsManyRunsAsWereTimed)
{
    auto const run = runKiln(
        std::vector<std::string>{"--onnx=" + kDefaultModel, kSeedPlugins, "--dumpProfile", "--separateProfileRun"}
        + kQuick);
    ASSERT_EQ(run.exitCode, 0) << run.output;
    EXPECT_TRUE(contains(run.output, "=== Profile (3 iterations ) ===")) << run.output;
}

TEST(KilnCommand, ExportLayerInfoDescribesThePluginLayer)
{
    ScratchDir dir;
    auto const run = runKiln(
        {"--onnx=" + kDefaultModel, kSeedPlugins, "--skipInference", "--exportLayerInfo=" + dir.path("layers.json")});
    ASSERT_EQ(run.exitCode, 0) << run.output;
    json const info = json::parse(readText(dir.path("layers.json")));
    ASSERT_TRUE(info.contains("Layers"));
    bool sawPlugin = false;
    for (auto const& layer : info["Layers"])
    {
        if (layer.contains("Plugin"))
        {
            sawPlugin = true;
            EXPECT_EQ(layer["Name"], "channel_scale");
            EXPECT_EQ(layer["Plugin"]["Name"], "MyCustomPlugin");
        }
    }
    EXPECT_TRUE(sawPlugin);
    EXPECT_EQ(info["Bindings"], json({"input", "probabilities"}));
}

TEST(KilnCommand, SeveralInferenceStreamsRunTogether)
{
    auto const run = runKiln(
        {"--onnx=" + kDefaultModel, kSeedPlugins, "--warmUp=0", "--duration=0", "--iterations=8", "--infStreams=2"});
    ASSERT_EQ(run.exitCode, 0) << run.output;
    std::smatch match;
    ASSERT_TRUE(std::regex_search(run.output, match, std::regex(R"(Timing trace has (\d+) queries)")));
    EXPECT_GE(std::stoi(match[1]), 8);
}

TEST(KilnCommand, GpuOnlyFlagsAreAcceptedAndSaidToHaveNoEffectOnTheCpu)
{
    ScratchDir dir;
    auto const run = runKiln(std::vector<std::string>{"--onnx=" + kDefaultModel, kSeedPlugins, "--useCudaGraph",
                                 "--noDataTransfers", "--useSpinWait", "--timingCacheFile=" + dir.path("cache"),
                                 "--memPoolSize=workspace:64M", "--backend=cpu", "--device=0"}
        + kQuick);
    ASSERT_EQ(run.exitCode, 0) << run.output;
    for (char const* flag : {"--useCudaGraph", "--noDataTransfers", "--useSpinWait", "--timingCacheFile"})
    {
        EXPECT_TRUE(contains(run.output, std::string(flag) + " has no effect on the CPU backend")) << flag;
    }
}

TEST(KilnCommand, VerboseLogsKilnsOwnMessages)
{
    auto const run = runKiln(std::vector<std::string>{"--onnx=" + kDefaultModel, kSeedPlugins, "--verbose"} + kQuick);
    ASSERT_EQ(run.exitCode, 0) << run.output;
    EXPECT_TRUE(contains(run.output, "] [V] ")) << run.output;
    EXPECT_TRUE(contains(run.output, "=== Explanations of the performance metrics ==="));
    auto const quiet = runKiln(std::vector<std::string>{"--onnx=" + kDefaultModel, kSeedPlugins} + kQuick);
    EXPECT_FALSE(contains(quiet.output, "] [V] "));
}

TEST(KilnCommand, BuildProgressIsPlainLinesWhenNotOnATerminal)
{
    auto const run = runKiln({"--onnx=" + kDefaultModel, kSeedPlugins, "--skipInference"});
    ASSERT_EQ(run.exitCode, 0) << run.output;
    EXPECT_TRUE(std::regex_search(run.output, std::regex(R"(\[I\] \[build\] \S.*: \d+ steps)"))) << run.output;
    EXPECT_TRUE(std::regex_search(run.output, std::regex(R"(\[I\] \[build\] \S.*: done)")));
    EXPECT_FALSE(contains(run.output, "\r"));
}

TEST(KilnCommand, HelpListsTrtexecAndKilnFlags)
{
    auto const run = runKiln({"--help"});
    EXPECT_EQ(run.exitCode, 0);
    for (char const* flag : {"--onnx", "--loadEngine", "--saveEngine", "--shapes", "--memPoolSize", "--loadInputs",
             "--exportOutput", "--dumpProfile", "--backend", "--compare", "--compareLayers", "--atol"})
    {
        EXPECT_TRUE(contains(run.output, flag)) << flag;
    }
}

// --- Comparison with the CPU reference -------------------------------------------------------

TEST(KilnCompare, DefaultModelMatchesTheReference)
{
    auto const run
        = runKiln(std::vector<std::string>{"--onnx=" + kDefaultModel, kSeedPlugins, "--compare=cpu"} + kQuick);
    ASSERT_EQ(run.exitCode, 0) << run.output;
    // The fast path (oneDNN) against the reference kernels: close, not bit for bit.
    EXPECT_TRUE(contains(run.output, "Output \"probabilities\" (1x10): max abs diff = ")) << run.output;
    EXPECT_TRUE(contains(run.output, "Comparison with the CPU reference: PASSED"));
}

TEST(KilnCompare, ReferenceKernelsMatchThemselvesExactly)
{
    auto const run = runKiln(
        std::vector<std::string>{"--onnx=" + kDefaultModel, kSeedPlugins, "--compare=cpu", "--cpuKernels=reference"}
        + kQuick);
    ASSERT_EQ(run.exitCode, 0) << run.output;
    EXPECT_TRUE(contains(run.output, "Output \"probabilities\" (1x10): max abs diff = 0,")) << run.output;
    EXPECT_TRUE(contains(run.output, "Comparison with the CPU reference: PASSED"));
}

TEST(KilnCompare, CorrectFp32PathOfTheWrongPluginPasses)
{
    ScratchDir dir;
    kiln::test::writeWrongPluginModel(dir.path("wrong.onnx"));
    auto const run
        = runKiln(std::vector<std::string>{"--onnx=" + dir.path("wrong.onnx"), kWrongPlugin, "--compare=cpu"} + kQuick);
    EXPECT_EQ(run.exitCode, 0) << run.output;
    EXPECT_TRUE(contains(run.output, "&&&& PASSED"));
}

TEST(KilnCompare, CatchesAPluginWhoseFp16PathIsWrong)
{
    ScratchDir dir;
    kiln::test::writeWrongPluginModel(dir.path("wrong.onnx"));
    auto const run = runKiln(std::vector<std::string>{"--onnx=" + dir.path("wrong.onnx"), kWrongPlugin, "--fp16",
                                 "--compare=cpu", "--atol=1e-2", "--rtol=1e-2"}
        + kQuick);
    EXPECT_EQ(run.exitCode, 1) << run.output;
    EXPECT_TRUE(std::regex_search(run.output, std::regex(R"(\[E\] Output "y" \(1x8\): max abs diff = 1\b.*FAILED)")))
        << run.output;
    EXPECT_TRUE(contains(run.output, "Comparison with the CPU reference: FAILED"));
    EXPECT_TRUE(contains(run.output, "&&&& FAILED Kiln.kiln"));
}

TEST(KilnCompare, CompareLayersNamesThePluginAsTheFirstDivergingLayer)
{
    ScratchDir dir;
    kiln::test::writeWrongPluginModel(dir.path("wrong.onnx"));
    auto const run = runKiln(std::vector<std::string>{"--onnx=" + dir.path("wrong.onnx"), kWrongPlugin, "--fp16",
                                 "--compare=cpu", "--compareLayers", "--atol=1e-2", "--rtol=1e-2"}
        + kQuick);
    EXPECT_EQ(run.exitCode, 1) << run.output;
    EXPECT_TRUE(contains(run.output, "Layer \"relu_in\" output \"a\" (1x8)")) << run.output;
    EXPECT_TRUE(contains(run.output, "First diverging layer: \"doubler\" (output \"b\")")) << run.output;
    EXPECT_FALSE(contains(run.output, "Layer \"relu_out\"")) << "the comparison stops at the first divergence";
}

TEST(KilnCompare, CompareLayersInFp16KeepsTheTypesTheNetworkReads)
{
    // relu's output, marked for the comparison, is read by a difference with a FLOAT constant: were it made a HALF
    // output, the difference's operands would differ in type and the network would not build.
    ScratchDir dir;
    kiln::test::writeReluMinusConstantModel(dir.path("relu_minus.onnx"));
    auto const run = runKiln(std::vector<std::string>{"--onnx=" + dir.path("relu_minus.onnx"), "--fp16",
                                 "--compare=cpu", "--compareLayers", "--atol=1e-2", "--rtol=1e-2"}
        + kQuick);
    EXPECT_EQ(run.exitCode, 0) << run.output;
    EXPECT_TRUE(contains(run.output, "Layer \"relu\" output \"r\" (2x3)")) << run.output;
    EXPECT_TRUE(contains(run.output, "Comparison with the CPU reference: PASSED")) << run.output;
}

// --- Kiln's plugin collection -----------------------------------------------------------------

TEST(KilnPluginCollection, OnnxPluginNodeBuildsAndItsPlanRunsInAnotherProcess)
{
    // kiln registers libkiln_plugins itself: no plugin flag is needed, to build or to load.
    ScratchDir dir;
    kiln::test::writeGeluPluginModel(dir.path("gelu.onnx"));
    auto const built
        = runKiln({"--onnx=" + dir.path("gelu.onnx"), "--skipInference", "--saveEngine=" + dir.path("gelu.plan")});
    ASSERT_EQ(built.exitCode, 0) << built.output;

    auto const inspected = runKiln({"inspect", dir.path("gelu.plan")});
    ASSERT_EQ(inspected.exitCode, 0) << inspected.output;
    EXPECT_TRUE(std::regex_search(inspected.output,
        std::regex(
            R"(Plugins needed \(1\):\n  CustomGeluPluginDynamic version 1 namespace "" \(IPluginV2DynamicExt\), )"
            R"(from \S*libkiln_plugins\.so)")))
        << inspected.output;

    float const x[] = {1.F, 1.F, -2.F, 0.5F};
    kiln::test::writeBytes(dir.path("x.bin"), x, sizeof(x));
    auto const loaded = runKiln(std::vector<std::string>{"--loadEngine=" + dir.path("gelu.plan"),
                                    "--loadInputs=x:" + dir.path("x.bin"), "--exportOutput=" + dir.path("out.json")}
        + kQuick);
    ASSERT_EQ(loaded.exitCode, 0) << loaded.output;
    json const out = json::parse(readText(dir.path("out.json")));
    ASSERT_EQ(out.size(), 1U);
    // torch.nn.functional.gelu(x + [0.25, -0.75], approximate="tanh").
    std::vector<double> const expected{1.1177142029697147, 0.149675350701685, -0.0702046176587487, -0.100324649298315};
    ASSERT_EQ(out[0]["values"].size(), expected.size());
    for (size_t i = 0; i < expected.size(); ++i)
    {
        EXPECT_NEAR(out[0]["values"][i].get<double>(), expected[i], 1e-6) << i;
    }
}

TEST(KilnTrtexecFlags, BuildFlagsBeyondKilnsOwnBuildDumpTheLayersAndThePlanSaysItsVersion)
{
    ScratchDir dir;
    auto const built = runKiln({"--onnx=" + kDefaultModel, kSeedPlugins, "--workspace=64", "--noBuilderCache",
        "--builderOptimizationLevel=2", "--tacticSources=-CUDNN", "--profilingVerbosity=detailed", "--stronglyTyped",
        "--skipInference", "--dumpLayerInfo", "--saveEngine=" + dir.path("model.plan")});
    ASSERT_EQ(built.exitCode, 0) << built.output;
    EXPECT_TRUE(contains(built.output, "Layer Information:")) << built.output;
    EXPECT_TRUE(contains(built.output, "\"Layers\"")) << built.output;
    EXPECT_TRUE(contains(built.output, "--tacticSources: kept in the builder configuration")) << built.output;

    // --timeDeserialize loads the plan (its plugin library given) and times ten more loads, running nothing.
    auto const loads = runKiln({"--loadEngine=" + dir.path("model.plan"), kSeedPlugins, "--timeDeserialize"});
    ASSERT_EQ(loads.exitCode, 0) << loads.output;
    EXPECT_TRUE(std::regex_search(loads.output,
        std::regex(
            R"(Deserialization of [1-9]\d* bytes, 10 times: median [0-9.]+ ms, min [0-9.]+ ms, max [0-9.]+ ms)")))
        << loads.output;
    EXPECT_FALSE(contains(loads.output, "Throughput")) << loads.output;

    auto const version = runKiln({"--loadEngine=" + dir.path("model.plan"), "--getPlanVersionOnly"});
    ASSERT_EQ(version.exitCode, 0) << version.output;
    EXPECT_TRUE(
        std::regex_search(version.output, std::regex(R"(Plan format version \d+, written by Kiln \d+\.\d+\.\d+)")))
        << version.output;

    kiln::test::writeBytes(dir.path("not.plan"), "ONNX", 4);
    auto const notAPlan = runKiln({"--loadEngine=" + dir.path("not.plan"), "--getPlanVersionOnly"});
    EXPECT_NE(notAPlan.exitCode, 0);
    EXPECT_TRUE(contains(notAPlan.output, "the file is not a Kiln plan")) << notAPlan.output;

    auto const best = runKiln(std::vector<std::string>{"--onnx=" + kDefaultModel, kSeedPlugins, "--best"} + kQuick);
    ASSERT_EQ(best.exitCode, 0) << best.output;
    EXPECT_FALSE(contains(best.output, "--best:")) << best.output; // taken as --fp16 --int8 --fp8, no warning

    // The bundled model's convolution weights are its initializers: refittable, by the initializers' names.
    auto const refit = runKiln(std::vector<std::string>{"--onnx=" + kDefaultModel, kSeedPlugins, "--refit"} + kQuick);
    ASSERT_EQ(refit.exitCode, 0) << refit.output;
    EXPECT_TRUE(std::regex_search(refit.output, std::regex(R"(Refittable weights: [1-9]\d* \([1-9]\d* named\))")))
        << refit.output;

    // --int8 sets kINT8: a model without Q/DQ layers builds and runs in FP32, as TensorRT's would without INT8 kernels.
    auto const int8 = runKiln(std::vector<std::string>{"--onnx=" + kDefaultModel, kSeedPlugins, "--int8"} + kQuick);
    EXPECT_EQ(int8.exitCode, 0) << int8.output;

    // --bf16 stores the convolution's weights and tensors in BF16; trtexec's older names and no-op flags build as
    // trtexec's would, saying which flags do nothing here.
    auto const bf16 = runKiln({"--onnx=" + kDefaultModel, kSeedPlugins, "--bf16", "--noTF32", "--sparsity=enable",
        "--tempdir=" + dir.path(""), "--buildOnly", "--saveEngine=" + dir.path("bf16.plan")});
    ASSERT_EQ(bf16.exitCode, 0) << bf16.output;
    EXPECT_TRUE(contains(bf16.output, "--sparsity=enable: kSPARSE_WEIGHTS is set")) << bf16.output;
    EXPECT_TRUE(contains(bf16.output, "--tempdir: taken and ignored")) << bf16.output;
    EXPECT_FALSE(contains(bf16.output, "Throughput")) << "--buildOnly runs nothing";
    auto const inspected = runKiln({"inspect", dir.path("bf16.plan")});
    ASSERT_EQ(inspected.exitCode, 0) << inspected.output;
    EXPECT_TRUE(std::regex_search(inspected.output, std::regex(R"(conv1.*precision BF16)"))) << inspected.output;

    // --idleTime: the host sleeps between inferences, so four measured ones span at least three sleeps.
    auto const idle = runKiln(
        {"--onnx=" + kDefaultModel, kSeedPlugins, "--idleTime=40", "--warmUp=0", "--duration=0", "--iterations=4"});
    ASSERT_EQ(idle.exitCode, 0) << idle.output;
    std::smatch walltime;
    ASSERT_TRUE(std::regex_search(idle.output, walltime, std::regex(R"(Total Host Walltime: ([0-9.]+) s)")))
        << idle.output;
    EXPECT_GE(std::stod(walltime[1].str()), 0.120) << idle.output;

    auto const dla = runKiln({"--onnx=" + kDefaultModel, kSeedPlugins, "--useDLACore=0", "--allowGPUFallback"});
    EXPECT_NE(dla.exitCode, 0);
    EXPECT_TRUE(contains(dla.output, "--useDLACore: Kiln has no DLA")) << dla.output;
}

// --- kiln inspect ------------------------------------------------------------------------------

TEST(KilnInspect, ShowsManifestLayersAndMemoryPlan)
{
    ScratchDir dir;
    auto const built = runKiln(
        {"--onnx=" + kDefaultModel, kSeedPlugins, "--skipInference", "--saveEngine=" + dir.path("model.plan")});
    ASSERT_EQ(built.exitCode, 0) << built.output;
    // No plugin library is loaded: inspecting reads the file only.
    auto const run = runKiln({"inspect", dir.path("model.plan")});
    ASSERT_EQ(run.exitCode, 0) << run.output;
    EXPECT_TRUE(contains(run.output, "cpu backend")) << run.output;
    EXPECT_TRUE(std::regex_search(run.output,
        std::regex(
            R"(Plugins needed \(1\):\n  MyCustomPlugin version 1 namespace "" \(IPluginV2DynamicExt\), from \S*libkiln_seed_plugins\.so)")))
        << run.output;
    EXPECT_TRUE(std::regex_search(run.output, std::regex(R"(input +input +FP32 +\[1, 3, 16, 16\])")));
    EXPECT_TRUE(std::regex_search(run.output, std::regex(R"(output +probabilities +FP32 +\[1, 10\])")));
    // The CPU backend's fast path runs the convolution with the ReLU after it; a Kiln without oneDNN keeps them
    // apart, on the reference kernels.
    bool const fast = kiln::cpu::fast::Session::available();
    EXPECT_TRUE(std::regex_search(run.output,
        std::regex(fast ? R"(conv1 \+ relu1 +Convolution +precision FP32 .*kernel oneDNN)"
                        : R"(conv1 +Convolution +precision FP32 .*kernel reference)")));
    EXPECT_TRUE(std::regex_search(run.output, std::regex(R"(channel_scale +PluginV2)")));
    EXPECT_TRUE(std::regex_search(run.output, std::regex(R"(Memory plan: [1-9]\d* bytes of activations)")));
    std::string const convolved = fast ? "relu1_out" : "conv1_out";
    EXPECT_TRUE(std::regex_search(run.output, std::regex(convolved + R"( +offset +\d+ +up to +8192 bytes)")))
        << "8 channels x 16 x 16 floats";
    // Flatten only re-describes the pooled features: a view of them, with no memory of its own.
    EXPECT_TRUE(std::regex_search(
        run.output, std::regex(R"(flatten \(reshape \d+\) +Shuffle .*, view of gap_out \(runs nothing\))")))
        << run.output;
    EXPECT_TRUE(std::regex_search(run.output, std::regex(R"(features +view of gap_out from element 0)")));
    // After the list, the layers counted by kind, the views apart.
    EXPECT_TRUE(
        std::regex_search(run.output, std::regex(R"(\n  by kind: .*\b1 PluginV2\b.*; 1 view \(run nothing\)\n)")))
        << run.output;
}

TEST(KilnInspect, ListsTheBuildPassesOfThePlansBackendInOrder)
{
    ScratchDir dir;
    auto const built = runKiln(
        {"--onnx=" + kDefaultModel, kSeedPlugins, "--skipInference", "--saveEngine=" + dir.path("model.plan")});
    ASSERT_EQ(built.exitCode, 0) << built.output;
    auto const run = runKiln({"inspect", dir.path("model.plan")});
    ASSERT_EQ(run.exitCode, 0) << run.output;
    int32_t const count = kiln::getNbBackendPasses(kiln::Backend::kCPU);
    ASSERT_GT(count, 0);
    std::string expected
        = "Build passes of the cpu backend, in the order it applies them (" + std::to_string(count) + "):\n";
    for (int32_t i = 0; i < count; ++i)
    {
        char number[16];
        std::snprintf(number, sizeof(number), "%3d", i + 1);
        expected += "  " + std::string(number) + " " + kiln::getBackendPassName(kiln::Backend::kCPU, i) + "\n";
    }
    EXPECT_TRUE(contains(run.output, expected)) << run.output;
    EXPECT_TRUE(contains(run.output, "    1 recurrence fusion\n")) << run.output;
}

TEST(KilnInspect, ShowsSymbolicShapesAndProfiles)
{
    ScratchDir dir;
    kiln::test::writeDoubleReluModel(dir.path("double_relu.onnx"));
    auto const built = runKiln({"--onnx=" + dir.path("double_relu.onnx"), "--minShapes=x:1x3", "--optShapes=x:4x3",
        "--maxShapes=x:8x3", "--skipInference", "--saveEngine=" + dir.path("model.plan")});
    ASSERT_EQ(built.exitCode, 0) << built.output;
    auto const run = runKiln({"inspect", dir.path("model.plan")});
    ASSERT_EQ(run.exitCode, 0) << run.output;
    EXPECT_TRUE(std::regex_search(run.output, std::regex(R"(input +x +FP32 +\[x\.d0, 3\])"))) << run.output;
    EXPECT_TRUE(contains(run.output, "profile 0: min 1x3, opt 4x3, max 8x3"));
    EXPECT_TRUE(contains(run.output, "Plugins needed (0):"));
}

// --- Errors: one clear message and a non-zero exit ------------------------------------------------

struct ErrorCase
{
    std::vector<std::string> args;
    std::string message;
};

void expectError(ErrorCase const& c)
{
    auto const run = runKiln(c.args);
    EXPECT_NE(run.exitCode, 0) << run.output;
    EXPECT_TRUE(contains(run.output, c.message)) << "expected: " << c.message << "\n" << run.output;
}

TEST(KilnErrors, UnknownFlag)
{
    expectError(
        {{"--onnx=" + kDefaultModel, "--noSuchFlag=3"}, "unknown flag --noSuchFlag (kiln --help lists the flags)"});
}

TEST(KilnErrors, MissingModelFile)
{
    expectError({{"--onnx=/nonexistent/model.onnx"}, "--onnx: cannot open \"/nonexistent/model.onnx\""});
    expectError({{"--loadEngine=/nonexistent/model.plan"}, "--loadEngine: cannot open \"/nonexistent/model.plan\""});
}

TEST(KilnErrors, FileThatIsNotAnOnnxModel)
{
    ScratchDir dir;
    std::string const junk = "not a model";
    kiln::test::writeBytes(dir.path("junk.onnx"), junk.data(), junk.size());
    expectError({{"--onnx=" + dir.path("junk.onnx")}, "Failed to parse the ONNX model " + dir.path("junk.onnx")});
}

TEST(KilnErrors, NoModel)
{
    expectError({{"--iterations=3"}, "no model: give --onnx=MODEL.onnx or --loadEngine=PLAN"});
}

TEST(KilnErrors, BadShapeSpecs)
{
    expectError({{"--onnx=" + kDefaultModel, "--shapes=input:1x3xax16"},
        "--shapes: \"input:1x3xax16\": \"a\" is not a dimension"});
    expectError({{"--onnx=" + kDefaultModel, "--minShapes=input:1x3x16x16"},
        "--minShapes, --optShapes and --maxShapes go together"});
    ScratchDir dir;
    kiln::test::writeDoubleReluModel(dir.path("double_relu.onnx"));
    expectError({{"--onnx=" + dir.path("double_relu.onnx"), "--shapes=z:1x3"},
        "--shapes: \"z\" is not an input of the network; its inputs are x"});
}

TEST(KilnErrors, BadFlagValues)
{
    expectError({{"--onnx=" + kDefaultModel, "--memPoolSize=workspace:lots"}, "--memPoolSize: \"workspace:lots\""});
    expectError({{"--onnx=" + kDefaultModel, "--percentile=101"}, "--percentile: \"101\" is not a percentile"});
    expectError({{"--onnx=" + kDefaultModel, "--backend=tpu"}, "--backend: \"tpu\" is not a backend"});
    expectError({{"--onnx=" + kDefaultModel, "--compare=gpu"}, "--compare: \"gpu\" is not a reference"});
    expectError({{"--onnx=" + kDefaultModel, "--iterations=0"},
        "--iterations: \"0\" is not valid: the value must be a positive integer"});
    expectError({{"--onnx=" + kDefaultModel, "--iterations=-5"},
        "--iterations: \"-5\" is not valid: the value must be a positive integer"});
    expectError({{"--onnx=" + kDefaultModel, "--memPoolSize=workspace:99999999999999999999"},
        "--memPoolSize: \"workspace:99999999999999999999\": the size overflows"});
    expectError({{"--onnx=" + kDefaultModel, "--shapes=input:99999999999999999999x3"},
        "--shapes: \"input:99999999999999999999x3\": \"99999999999999999999\" is not a dimension (it overflows"});
}

// --- Hostile input: the command reports, names what is wrong and exits 1; it never aborts -------------------------

//! The run failed cleanly: exit code 1 (an abort or a signal gives another), the message, and the FAILED line.
void expectCleanFailure(std::vector<std::string> const& args, std::string const& message)
{
    auto const run = runKiln(args);
    EXPECT_EQ(run.exitCode, 1) << run.output;
    EXPECT_TRUE(contains(run.output, message)) << "expected: " << message << "\n" << run.output;
    EXPECT_FALSE(contains(run.output, "terminate called")) << run.output;
}

TEST(KilnErrors, DirectoriesAndDevicesAreRefusedByName)
{
    ScratchDir dir;
    kiln::test::writeDoubleReluModel(dir.path("double_relu.onnx"));
    std::string const folder = dir.path("");
    expectCleanFailure({"--loadEngine=" + folder}, "--loadEngine: \"" + folder + "\" is a directory, not a file");
    expectCleanFailure({"--onnx=" + folder}, "--onnx: \"" + folder + "\" is a directory, not a file");
    expectCleanFailure({"--onnx=" + dir.path("double_relu.onnx"), "--shapes=x:2x3", "--loadInputs=x:" + folder},
        "--loadInputs: \"" + folder + "\" is a directory, not a file (input \"x\")");
    expectCleanFailure({"inspect", folder}, "\"" + folder + "\" is a directory, not a file");
    // A device that never ends is read up to a bound, then refused.
    expectCleanFailure({"--onnx=/dev/zero"}, "--onnx: \"/dev/zero\" is not a regular file");
    expectCleanFailure(
        {"--loadEngine=/dev/zero"}, "--loadEngine: \"/dev/zero\" is not a regular file and gave more than");
    expectCleanFailure({"--onnx=" + dir.path("double_relu.onnx"), "--shapes=x:2x3", "--loadInputs=x:/dev/zero"},
        "--loadInputs: \"/dev/zero\" is not a regular file and gave more than 24 bytes");
}

TEST(KilnErrors, HugeInputsAreRefusedNamingTheTensor)
{
    ScratchDir dir;
    kiln::test::writeDoubleReluModel(dir.path("double_relu.onnx"));
    std::string const model = "--onnx=" + dir.path("double_relu.onnx");
    // 2^62 x 3 elements: the element count overflows 64 bits (before the fix it wrapped, then the allocation threw).
    auto const overflow = runKiln(std::vector<std::string>{model, "--shapes=x:4611686018427387904x3"} + kQuick);
    EXPECT_EQ(overflow.exitCode, 1) << overflow.output;
    EXPECT_TRUE(contains(overflow.output, "&&&& FAILED")) << overflow.output;
    EXPECT_FALSE(contains(overflow.output, "terminate called")) << overflow.output;
    // 3 x 10^13 floats fit 64 bits but no machine's memory: refused before anything is allocated.
    expectCleanFailure(std::vector<std::string>{model, "--shapes=x:10000000000000x3"} + kQuick,
        "input \"x\" (FP32, shape 10000000000000x3) needs 120000000000000 bytes, more than this machine's memory");
}

//! No byte of output is an escape or a control character other than a newline, and no line is a forged result.
void expectNoRawControlCharacters(std::string const& output)
{
    for (char c : output)
    {
        auto const byte = static_cast<unsigned char>(c);
        EXPECT_FALSE((byte < 0x20 && c != '\n') || byte == 0x7F) << "raw control character " << int(byte) << ":\n"
                                                                 << output;
    }
    EXPECT_FALSE(contains(output, "\xc2\x9b")) << "a raw C1 CSI:\n" << output;
    EXPECT_FALSE(contains(output, "\xe2\x80\xae")) << "a raw right-to-left override:\n" << output;
    EXPECT_FALSE(std::regex_search(output, std::regex("(^|\n)&&&& PASSED Kiln.kiln # forged"))) << output;
}

TEST(KilnErrors, NamesFromModelsAndPlansArePrintedEscaped)
{
    ScratchDir dir;
    kiln::test::writeHostileNamesModel(dir.path("hostile.onnx"));
    auto const built = runKiln(
        {"--onnx=" + dir.path("hostile.onnx"), "--skipInference", "--verbose", "--saveEngine=" + dir.path("m.plan")});
    ASSERT_EQ(built.exitCode, 0) << built.output;
    expectNoRawControlCharacters(built.output);

    auto const inspected = runKiln({"inspect", dir.path("m.plan")});
    ASSERT_EQ(inspected.exitCode, 0) << inspected.output;
    expectNoRawControlCharacters(inspected.output);
    EXPECT_TRUE(contains(inspected.output, "x\\x1B[31m")) << inspected.output;
    EXPECT_TRUE(contains(inspected.output, "y\\n&&&& PASSED Kiln.kiln # forged")) << inspected.output;
    EXPECT_TRUE(contains(inspected.output, "relu\\x1B[2J\\x1B[H")) << inspected.output;

    // An error message that lists the plan's input names.
    float const values[6] = {};
    kiln::test::writeBytes(dir.path("w.bin"), values, sizeof(values));
    auto const failed = runKiln({"--loadEngine=" + dir.path("m.plan"), "--loadInputs=w:" + dir.path("w.bin")});
    EXPECT_EQ(failed.exitCode, 1) << failed.output;
    EXPECT_TRUE(contains(failed.output, "its inputs are x\\x1B[31m")) << failed.output;
    expectNoRawControlCharacters(failed.output);
    // The run's own report quotes the output's name too (--dumpOutput).
    auto const ran = runKiln(std::vector<std::string>{"--loadEngine=" + dir.path("m.plan"), "--dumpOutput"} + kQuick);
    EXPECT_EQ(ran.exitCode, 0) << ran.output;
    expectNoRawControlCharacters(ran.output);
}

TEST(KilnCommand, KilnBackendChoosesTheBackendWhereTheFlagDoesNot)
{
    // The variable reaches kiln through popen's shell, which inherits this process's environment.
    setenv("KILN_BACKEND", "cpu", 1);
    auto const chosen
        = kiln::test::runKilnAsIs(std::vector<std::string>{"--onnx=" + kDefaultModel, kSeedPlugins} + kQuick);
    setenv("KILN_BACKEND", "tpu", 1);
    auto const refused = kiln::test::runKilnAsIs({"--onnx=" + kDefaultModel, kSeedPlugins});
    auto const flagWins = kiln::test::runKilnAsIs(
        std::vector<std::string>{"--onnx=" + kDefaultModel, kSeedPlugins, "--backend=cpu"} + kQuick);
    unsetenv("KILN_BACKEND");
    EXPECT_EQ(chosen.exitCode, 0) << chosen.output;
    EXPECT_TRUE(contains(chosen.output, "for the cpu backend")) << chosen.output;
    EXPECT_NE(refused.exitCode, 0) << refused.output;
    EXPECT_TRUE(contains(refused.output, "the environment variable KILN_BACKEND: \"tpu\" is not a backend"))
        << refused.output;
    EXPECT_EQ(flagWins.exitCode, 0) << flagWins.output;
}

TEST(KilnErrors, CudaBackendThatIsNotThere)
{
    if (kiln::backendAvailable(kiln::Backend::kCUDA))
    {
        GTEST_SKIP() << "this machine has the CUDA backend (KilnOnGpu tests it)";
    }
    expectError({{"--onnx=" + kDefaultModel, kSeedPlugins, "--backend=cuda"}, "--backend=cuda: "});
    if (kiln::getNbBackendPasses(kiln::Backend::kCUDA) > 0)
    {
        // Built without a GPU, a CUDA plan is not loaded: what needs the engine says where to look instead.
        expectError({{"--onnx=" + kDefaultModel, kSeedPlugins, "--backend=cuda", "--skipInference", "--dumpLayerInfo"},
            "--dumpLayerInfo: the engine's layer information needs the plan loaded"});
        expectError({{"--loadEngine=/nonexistent.plan", "--backend=cuda", "--skipInference"}, "--backend=cuda: "});
    }
}

TEST(KilnOnGpu, UseCudaGraphCapturesOneInferenceAndReplaysIt)
{
    if (!kiln::backendAvailable(kiln::Backend::kCUDA))
    {
        GTEST_SKIP() << "no CUDA backend or no GPU here";
    }
    auto const run = runKiln(std::vector<std::string>{"--onnx=" + kDefaultModel, kSeedPlugins, "--backend=cuda",
                                 "--useCudaGraph", "--compare=cpu"}
        + kQuick);
    EXPECT_EQ(run.exitCode, 0) << run.output;
    EXPECT_TRUE(contains(run.output, "Captured one inference into a CUDA graph")) << run.output;
    EXPECT_TRUE(contains(run.output, "&&&& PASSED")) << run.output;
}

TEST(KilnBackends, TheDefaultIsTheGpuWhereOneIsUsable)
{
    auto const run = kiln::test::runKilnAsIs(
        {"--onnx=" + kDefaultModel, kSeedPlugins, "--iterations=2", "--duration=0", "--warmUp=0"});
    EXPECT_EQ(run.exitCode, 0) << run.output;
    bool const gpu = kiln::backendAvailable(kiln::Backend::kCUDA);
    EXPECT_TRUE(contains(run.output, gpu ? "for the cuda backend" : "for the cpu backend")) << run.output;
}

TEST(KilnOnGpu, DefaultModelMatchesTheCpuReference)
{
    if (!kiln::backendAvailable(kiln::Backend::kCUDA))
    {
        GTEST_SKIP() << "no CUDA backend or no GPU here";
    }
    auto const run = runKiln({"--onnx=" + kDefaultModel, kSeedPlugins, "--backend=cuda", "--compare=cpu",
        "--iterations=20", "--duration=0", "--warmUp=0"});
    EXPECT_EQ(run.exitCode, 0) << run.output;
    EXPECT_TRUE(contains(run.output, "GPU Compute Time: min = ")) << run.output;
    EXPECT_TRUE(std::regex_search(run.output, std::regex(R"(&&&& PASSED)"))) << run.output;
}

TEST(KilnOnGpu, QueuedInferencesAreTracedInTheirOrderAndGiveTheReferenceOutputs)
{
    // The loop keeps two inferences queued on the stream; each trace's device times must still follow the one
    // before, and the outputs copied out through the pinned buffers must be the CPU's.
    if (!kiln::backendAvailable(kiln::Backend::kCUDA))
    {
        GTEST_SKIP() << "no CUDA backend or no GPU here";
    }
    ScratchDir dir;
    auto const run = runKiln({"--onnx=" + kDefaultModel, kSeedPlugins, "--backend=cuda", "--compare=cpu", "--warmUp=0",
        "--duration=0", "--iterations=20", "--exportTimes=" + dir.path("times.json")});
    ASSERT_EQ(run.exitCode, 0) << run.output;
    EXPECT_TRUE(contains(run.output, "&&&& PASSED")) << run.output;
    json const times = json::parse(readText(dir.path("times.json")));
    ASSERT_EQ(times.size(), 20U);
    double const slack = 1e-3; // ms: event times are exact to about 0.5 us
    double previousEnd = 0;
    for (auto const& t : times)
    {
        std::vector<double> device;
        for (char const* key : {"startH2dMs", "endH2dMs", "startComputeMs", "endComputeMs", "startD2hMs", "endD2hMs"})
        {
            device.push_back(t[key].get<double>());
        }
        EXPECT_TRUE(std::is_sorted(device.begin(), device.end())) << t.dump();
        EXPECT_GE(device.front(), previousEnd - slack) << t.dump();
        EXPECT_GT(t["h2dMs"].get<double>(), 0.0) << "inputs are copied at every inference: " << t.dump();
        EXPECT_LE(t["startEnqMs"].get<double>(), t["endEnqMs"].get<double>()) << t.dump();
        previousEnd = device.back();
    }
}

TEST(KilnErrors, LoadInputsOfTheWrongSizeOrName)
{
    ScratchDir dir;
    kiln::test::writeDoubleReluModel(dir.path("double_relu.onnx"));
    float const x[] = {1.0F, 2.0F};
    kiln::test::writeBytes(dir.path("x.bin"), x, sizeof(x));
    expectError({{"--onnx=" + dir.path("double_relu.onnx"), "--shapes=x:2x3", "--loadInputs=x:" + dir.path("x.bin")},
        "holds 8 bytes, but input \"x\" (FP32, shape 2x3) needs 24"});
    expectError({{"--onnx=" + dir.path("double_relu.onnx"), "--loadInputs=w:" + dir.path("x.bin")},
        "--loadInputs: \"w\" is not an input of the network"});
    expectError({{"--onnx=" + dir.path("double_relu.onnx"), "--loadInputs=x:/nonexistent/x.bin"},
        "--loadInputs: cannot open \"/nonexistent/x.bin\""});
}

TEST(KilnErrors, ModelWithAPluginOpWhoseLibraryIsNotLoaded)
{
    expectError({{"--onnx=" + kDefaultModel}, "MyCustomPlugin"});
    expectError({{"--onnx=" + kDefaultModel},
        "if an unsupported op is a plugin, load its library with --staticPlugins or --dynamicPlugins"});
}

TEST(KilnErrors, PlanThatNeedsAnUnloadedPlugin)
{
    ScratchDir dir;
    auto const built = runKiln(
        {"--onnx=" + kDefaultModel, kSeedPlugins, "--skipInference", "--saveEngine=" + dir.path("model.plan")});
    ASSERT_EQ(built.exitCode, 0) << built.output;
    auto const run = runKiln(std::vector<std::string>{"--loadEngine=" + dir.path("model.plan")} + kQuick);
    EXPECT_EQ(run.exitCode, 1);
    EXPECT_TRUE(contains(run.output, "MyCustomPlugin")) << run.output;
    EXPECT_TRUE(contains(run.output, "--staticPlugins=LIB")) << run.output;
    EXPECT_TRUE(contains(run.output, "&&&& FAILED"));
}

TEST(KilnErrors, CompareNeedsTheModel)
{
    expectError({{"--loadEngine=x.plan", "--compare=cpu"},
        "--compare builds the CPU reference from the model: it needs --onnx"});
    expectError({{"--onnx=" + kDefaultModel, "--compareLayers"}, "--compareLayers refines --compare"});
}

TEST(KilnErrors, InspectOfAMissingFileOrANonPlan)
{
    expectError({{"inspect", "/nonexistent/model.plan"}, "cannot open \"/nonexistent/model.plan\""});
    expectError({{"inspect", kDefaultModel}, "is not a plan Kiln can read"});
}

} // namespace
