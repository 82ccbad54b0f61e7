// What the CPU backend's build passes make of real exports, read from their plans: the small EfficientNet and
// MobileNetV3 of tests/models (torchvision's, exported by export_zoo.py). Their outputs are checked against ONNX
// Runtime's by zoo_test.cpp; here, that their SiLU and hard-swish run as their convolutions' epilogues. The expected
// counts come from the ONNX graphs: the convolutions whose output only a Sigmoid and a Mul of it by the Sigmoid's
// result read (SiLU), only a HardSwish, or only a HardSigmoid.
#include "collecting_logger.h"
#include "backend/cpu/fast/fast_path.h"
#include "plan/plan_format.h"

#include <NvInfer.h>
#include <NvOnnxParser.h>
#include <kiln/Backend.h>
#include <kiln/CpuBackend.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>

namespace kiln::test
{
namespace
{

//! The CPU plan (fast kernels) of the zoo's image model `name`, built for its input's shape, [1, 3, 64, 64].
plan::PlanModel cpuPlanOfZooModel(std::string const& name)
{
    CollectingLogger logger;
    std::unique_ptr<nvinfer1::IBuilder> builder(nvinfer1::createInferBuilder(logger));
    std::unique_ptr<nvinfer1::INetworkDefinition> network(builder->createNetworkV2(0));
    std::unique_ptr<nvonnxparser::IParser> parser(nvonnxparser::createParser(*network, logger));
    std::string const path = (std::filesystem::path(KILN_ZOO_DIR) / name / "model.onnx").string();
    EXPECT_TRUE(parser->parseFromFile(path.c_str(), 0)) << logger.text();
    std::unique_ptr<nvinfer1::IBuilderConfig> config(builder->createBuilderConfig());
    kiln::setBackend(*config, kiln::Backend::kCPU);
    kiln::setCpuKernels(*config, kiln::CpuKernels::kFAST);
    nvinfer1::IOptimizationProfile* profile = builder->createOptimizationProfile();
    for (auto selector :
        {nvinfer1::OptProfileSelector::kMIN, nvinfer1::OptProfileSelector::kOPT, nvinfer1::OptProfileSelector::kMAX})
    {
        profile->setDimensions(network->getInput(0)->getName(), selector, nvinfer1::Dims4{1, 3, 64, 64});
    }
    config->addOptimizationProfile(profile);
    std::unique_ptr<nvinfer1::IHostMemory> blob(builder->buildSerializedNetwork(*network, *config));
    plan::PlanModel model;
    std::string error;
    EXPECT_NE(blob, nullptr) << logger.text();
    if (blob != nullptr)
    {
        EXPECT_TRUE(plan::readPlan(blob->data(), blob->size(), model, error)) << error;
    }
    return model;
}

struct FusedActivations
{
    size_t silu{0};
    size_t hardSwish{0};
    size_t hardSigmoid{0};
    size_t unmarked{0}; //!< convolutions the fast path does not run
};

FusedActivations fusedActivationsOf(plan::PlanModel const& model)
{
    FusedActivations counts;
    for (plan::LayerRecord const& layer : model.layers)
    {
        if (layer.type != nvinfer1::LayerType::kCONVOLUTION)
        {
            continue;
        }
        counts.unmarked += cpu::fast::isMarked(layer) ? 0 : 1;
        plan::Epilogue const& epilogue = layer.epilogue;
        bool const hard = epilogue.activates && epilogue.activation == nvinfer1::ActivationType::kHARD_SIGMOID;
        bool const sigmoid = epilogue.activates && epilogue.activation == nvinfer1::ActivationType::kSIGMOID;
        counts.silu += sigmoid && epilogue.selfGated ? 1 : 0;
        counts.hardSwish += hard && epilogue.selfGated ? 1 : 0;
        counts.hardSigmoid += hard && !epilogue.selfGated ? 1 : 0;
    }
    return counts;
}

TEST(CpuZooPlans, EfficientNetsSiluRunsInItsConvolutions)
{
    if (!cpu::fast::Session::available())
    {
        GTEST_SKIP() << "Kiln was built without the CPU fast path";
    }
    FusedActivations const counts = fusedActivationsOf(cpuPlanOfZooModel("efficientnet"));
    EXPECT_EQ(counts.silu, 25U);
    EXPECT_EQ(counts.unmarked, 0U);
}

TEST(CpuZooPlans, MobileNetV3sHardSwishAndHardSigmoidRunInItsConvolutions)
{
    if (!cpu::fast::Session::available())
    {
        GTEST_SKIP() << "Kiln was built without the CPU fast path";
    }
    FusedActivations const counts = fusedActivationsOf(cpuPlanOfZooModel("mobilenet_v3"));
    EXPECT_EQ(counts.hardSwish, 20U);
    EXPECT_EQ(counts.hardSigmoid, 8U);
    EXPECT_EQ(counts.unmarked, 0U);
}

} // namespace
} // namespace kiln::test
