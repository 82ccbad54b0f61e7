// A group normalization of one group as PyTorch exports it (reshape to [N, 1, C * H * W], instance normalization,
// reshape back) in CUDA plans: one normalization of each sample of the 4-D tensor
// (plan/passes/sample_normalization.h), which stays inside an FP16 channels-last region. The plans are read
// without a GPU, and the CPU reference shows the two forms compute the same; outputs are compared with the CPU
// reference, which runs the network's own layers, on a GPU; and the kernel refuses channels-last data it cannot
// normalize so.
#include "backend_comparison.h"
#include "kernel_comparison.h"

#include "network/layers/normalization.h"
#include "plan/plan_graph.h"

namespace
{

using namespace nvinfer1;
using namespace kiln::test;

constexpr int64_t kChannels = 8;

//! A 1x1 convolution of `input` (`inputs` channels) to kChannels, its weights kept alive by `weights`.
ITensor& convolve(INetworkDefinition& network, std::vector<std::vector<float>>& weights, ITensor& input, int64_t inputs)
{
    auto const count = static_cast<size_t>(kChannels * inputs);
    weights.push_back(spread(count, -0.5F, 0.6F + 0.01F * static_cast<float>(weights.size())));
    IConvolutionLayer* conv = network.addConvolutionNd(input, kChannels, Dims{2, {1, 1}},
        Weights{DataType::kFLOAT, weights.back().data(), static_cast<int64_t>(count)}, Weights{});
    return *conv->getOutput(0);
}

//! A convolution, then a group normalization of `groups` groups as PyTorch exports it (scale `scale` and bias
//! `bias` of each group), a per-channel product, and another convolution.
NetworkMaker groupNormalized(
    std::shared_ptr<std::vector<std::vector<float>>> const& weights, int64_t groups, float scale, float bias)
{
    return [=](INetworkDefinition& network) {
        weights->clear(); // each backend's network gets the same weights
        ITensor* x = network.addInput("x", DataType::kFLOAT, Dims{4, {2, 4, 5, 3}});
        ITensor& features = convolve(network, *weights, *x, 4);
        IShuffleLayer* flatten = network.addShuffle(features);
        flatten->setReshapeDimensions(Dims{3, {0, groups, -1}});
        weights->push_back(std::vector<float>(static_cast<size_t>(groups), scale));
        std::vector<float> const& scales = weights->back();
        weights->push_back(std::vector<float>(static_cast<size_t>(groups), bias));
        std::vector<float> const& biases = weights->back();
        IConstantLayer* scaleLayer
            = network.addConstant(Dims{3, {1, groups, 1}}, Weights{DataType::kFLOAT, scales.data(), groups});
        IConstantLayer* biasLayer
            = network.addConstant(Dims{3, {1, groups, 1}}, Weights{DataType::kFLOAT, biases.data(), groups});
        INormalizationLayer* normalization = network.addNormalization(
            *flatten->getOutput(0), *scaleLayer->getOutput(0), *biasLayer->getOutput(0), 1U << 2);
        IShuffleLayer* restore = network.addShuffle(*normalization->getOutput(0));
        restore->setReshapeDimensions(Dims{4, {0, kChannels, 5, 3}});
        weights->push_back(spread(kChannels, 0.5F, 1.5F));
        IConstantLayer* perChannel = network.addConstant(
            Dims{4, {1, kChannels, 1, 1}}, Weights{DataType::kFLOAT, weights->back().data(), kChannels});
        IElementWiseLayer* affine
            = network.addElementWise(*restore->getOutput(0), *perChannel->getOutput(0), ElementWiseOperation::kPROD);
        ITensor& y = convolve(network, *weights, *affine->getOutput(0), kChannels);
        y.setName("y");
        network.markOutput(y);
    };
}

void alwaysChannelsLast(IBuilderConfig& config)
{
    kiln::setConvolutionLayout(config, kiln::ConvolutionLayout::kCHANNELS_LAST);
}

TEST(SampleNormalization, OneGroupNormalizesEachSampleInsideTheChannelsLastRegion)
{
    // Building and reading a CUDA plan needs no GPU.
    auto const weights = std::make_shared<std::vector<std::vector<float>>>();
    for (bool fp16 : {false, true})
    {
        SCOPED_TRACE(fp16 ? "fp16, channels last" : "fp32");
        kiln::plan::PlanModel const model
            = cudaPlanOf(groupNormalized(weights, 1, 1.5F, -0.25F), fp16, alwaysChannelsLast);
        EXPECT_EQ(layersOfKind(model, LayerType::kSHUFFLE), 0);
        std::vector<kiln::plan::LayerRecord const*> const normalizations
            = layersOfType(model, LayerType::kNORMALIZATION);
        ASSERT_EQ(normalizations.size(), 1U);
        kiln::plan::LayerRecord const& normalization = *normalizations.front();
        EXPECT_EQ(kiln::plan::paramsOf<kiln::network::NormalizationParams>(normalization)->axes, 0b1110U);
        EXPECT_EQ(model.tensors.at(static_cast<size_t>(normalization.inputs.at(1))).dims.size(), 4U);
        // In FP16 the data as it is stored (channels-last), the scale and bias as theirs: nothing converts.
        TensorFormat const stored = fp16 ? TensorFormat::kHWC : TensorFormat::kLINEAR;
        EXPECT_EQ(kiln::plan::slotFormat(model, normalization, 0), stored);
        EXPECT_EQ(kiln::plan::slotFormat(model, normalization, 3), stored);
        EXPECT_TRUE(normalization.ioFormats.empty());
    }
}

TEST(SampleNormalization, TwoGroupsStayAsTheyAre)
{
    // Each group's channels are not together in a channels-last tensor.
    auto const weights = std::make_shared<std::vector<std::vector<float>>>();
    kiln::plan::PlanModel const model = cudaPlanOf(groupNormalized(weights, 2, 1.0F, 0.0F), true, alwaysChannelsLast);
    EXPECT_EQ(layersOfKind(model, LayerType::kSHUFFLE), 2);
    for (kiln::plan::LayerRecord const* normalization : layersOfType(model, LayerType::kNORMALIZATION))
    {
        EXPECT_EQ(kiln::plan::slotFormat(model, *normalization, 0), TensorFormat::kLINEAR);
    }
}

TEST(SampleNormalization, WhatItBecomesComputesWhatTheExportComputesOnTheCpu)
{
    // The rewrite's semantics on the CPU reference, which runs both networks as written: the export's reshape ->
    // instance normalization -> reshape, and a normalization of the 4-D tensor over axes 1 to 3 with [1, 1, 1, 1]
    // weights, as the pass makes it.
    float const scale = 1.5F;
    float const bias = -0.25F;
    NetworkMaker const rewritten = [=](INetworkDefinition& network) {
        static std::vector<float> const scales{scale};
        static std::vector<float> const biases{bias};
        ITensor* x = network.addInput("x", DataType::kFLOAT, Dims{4, {2, kChannels, 5, 3}});
        IConstantLayer* scaleLayer
            = network.addConstant(Dims{4, {1, 1, 1, 1}}, Weights{DataType::kFLOAT, scales.data(), 1});
        IConstantLayer* biasLayer
            = network.addConstant(Dims{4, {1, 1, 1, 1}}, Weights{DataType::kFLOAT, biases.data(), 1});
        INormalizationLayer* normalization
            = network.addNormalization(*x, *scaleLayer->getOutput(0), *biasLayer->getOutput(0), 0b1110U);
        normalization->getOutput(0)->setName("y");
        network.markOutput(*normalization->getOutput(0));
    };
    NetworkMaker const exported = [=](INetworkDefinition& network) {
        static std::vector<float> const scales{scale};
        static std::vector<float> const biases{bias};
        ITensor* x = network.addInput("x", DataType::kFLOAT, Dims{4, {2, kChannels, 5, 3}});
        IShuffleLayer* flatten = network.addShuffle(*x);
        flatten->setReshapeDimensions(Dims{3, {0, 1, -1}});
        IConstantLayer* scaleLayer
            = network.addConstant(Dims{3, {1, 1, 1}}, Weights{DataType::kFLOAT, scales.data(), 1});
        IConstantLayer* biasLayer
            = network.addConstant(Dims{3, {1, 1, 1}}, Weights{DataType::kFLOAT, biases.data(), 1});
        INormalizationLayer* normalization = network.addNormalization(
            *flatten->getOutput(0), *scaleLayer->getOutput(0), *biasLayer->getOutput(0), 1U << 2);
        IShuffleLayer* restore = network.addShuffle(*normalization->getOutput(0));
        restore->setReshapeDimensions(Dims{4, {0, kChannels, 5, 3}});
        restore->getOutput(0)->setName("y");
        network.markOutput(*restore->getOutput(0));
    };
    std::map<std::string, HostTensor> const x{{"x", fromFloats({2, kChannels, 5, 3}, scattered(240, -3.0F, 2.0F))}};
    HostTensor const expected = runOn(kiln::Backend::kCPU, exported, x).at("y");
    HostTensor const got = runOn(kiln::Backend::kCPU, rewritten, x).at("y");
    // The reference sums each sample in the same order both ways: the same bits.
    EXPECT_EQ(got.bytes, expected.bytes);
    // And it normalized each sample: mean 0 and variance 1 before the affine step, by hand.
    std::vector<float> const y = got.floats();
    for (size_t sample = 0; sample < 2; ++sample)
    {
        double sum = 0.0;
        double squares = 0.0;
        for (size_t i = 0; i < 120; ++i)
        {
            double const normalized = (y[sample * 120 + i] - bias) / scale;
            sum += normalized;
            squares += normalized * normalized;
        }
        EXPECT_NEAR(sum / 120.0, 0.0, 1e-5);
        EXPECT_NEAR(squares / 120.0, 1.0, 1e-3); // epsilon 1e-5 against a variance near 2
    }
}

TEST(SampleNormalization, AgreesWithTheCpu)
{
    SKIP_WITHOUT_GPU();
    auto const weights = std::make_shared<std::vector<std::vector<float>>>();
    std::map<std::string, HostTensor> const x{{"x", fromFloats({2, 4, 5, 3}, scattered(120, -2.0F, 2.0F))}};
    for (int64_t groups : {1, 2})
    {
        std::string const what = std::to_string(groups) + " groups";
        expectBackendsAgree(groupNormalized(weights, groups, 1.5F, -0.25F), x, false, what + ", fp32");
        expectBackendsAgree(groupNormalized(weights, groups, 1.5F, -0.25F), x, true, what + ", fp16, channels last",
            alwaysChannelsLast);
    }
}

TEST(SampleNormalization, TheKernelRefusesChannelsLastDataItCannotNormalizeInPlace)
{
    // A scale per channel would be read in the wrong order from channels-last data: a clear error, not wrong values.
    SKIP_WITHOUT_GPU();
    kiln::network::NormalizationParams params;
    params.axes = 0b1110U;
    DeviceTensor const input(fromFloats({2, 3, 2, 2}, scattered(24, -1.0F, 1.0F)));
    DeviceTensor const scale(fromFloats({1, 3, 1, 1}, {1.0F, 2.0F, 3.0F}));
    DeviceTensor const bias(fromFloats({1, 1, 1, 1}, {0.0F}));
    DeviceTensor const output(kiln::Shape{2, 3, 2, 2}, DataType::kFLOAT);
    kiln::ConstTensorView data = input.constView();
    data.format = TensorFormat::kHWC;
    kiln::TensorView written = output.view();
    written.format = TensorFormat::kHWC;
    try
    {
        std::unique_ptr<kiln::cuda::DeviceLayer> const layer
            = runOnDevice(params, {data, scale.constView(), bias.constView()}, {written});
        ADD_FAILURE() << "a per-channel scale over channels-last data was accepted";
    }
    catch (std::invalid_argument const& e)
    {
        EXPECT_NE(std::string(e.what()).find("channels-last"), std::string::npos) << e.what();
    }
}

} // namespace
