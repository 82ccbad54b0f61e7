// Model Optimizer's quantized exports of the zoo's models (tests/models/quantized/<name>_<mode>/, written by
// quantize_with_modelopt.py: Q/DQ models in INT8 and FP8 with ONNX Runtime's outputs) through Kiln's parser, builder
// and runtime on each backend.
//
// Tolerance: max|diff| / max|ref| <= 1e-3, the zoo's. Kiln computes Q/DQ exactly as ONNX defines them, so the two
// agree to about 1e-7 here; only the floating-point layers between the pairs sum in another order, and an input to
// a quantize layer that lands within that rounding of a rounding boundary may then take the neighbouring step, which
// moves an output by a small part of one step (another machine's vector width could do it). Quantization itself
// moves these outputs by 6e-3 (regnet) to 7e-2 (vit) from the FP32 models', so 1e-3 still tells a wrong scale, axis
// or type; the rounding at exact ties is checked by the layer tests (tests/layers/quantize_test.cpp).
#include "model_runner.h"
#include "npy_file.h"
#include "zoo_files.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

namespace kiln::test
{
namespace
{

namespace fs = std::filesystem;

fs::path const kQuantizedDirectory = fs::path(KILN_ZOO_DIR) / "quantized";
constexpr double kTolerance = 1e-3;

std::vector<std::string> quantizedModels()
{
    return modelFoldersIn(kQuantizedDirectory);
}

struct QuantizedCase
{
    std::string model;
    kiln::Backend backend;
};

void PrintTo(QuantizedCase const& quantizedCase, std::ostream* out)
{
    *out << quantizedCase.model << " on " << kiln::backendName(quantizedCase.backend);
}

class QuantizedModels : public ::testing::TestWithParam<QuantizedCase>
{
};

TEST_P(QuantizedModels, MatchOnnxRuntime)
{
    fs::path const folder = kQuantizedDirectory / GetParam().model;
    ModelRun const run
        = runOnnxModel((folder / "model.onnx").string(), readArrays(folder, "input"), GetParam().backend);
    if (run.skipped)
    {
        GTEST_SKIP() << run.error;
    }
    ASSERT_EQ(run.error, "");
    std::vector<HostTensor> const expected = readArrays(folder, "expected");
    ASSERT_EQ(run.outputs.size(), expected.size());
    for (size_t i = 0; i < expected.size(); ++i)
    {
        SCOPED_TRACE("output " + std::to_string(i));
        ASSERT_EQ(run.outputs[i].shape, expected[i].shape);
        EXPECT_LE(scaledError(run.outputs[i], expected[i]), kTolerance);
    }
}

std::vector<QuantizedCase> quantizedCases()
{
    std::vector<QuantizedCase> cases;
    for (std::string const& model : quantizedModels())
    {
        cases.push_back({model, kiln::Backend::kCPU});
        cases.push_back({model, kiln::Backend::kCUDA});
    }
    return cases;
}

INSTANTIATE_TEST_SUITE_P(Exports, QuantizedModels, ::testing::ValuesIn(quantizedCases()),
    [](::testing::TestParamInfo<QuantizedCase> const& testInfo) {
        return testInfo.param.model + "_" + kiln::backendName(testInfo.param.backend);
    });

TEST(QuantizedModels, CoverInt8AndFp8)
{
    std::vector<std::string> const models = quantizedModels();
    EXPECT_NE(std::find(models.begin(), models.end(), "efficientnet_int8"), models.end());
    EXPECT_NE(std::find(models.begin(), models.end(), "vit_fp8"), models.end());
}

} // namespace
} // namespace kiln::test
