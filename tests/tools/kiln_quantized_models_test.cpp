// Model Optimizer's Q/DQ exports (tests/models/quantized/, INT8 and FP8) through the kiln command as a user runs
// trtexec: built with trtexec's quantization flags (--int8, --fp8, --stronglyTyped, --best), the plan saved, then
// loaded and run in another process on the model's inputs, against ONNX Runtime's outputs (the tolerance of
// tests/models/quantized_test.cpp, which says why).
#include "exported_output_error.h"
#include "kiln_runner.h"
#include "npy_file.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace
{

using kiln::test::HostTensor;
using kiln::test::runKiln;
using kiln::test::scaledError;
using kiln::test::ScratchDir;
using nlohmann::json;

std::string const kQuantizedDirectory = std::string(KILN_ZOO_DIR) + "/quantized/";
constexpr double kTolerance = 1e-3;

//! --loadInputs for a model whose one input is named `input`.
std::string writeInput(std::string const& folder, std::string const& input, ScratchDir const& dir)
{
    HostTensor const tensor = kiln::test::readNpy(kQuantizedDirectory + folder + "/input_0.npy");
    kiln::test::writeBytes(dir.path("input.bin"), tensor.bytes.data(), tensor.bytes.size());
    return "--loadInputs=" + input + ":" + dir.path("input.bin");
}

//! Builds `folder`'s model with `flags`, saves the plan, runs it in another process and compares with ONNX Runtime.
void expectKilnMatches(std::string const& folder, std::vector<std::string> const& flags, double tolerance = kTolerance)
{
    SCOPED_TRACE(folder);
    ScratchDir dir;
    std::vector<std::string> build{"--onnx=" + kQuantizedDirectory + folder + "/model.onnx", "--skipInference",
        "--saveEngine=" + dir.path("model.plan")};
    build.insert(build.end(), flags.begin(), flags.end());
    auto const built = runKiln(build);
    ASSERT_EQ(built.exitCode, 0) << built.output;
    auto const loaded = runKiln({"--loadEngine=" + dir.path("model.plan"), writeInput(folder, "image", dir),
        "--exportOutput=" + dir.path("out.json"), "--warmUp=0", "--duration=0", "--iterations=1"});
    ASSERT_EQ(loaded.exitCode, 0) << loaded.output;
    json const outputs = json::parse(kiln::test::readText(dir.path("out.json")));
    ASSERT_EQ(outputs.size(), 1U);
    EXPECT_LE(
        scaledError(outputs[0], kiln::test::readNpy(kQuantizedDirectory + folder + "/expected_0.npy")), tolerance);
}

TEST(KilnQuantizedModels, Int8AndFp8ExportsRunWithTrtexecsFlags)
{
    expectKilnMatches("efficientnet_int8", {"--int8"});
    expectKilnMatches("regnet_int8", {"--int8", "--stronglyTyped"});
    expectKilnMatches("vit_fp8", {"--fp8", "--stronglyTyped"});
}

TEST(KilnQuantizedModels, Int8WithFp16FusesAndStaysNearOnnxRuntime)
{
    // --int8 --fp16: the layers between the pairs compute in FP16 and the quantized convolutions fuse as in FP32
    // builds (QuantizedModels.Fp16BuildsFuseAsFp32Ones* counts them); FP16's rounding between the pairs moves
    // regnet's output by about 5e-3 of its largest value from ONNX Runtime's FP32 one.
    expectKilnMatches("regnet_int8", {"--int8", "--fp16"}, 1e-2);
}

TEST(KilnQuantizedModels, BestAddsFp16BetweenThePairs)
{
    // --best is --fp16 --int8 --fp8: the layers between the Q/DQ pairs compute in FP16, so the outputs move from ONNX
    // Runtime's FP32 ones by FP16's rounding; the run must still succeed.
    ScratchDir dir;
    auto const run = runKiln({"--onnx=" + kQuantizedDirectory + "vit_fp8/model.onnx", "--best",
        writeInput("vit_fp8", "image", dir), "--warmUp=0", "--duration=0", "--iterations=1"});
    EXPECT_EQ(run.exitCode, 0) << run.output;
}

} // namespace
