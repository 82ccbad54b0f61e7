// The model zoo (tests/models/<name>/: a small configuration of a real architecture exported from PyTorch by
// export_zoo.py, its inputs and ONNX Runtime's outputs; or a model naming one of NVIDIA's standard plugins, exported
// by export_plugin_models.py with PyTorch's and torchvision's outputs) through Kiln's parser, builder and runtime
// on each backend.
// A model matches when every output has ONNX Runtime's shape and max|diff| / max|ref| <= 1e-3. A model listed in
// known_failures.txt must fail with the error the list gives, so the list stays true: a fixed model fails its test
// until its line is removed.
#include "model_runner.h"
#include "npy_file.h"
#include "zoo_files.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <ostream>
#include <string>
#include <vector>

namespace kiln::test
{
namespace
{

namespace fs = std::filesystem;

fs::path const kZooDirectory{KILN_ZOO_DIR};
constexpr double kTolerance = 1e-3;

//! The zoo's models: every folder holding a model.onnx, by name.
std::vector<std::string> zooModels()
{
    return modelFoldersIn(kZooDirectory);
}

//! known_failures.txt: "model | a part of the error its run gives", one line each; # starts a comment.
std::map<std::string, std::string> knownFailures()
{
    std::map<std::string, std::string> failures;
    std::ifstream file(kZooDirectory / "known_failures.txt");
    for (std::string line; std::getline(file, line);)
    {
        size_t const bar = line.find(" | ");
        if (line.empty() || line[0] == '#' || bar == std::string::npos)
        {
            continue;
        }
        failures[line.substr(0, bar)] = line.substr(bar + 3);
    }
    return failures;
}

//! Detections as torchvision's detection pipelines return them: boxes [K, 4], scores [K] and labels [K], in the order
//! of their scores.
bool areDetections(std::vector<HostTensor> const& expected)
{
    return expected.size() == 3 && expected[0].shape.size() == 2 && expected[0].shape[1] == 4
        && expected[1].shape == Shape{expected[0].shape[0]} && expected[2].shape == expected[1].shape;
}

//! Detections whose scores differ by less than the tolerance come in no order that the model fixes: rounding that
//! differs between two FP32 engines by far less than the tolerance may swap them (SSDlite's random weights give
//! pairs of one label 2e-5 apart). So each of ONNX Runtime's boxes must match one of Kiln's of the same label whose
//! score is within the tolerance of its own, each of Kiln's matching once. The scores themselves are compared in
//! order, as any output is.
void expectSameDetections(std::vector<HostTensor> const& outputs, std::vector<HostTensor> const& expected)
{
    std::vector<float> const boxes = outputs[0].floats();
    std::vector<float> const scores = outputs[1].floats();
    std::vector<float> const labels = outputs[2].floats();
    std::vector<float> const expectedBoxes = expected[0].floats();
    std::vector<float> const expectedScores = expected[1].floats();
    std::vector<float> const expectedLabels = expected[2].floats();
    auto largest = [](std::vector<float> const& values) {
        double most = 0.0;
        for (float value : values)
        {
            most = std::max(most, std::fabs(static_cast<double>(value)));
        }
        return most;
    };
    double const boxTolerance = kTolerance * largest(expectedBoxes);
    double const scoreTolerance = kTolerance * largest(expectedScores);
    std::vector<bool> taken(scores.size(), false);
    for (size_t e = 0; e < expectedScores.size(); ++e)
    {
        bool matched = false;
        for (size_t k = 0; k < scores.size() && !matched; ++k)
        {
            bool same = !taken[k] && labels[k] == expectedLabels[e]
                && std::fabs(static_cast<double>(scores[k]) - expectedScores[e]) <= scoreTolerance;
            for (size_t c = 0; c < 4 && same; ++c)
            {
                same = std::fabs(static_cast<double>(boxes[k * 4 + c]) - expectedBoxes[e * 4 + c]) <= boxTolerance;
            }
            taken[k] = taken[k] || same;
            matched = same;
        }
        EXPECT_TRUE(matched) << "ONNX Runtime's detection " << e << " (score " << expectedScores[e] << ", label "
                             << expectedLabels[e] << ") has no match among Kiln's";
    }
}

void expectMatches(std::vector<HostTensor> const& outputs, std::vector<HostTensor> const& expected)
{
    ASSERT_EQ(outputs.size(), expected.size()) << "the number of outputs";
    if (areDetections(expected))
    {
        for (size_t i = 0; i < expected.size(); ++i)
        {
            ASSERT_EQ(outputs[i].shape, expected[i].shape) << "output " << i;
        }
        EXPECT_LE(scaledError(outputs[1], expected[1]), kTolerance) << "the scores";
        expectSameDetections(outputs, expected);
        return;
    }
    expectOutputsWithin(outputs, expected, kTolerance);
}

struct ZooCase
{
    std::string model;
    kiln::Backend backend;
};

void PrintTo(ZooCase const& zooCase, std::ostream* out)
{
    *out << zooCase.model << " on " << kiln::backendName(zooCase.backend);
}

class ModelZoo : public ::testing::TestWithParam<ZooCase>
{
};

TEST_P(ModelZoo, MatchesItsReferenceOrFailsAsListed)
{
    fs::path const folder = kZooDirectory / GetParam().model;
    ModelRun const run
        = runOnnxModel((folder / "model.onnx").string(), readArrays(folder, "input"), GetParam().backend);
    if (run.skipped)
    {
        GTEST_SKIP() << run.error;
    }
    auto const failures = knownFailures();
    auto const known = failures.find(GetParam().model);
    if (known != failures.end())
    {
        EXPECT_NE(run.error.find(known->second), std::string::npos)
            << "known_failures.txt says this model fails with \"" << known->second << "\"; its run "
            << (run.error.empty() ? "now succeeds: remove its line" : "fails with:\n" + run.error);
        return;
    }
    ASSERT_EQ(run.error, "");
    expectMatches(run.outputs, readArrays(folder, "expected"));
}

//! Each of `models` on each backend.
std::vector<ZooCase> onEachBackend(std::vector<std::string> const& models)
{
    std::vector<ZooCase> cases;
    for (std::string const& model : models)
    {
        cases.push_back({model, kiln::Backend::kCPU});
        cases.push_back({model, kiln::Backend::kCUDA});
    }
    return cases;
}

std::string caseName(::testing::TestParamInfo<ZooCase> const& testInfo)
{
    return testInfo.param.model + "_" + kiln::backendName(testInfo.param.backend);
}

INSTANTIATE_TEST_SUITE_P(Models, ModelZoo, ::testing::ValuesIn(onEachBackend(zooModels())), caseName);

// The recurrent models built with kFP16: a loop carries its state from one step to the next in one type, which the
// builder's choice of precisions must keep for each recurrence's initial and next values (the LSTM's initial state is
// computed from its input). Their FP16 outputs stay within FP16's rounding of ONNX Runtime's FP32 ones.
constexpr double kFp16Tolerance = 1e-2;

class RecurrentModelsInFp16 : public ::testing::TestWithParam<ZooCase>
{
};

TEST_P(RecurrentModelsInFp16, AgreeWithOnnxRuntimeWithinFp16Rounding)
{
    fs::path const folder = kZooDirectory / GetParam().model;
    ModelRun const run = runOnnxModel((folder / "model.onnx").string(), readArrays(folder, "input"), GetParam().backend,
        {}, {nvinfer1::BuilderFlag::kFP16});
    if (run.skipped)
    {
        GTEST_SKIP() << run.error;
    }
    ASSERT_EQ(run.error, "");
    expectOutputsWithin(run.outputs, readArrays(folder, "expected"), kFp16Tolerance);
}

INSTANTIATE_TEST_SUITE_P(Models, RecurrentModelsInFp16,
    ::testing::ValuesIn(onEachBackend({"lstm", "gru", "rnn", "scripted_loop"})), caseName);

TEST(ModelZoo, EveryKnownFailureNamesAModelOfTheZoo)
{
    std::vector<std::string> const models = zooModels();
    for (auto const& [model, error] : knownFailures())
    {
        EXPECT_NE(std::find(models.begin(), models.end(), model), models.end()) << model;
        EXPECT_FALSE(error.empty()) << model;
    }
}

} // namespace
} // namespace kiln::test
