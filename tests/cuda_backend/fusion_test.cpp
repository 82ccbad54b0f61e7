// The builder's convolution fusions in CUDA plans: which chains become one layer (read from the plan, without a
// GPU), that fused layers compute what the CPU reference computes unfused, and that a plan whose epilogue holds a
// part the CUDA layer does not fuse is refused rather than run without it.
#include "backend_comparison.h"

#include <memory>
#include <string>
#include <vector>

namespace
{

using namespace nvinfer1;
using namespace kiln::test;

struct FilterWeights
{
    std::vector<float> kernel;
    std::vector<float> bias;
};

//! A 3x3 same-padded convolution from `channels` to `channels` maps, with small weights that vary by position so
//! that a misplaced element shows.
FilterWeights filterOf(int64_t channels, float phase)
{
    FilterWeights w;
    w.kernel.resize(static_cast<size_t>(channels * channels * 9));
    for (size_t i = 0; i < w.kernel.size(); ++i)
    {
        w.kernel[i] = 0.05F * static_cast<float>(static_cast<int64_t>((i * 7 + 3) % 11) - 5) + 0.01F * phase;
    }
    for (int64_t c = 0; c < channels; ++c)
    {
        w.bias.push_back(0.1F * static_cast<float>(c % 5) - 0.2F + 0.05F * phase);
    }
    return w;
}

ITensor& convolve(
    INetworkDefinition& network, ITensor& input, int64_t channels, FilterWeights const& w, char const* name)
{
    Weights const kernel{DataType::kFLOAT, w.kernel.data(), static_cast<int64_t>(w.kernel.size())};
    Weights const bias{DataType::kFLOAT, w.bias.data(), static_cast<int64_t>(w.bias.size())};
    IConvolutionLayer* conv = network.addConvolutionNd(input, channels, Dims{2, {3, 3}}, kernel, bias);
    conv->setPaddingNd(Dims{2, {1, 1}});
    conv->setName(name);
    return *conv->getOutput(0);
}

constexpr int64_t kChannels = 8;
Dims const kShape{4, {2, kChannels, 7, 6}};

//! A ResNet basic block: relu(conv2(relu(conv1(x))) + x), then a convolution whose output is also read twice (by a
//! ReLU and a network output), which must stay unfused.
NetworkMaker residualBlock(FilterWeights const& first, FilterWeights const& second, FilterWeights const& third)
{
    return [&first, &second, &third](INetworkDefinition& network) {
        ITensor* x = network.addInput("x", DataType::kFLOAT, kShape);
        ITensor& hidden = relu(network, convolve(network, *x, kChannels, first, "conv1"), "relu1");
        ITensor& y
            = relu(network, add(network, convolve(network, hidden, kChannels, second, "conv2"), *x, "add"), "relu2");
        ITensor& shared = convolve(network, y, kChannels, third, "conv3");
        ITensor& z = relu(network, shared, "relu3");
        shared.setName("shared");
        z.setName("z");
        network.markOutput(shared);
        network.markOutput(z);
    };
}

TEST(CudaBackendFusion, ConvolutionChainsEndingInAReluBecomeOneLayer)
{
    // Building and inspecting a CUDA plan needs no GPU.
    FilterWeights const a = filterOf(kChannels, 0);
    FilterWeights const b = filterOf(kChannels, 1);
    FilterWeights const c = filterOf(kChannels, 2);
    std::vector<std::string> const expected{"conv1 + relu1", "conv2 + add + relu2", "conv3", "relu3"};
    EXPECT_EQ(layerNamesOfCudaPlan(residualBlock(a, b, c)), expected);
}

TEST(CudaBackendFusion, AnAdditionWithoutAReluAndABroadcastResidualStayUnfused)
{
    FilterWeights const a = filterOf(kChannels, 0);
    std::vector<float> const perChannel(kChannels, 0.5F);
    auto maker = [&](INetworkDefinition& network) {
        ITensor* x = network.addInput("x", DataType::kFLOAT, kShape);
        // conv + add of a [1, C, 1, 1] constant (broadcast: cuDNN's residual must match the output's shape) + relu.
        IConstantLayer* constant = network.addConstant(
            Dims{4, {1, kChannels, 1, 1}}, Weights{DataType::kFLOAT, perChannel.data(), kChannels});
        constant->setName("shift");
        ITensor& y = relu(network,
            add(network, convolve(network, *x, kChannels, a, "conv1"), *constant->getOutput(0), "add1"), "relu1");
        // conv + add of the input, no ReLU after.
        ITensor& z = add(network, convolve(network, y, kChannels, a, "conv2"), *x, "add2");
        z.setName("z");
        network.markOutput(z);
    };
    // The broadcast addition and the ReLU become one point-wise layer instead.
    std::vector<std::string> const expected{"shift", "conv1", "add1 + relu1", "conv2", "add2"};
    EXPECT_EQ(layerNamesOfCudaPlan(maker), expected);
}

TEST(CudaBackendFusion, FusedLayersAgreeWithTheUnfusedCpuReference)
{
    SKIP_WITHOUT_GPU();
    FilterWeights const a = filterOf(kChannels, 0);
    FilterWeights const b = filterOf(kChannels, 1);
    FilterWeights const c = filterOf(kChannels, 2);
    HostTensor const x = fromFloats({2, kChannels, 7, 6}, spread(2 * kChannels * 7 * 6, -1.5F, 1.7F));
    expectBackendsAgree(residualBlock(a, b, c), {{"x", x}}, false, "fp32");
    expectBackendsAgree(residualBlock(a, b, c), {{"x", x}}, true, "fp16");
}

TEST(CudaBackendFusion, AFusedConvolutionWithoutBiasGetsZeros)
{
    SKIP_WITHOUT_GPU();
    FilterWeights const a = filterOf(kChannels, 3);
    auto maker = [&](INetworkDefinition& network) {
        ITensor* x = network.addInput("x", DataType::kFLOAT, kShape);
        Weights const kernel{DataType::kFLOAT, a.kernel.data(), static_cast<int64_t>(a.kernel.size())};
        IConvolutionLayer* conv = network.addConvolutionNd(*x, kChannels, Dims{2, {3, 3}}, kernel, Weights{});
        conv->setPaddingNd(Dims{2, {1, 1}});
        ITensor& y = relu(network, *conv->getOutput(0), "relu");
        y.setName("y");
        network.markOutput(y);
    };
    HostTensor const x = fromFloats({2, kChannels, 7, 6}, spread(2 * kChannels * 7 * 6, -2.0F, 1.0F));
    expectBackendsAgree(maker, {{"x", x}}, false, "fp32");
    expectBackendsAgree(maker, {{"x", x}}, true, "fp16");
}

//! The error logged when a CUDA context of `model` is made; empty when one is made.
std::string contextError(kiln::plan::PlanModel const& model)
{
    std::vector<uint8_t> const blob = kiln::plan::writePlan(model);
    RecordingLogger logger;
    std::unique_ptr<IRuntime> runtime(createInferRuntime(logger));
    std::unique_ptr<ICudaEngine> engine(runtime->deserializeCudaEngine(blob.data(), blob.size()));
    if (engine == nullptr)
    {
        ADD_FAILURE() << "the plan does not load: " << logger.errors();
        return {};
    }
    std::unique_ptr<IExecutionContext> context(engine->createExecutionContext());
    return context == nullptr ? logger.errors() : std::string{};
}

TEST(CudaBackendFusion, EpiloguePartsTheCudaLayerDoesNotFuseAreRefused)
{
    SKIP_WITHOUT_GPU();
    // The CPU reference applies every part of an epilogue after any layer; a plan from elsewhere that puts one where
    // the CUDA layer has no place for it would otherwise run without it and compute something else.
    FilterWeights const a = filterOf(kChannels, 0);
    FilterWeights const b = filterOf(kChannels, 1);
    FilterWeights const c = filterOf(kChannels, 2);
    kiln::plan::PlanModel const model = cudaPlanOf(residualBlock(a, b, c));
    ASSERT_EQ(model.layers.size(), 4U);
    ASSERT_EQ(model.layers[0].name, "conv1 + relu1");
    EXPECT_EQ(contextError(model), "");

    kiln::plan::PlanModel biased = model;
    std::vector<float> const bias(kChannels, 1.0F);
    biased.layers[0].epilogue.bias = kiln::network::WeightsBuffer(Weights{DataType::kFLOAT, bias.data(), kChannels});
    std::string const biasError = contextError(biased);
    EXPECT_NE(biasError.find("conv1 + relu1"), std::string::npos) << biasError;
    EXPECT_NE(biasError.find("fuses a bias into a convolution"), std::string::npos) << biasError;

    kiln::plan::PlanModel reluAfterRelu = model;
    ASSERT_EQ(reluAfterRelu.layers[3].name, "relu3");
    reluAfterRelu.layers[3].epilogue.setRelu();
    std::string const kindError = contextError(reluAfterRelu);
    EXPECT_NE(kindError.find("relu3"), std::string::npos) << kindError;
    EXPECT_NE(kindError.find("a layer kind the CUDA backend fuses none into"), std::string::npos) << kindError;
}

} // namespace
