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

void expectMatches(std::vector<HostTensor> const& outputs, std::vector<HostTensor> const& expected)
{
    ASSERT_EQ(outputs.size(), expected.size()) << "the number of outputs";
    for (size_t i = 0; i < expected.size(); ++i)
    {
        SCOPED_TRACE("output " + std::to_string(i));
        ASSERT_EQ(outputs[i].shape, expected[i].shape);
        EXPECT_LE(scaledError(outputs[i], expected[i]), kTolerance);
    }
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

std::vector<ZooCase> zooCases()
{
    std::vector<ZooCase> cases;
    for (std::string const& model : zooModels())
    {
        cases.push_back({model, kiln::Backend::kCPU});
        cases.push_back({model, kiln::Backend::kCUDA});
    }
    return cases;
}

INSTANTIATE_TEST_SUITE_P(
    Models, ModelZoo, ::testing::ValuesIn(zooCases()), [](::testing::TestParamInfo<ZooCase> const& testInfo) {
        return testInfo.param.model + "_" + kiln::backendName(testInfo.param.backend);
    });

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
