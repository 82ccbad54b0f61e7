// The zoo's plugin models (tests/models/yolo_end2end: YOLO's end-to-end export ending in EfficientNMS_TRT;
// tests/models/dcn_mmdeploy: mmdeploy's ModulatedDeformConv2d) through the kiln command as a user runs trtexec, on
// each backend: built from ONNX with no plugin flag (kiln registers its collection), the plan saved and inspected,
// then loaded and run in another process on the model's inputs. The outputs are PyTorch's and torchvision's
// (tests/models/export_plugin_models.py).
#include "exported_output_error.h"
#include "kiln_runner.h"
#include "npy_file.h"

#include <kiln/Backend.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <ostream>
#include <string>
#include <vector>

namespace
{

using kiln::test::HostTensor;
using kiln::test::runKiln;
using kiln::test::scaledError;
using kiln::test::ScratchDir;
using nlohmann::json;

std::string const kZooDirectory = KILN_ZOO_DIR;
constexpr double kTolerance = 1e-3; // max|diff| / max|ref|, as the zoo's test

struct PluginModel
{
    std::string folder;                  //!< under tests/models
    std::vector<std::string> inputNames; //!< the graph's inputs, in order (input_<i>.npy)
    size_t nbOutputs;                    //!< expected_<i>.npy
    std::string manifestLine;            //!< how `kiln inspect` lists the plugin the plan needs
    kiln::Backend backend;
};

void PrintTo(PluginModel const& model, std::ostream* out)
{
    *out << model.folder << " on " << kiln::backendName(model.backend);
}

class KilnPluginModel : public ::testing::TestWithParam<PluginModel>
{
};

//! "name:file,name:file" for --loadInputs, the model's .npy inputs written as the raw bytes kiln reads.
std::string writeInputs(PluginModel const& model, ScratchDir const& dir)
{
    std::string spec;
    for (size_t i = 0; i < model.inputNames.size(); ++i)
    {
        HostTensor const input
            = kiln::test::readNpy(kZooDirectory + "/" + model.folder + "/input_" + std::to_string(i) + ".npy");
        std::string const path = dir.path("input_" + std::to_string(i) + ".bin");
        kiln::test::writeBytes(path, input.bytes.data(), input.bytes.size());
        spec += (spec.empty() ? "" : ",") + model.inputNames[i] + ":" + path;
    }
    return spec;
}

TEST_P(KilnPluginModel, BuildsSavesLoadsInAnotherProcessAndMatchesPyTorch)
{
    PluginModel const& model = GetParam();
    if (!kiln::backendAvailable(model.backend))
    {
        GTEST_SKIP() << "no " << kiln::backendName(model.backend) << " backend here";
    }
    ScratchDir dir;
    std::string const backend = std::string("--backend=") + kiln::backendName(model.backend);
    auto const built = runKiln({"--onnx=" + kZooDirectory + "/" + model.folder + "/model.onnx", backend,
        "--skipInference", "--saveEngine=" + dir.path("model.plan")});
    ASSERT_EQ(built.exitCode, 0) << built.output;

    auto const inspected = runKiln({"inspect", dir.path("model.plan")});
    ASSERT_EQ(inspected.exitCode, 0) << inspected.output;
    EXPECT_NE(inspected.output.find("Plugins needed (1):\n  " + model.manifestLine), std::string::npos)
        << inspected.output;

    auto const loaded
        = runKiln({"--loadEngine=" + dir.path("model.plan"), backend, "--loadInputs=" + writeInputs(model, dir),
            "--exportOutput=" + dir.path("out.json"), "--warmUp=0", "--duration=0", "--iterations=1"});
    ASSERT_EQ(loaded.exitCode, 0) << loaded.output;
    json const outputs = json::parse(kiln::test::readText(dir.path("out.json")));
    ASSERT_EQ(outputs.size(), model.nbOutputs);
    for (size_t i = 0; i < outputs.size(); ++i)
    {
        SCOPED_TRACE(outputs[i]["name"].get<std::string>());
        HostTensor const expected
            = kiln::test::readNpy(kZooDirectory + "/" + model.folder + "/expected_" + std::to_string(i) + ".npy");
        EXPECT_LE(scaledError(outputs[i], expected), kTolerance);
    }
}

std::vector<PluginModel> pluginModels()
{
    std::vector<PluginModel> models;
    for (kiln::Backend backend : {kiln::Backend::kCPU, kiln::Backend::kCUDA})
    {
        models.push_back({"yolo_end2end", {"images"}, 4, R"(EfficientNMS_TRT version 1 namespace "")", backend});
        models.push_back({"dcn_mmdeploy", {"input"}, 1, R"(ModulatedDeformConv2d version 1 namespace "")", backend});
    }
    return models;
}

INSTANTIATE_TEST_SUITE_P(Zoo, KilnPluginModel, ::testing::ValuesIn(pluginModels()),
    [](::testing::TestParamInfo<PluginModel> const& testInfo) {
        return testInfo.param.folder + "_" + kiln::backendName(testInfo.param.backend);
    });

} // namespace
