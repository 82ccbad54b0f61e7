// Kiln's kernel for depthwise convolutions (depthwise_convolution.h): which layers it takes, and, forced into the
// depthwise convolution of a plan, the same results as the CPU reference in FP32 and FP16, channels-first and
// channels-last (8-, 2- and 1-channel vectors), one position a thread or strips of 4, 2 and 1, with strides,
// dilation, padding, 5x5 and 7x7 windows, and with and without a bias and a fused ReLU.
#include "backend/cuda/kernels/convolution/depthwise_convolution.h"
#include "backend/cuda/tuning/algorithm_choice.h"
#include "backend_comparison.h"
#include "plan/plan_graph.h"

#include <stdexcept>
#include <string>
#include <vector>

namespace
{

using namespace nvinfer1;
using namespace kiln::test;
using kiln::cuda::DepthwiseConvolution;

struct Depthwise
{
    Dims input{4, {2, 16, 13, 11}};
    int32_t kernel{3};
    int32_t stride{1};
    int32_t padding{1};
    int32_t dilation{1};
    bool bias{true};
    bool relu{true};
};

Weights weights(std::vector<float> const& values)
{
    return Weights{DataType::kFLOAT, values.data(), static_cast<int64_t>(values.size())};
}

//! A 1x1 convolution into the channels (so that FP16 channels-last plans store the depthwise input kHWC, as real
//! networks do), then the depthwise convolution under test, its output "y".
NetworkMaker depthwiseNetwork(Depthwise const& d, std::vector<float> const& expand, std::vector<float> const& kernel,
    std::vector<float> const& bias)
{
    return [=, &expand, &kernel, &bias](INetworkDefinition& network) {
        int32_t const channels = d.input.d[1];
        ITensor* x = network.addInput("x", DataType::kFLOAT, d.input);
        ITensor* expanded
            = network.addConvolutionNd(*x, channels, Dims{2, {1, 1}}, weights(expand), Weights{})->getOutput(0);
        IConvolutionLayer* conv = network.addConvolutionNd(
            *expanded, channels, Dims{2, {d.kernel, d.kernel}}, weights(kernel), d.bias ? weights(bias) : Weights{});
        conv->setNbGroups(channels);
        conv->setStrideNd(Dims{2, {d.stride, d.stride}});
        conv->setPaddingNd(Dims{2, {d.padding, d.padding}});
        conv->setDilationNd(Dims{2, {d.dilation, d.dilation}});
        ITensor* y = conv->getOutput(0);
        if (d.relu)
        {
            y = network.addActivation(*y, ActivationType::kRELU)->getOutput(0);
        }
        y->setName("y");
        network.markOutput(*y);
    };
}

//! Kiln's kernel, in strips of `strip` positions (0: the one-position kernel), against the CPU reference.
void expectKernelAgreesWithTheCpu(
    Depthwise const& d, bool fp16, bool channelsLast, std::string const& what, int32_t strip = 0)
{
    int64_t const channels = d.input.d[1];
    std::vector<float> const expand = spread(static_cast<size_t>(channels * channels), -0.3F, 0.35F);
    std::vector<float> const kernel = spread(static_cast<size_t>(channels * d.kernel * d.kernel), -0.5F, 0.45F);
    std::vector<float> const bias = spread(static_cast<size_t>(channels), -0.6F, 0.5F);
    NetworkMaker const maker = depthwiseNetwork(d, expand, kernel, bias);
    kiln::ConvolutionLayout const layout = channelsLast ? kiln::ConvolutionLayout::kCHANNELS_LAST
                                                        : kiln::ConvolutionLayout::kLINEAR;
    auto const settings = [layout](IBuilderConfig& config) { kiln::setConvolutionLayout(config, layout); };
    std::map<std::string, HostTensor> const inputs{
        {"x", fromFloats(shapeOf(d.input), spread(volumeOf(d.input), -1.5F, 1.7F))}};
    auto const expected = runOn(kiln::Backend::kCPU, maker, inputs, fp16, nullptr, settings);
    kiln::plan::PlanModel const model = cudaPlanOf(maker, fp16, settings);
    auto const convolutions = layersOfType(model, LayerType::kCONVOLUTION);
    ASSERT_EQ(convolutions.size(), 2U) << what;
    auto const& depthwise = *convolutions[1];
    TensorFormat const format = firstInputFormat(model, depthwise);
    ASSERT_EQ(format, channelsLast ? TensorFormat::kHWC : TensorFormat::kLINEAR) << what;
    ASSERT_EQ(depthwise.precision, fp16 ? DataType::kHALF : DataType::kFLOAT) << what;
    ASSERT_TRUE(DepthwiseConvolution::takes(*kiln::plan::paramsOf<kiln::network::ConvolutionParams>(depthwise),
        depthwise.epilogue, shapeOf(d.input), *depthwise.precision, format))
        << what << ": the kernel should take the layer";
    auto const outputs = runPlan(kiln::Backend::kCUDA,
        withBackendChoice(model, LayerType::kCONVOLUTION, kiln::cuda::AlgorithmChoice::depthwiseKernel(strip).encode()),
        inputs);
    ASSERT_EQ(outputs.count("y"), 1U) << what;
    Tolerance const tolerance = fp16 ? Tolerance{2.5e-3, 1e-3} : Tolerance{1e-5, 1e-4};
    expectSameOutput(outputs.at("y"), expected.at("y"), tolerance, what);
}

TEST(DepthwiseConvolution, TakesOneChannelPerGroupInFp32OrFp16)
{
    kiln::network::ConvolutionParams params;
    params.nbOutputMaps = 32;
    params.nbGroups = 32;
    params.setDefaults(Dims{2, {3, 3}});
    std::vector<float> const kernel(32 * 9, 0.5F);
    params.kernel = kiln::network::WeightsBuffer(weights(kernel));
    kiln::plan::Epilogue relu;
    relu.setRelu();
    kiln::Shape const shape{8, 32, 56, 56};
    auto const takes = [&](kiln::network::ConvolutionParams const& p, kiln::plan::Epilogue const& e,
                           kiln::Shape const& s, DataType type,
                           TensorFormat format) { return DepthwiseConvolution::takes(p, e, s, type, format); };
    EXPECT_TRUE(takes(params, relu, shape, DataType::kHALF, TensorFormat::kHWC));
    EXPECT_TRUE(takes(params, relu, shape, DataType::kHALF, TensorFormat::kLINEAR));
    EXPECT_TRUE(takes(params, {}, shape, DataType::kFLOAT, TensorFormat::kLINEAR));
    EXPECT_FALSE(takes(params, relu, shape, DataType::kBF16, TensorFormat::kLINEAR)) << "BF16";
    EXPECT_FALSE(takes(params, relu, shape, DataType::kHALF, TensorFormat::kHWC8)) << "padded channels";
    EXPECT_FALSE(takes(params, relu, {8, 32, 56}, DataType::kHALF, TensorFormat::kHWC)) << "one spatial axis";
    EXPECT_FALSE(takes(params, relu, {8, 16, 56, 56}, DataType::kHALF, TensorFormat::kHWC)) << "two channels a group";

    kiln::plan::Epilogue residual = relu;
    residual.addsResidual = true;
    EXPECT_FALSE(takes(params, residual, shape, DataType::kHALF, TensorFormat::kHWC)) << "a residual";
    kiln::plan::Epilogue sigmoid;
    sigmoid.activates = true;
    sigmoid.activation = ActivationType::kSIGMOID;
    EXPECT_FALSE(takes(params, sigmoid, shape, DataType::kHALF, TensorFormat::kHWC)) << "a sigmoid";

    kiln::network::ConvolutionParams grouped = params;
    grouped.nbGroups = 16;
    EXPECT_FALSE(takes(grouped, relu, shape, DataType::kHALF, TensorFormat::kHWC)) << "16 groups";
    kiln::network::ConvolutionParams multiplier = params;
    multiplier.nbOutputMaps = 64;
    std::vector<float> const doubled(64 * 9, 0.5F);
    multiplier.kernel = kiln::network::WeightsBuffer(weights(doubled));
    EXPECT_FALSE(takes(multiplier, relu, shape, DataType::kHALF, TensorFormat::kHWC)) << "two maps a channel";
}

TEST(DepthwiseConvolution, Fp32ChannelsFirstAgreesWithTheCpu)
{
    SKIP_WITHOUT_GPU();
    expectKernelAgreesWithTheCpu(Depthwise{}, false, false, "FP32, 3x3, bias and ReLU");
    Depthwise d;
    d.stride = 2;
    d.bias = false;
    d.relu = false;
    d.input = Dims{4, {3, 5, 17, 14}};
    expectKernelAgreesWithTheCpu(d, false, false, "FP32, 3x3 stride 2, 5 channels, no epilogue");
}

TEST(DepthwiseConvolution, Fp16ChannelsFirstAgreesWithTheCpu)
{
    SKIP_WITHOUT_GPU();
    Depthwise d;
    d.kernel = 5;
    d.padding = 2;
    d.stride = 2;
    expectKernelAgreesWithTheCpu(d, true, false, "FP16, 5x5 stride 2");
}

TEST(DepthwiseConvolution, Fp16ChannelsLastInVectorsOfEightTwoAndOne)
{
    SKIP_WITHOUT_GPU();
    expectKernelAgreesWithTheCpu(Depthwise{}, true, true, "FP16 channels-last, 16 channels (vectors of 8)");
    Depthwise d;
    d.input = Dims{4, {2, 24, 20, 18}};
    d.stride = 2;
    d.dilation = 2;
    d.padding = 2;
    d.relu = false;
    expectKernelAgreesWithTheCpu(d, true, true, "FP16 channels-last, 24 channels, stride 2, dilation 2, bias only");
    d = Depthwise{};
    d.input = Dims{4, {1, 8, 9, 9}};
    d.kernel = 5;
    d.padding = 0;
    d.bias = false;
    expectKernelAgreesWithTheCpu(d, true, true, "FP16 channels-last, 5x5 without padding, ReLU only");
    // Grouped convolutions read channels-last data unpadded: 6 channels make vectors of 2, 5 of 1.
    d = Depthwise{};
    d.input = Dims{4, {2, 6, 11, 9}};
    expectKernelAgreesWithTheCpu(d, true, true, "FP16 channels-last, 6 channels (vectors of 2)");
    d.input = Dims{4, {1, 5, 10, 7}};
    d.stride = 2;
    expectKernelAgreesWithTheCpu(d, true, true, "FP16 channels-last, 5 channels (single values), stride 2");
}

//! `d`'s layer as Kiln's kernel sees it, FP16 channels-last.
kiln::cuda::ConvolutionGeometry geometryOf(Depthwise const& d)
{
    kiln::network::ConvolutionParams params;
    params.nbOutputMaps = d.input.d[1];
    params.nbGroups = d.input.d[1];
    params.setDefaults(Dims{2, {d.kernel, d.kernel}});
    params.stride = Dims{2, {d.stride, d.stride}};
    params.prePadding = Dims{2, {d.padding, d.padding}};
    params.postPadding = params.prePadding;
    params.dilation = Dims{2, {d.dilation, d.dilation}};
    return kiln::cuda::convolutionGeometry(params, shapeOf(d.input), false);
}

TEST(DepthwiseConvolution, OffersStripsForWindowsOfThreeToSevenWide)
{
    auto const strips
        = [](Depthwise const& d, DataType type = DataType::kHALF, TensorFormat format = TensorFormat::kHWC) {
              return DepthwiseConvolution::strips(geometryOf(d), type, format);
          };
    using Strips = std::vector<int32_t>;
    Depthwise d;
    EXPECT_EQ(strips(d), (Strips{0, 1, 2, 4})) << "3x3, stride 1";
    EXPECT_EQ(strips(d, DataType::kFLOAT), Strips{0}) << "FP32 channels-last (plans store FP32 channels-first)";
    EXPECT_EQ(strips(d, DataType::kFLOAT, TensorFormat::kLINEAR), (Strips{0, 1, 2, 4})) << "FP32 channels-first";
    EXPECT_EQ(strips(d, DataType::kHALF, TensorFormat::kLINEAR), (Strips{0, 1, 2, 4})) << "FP16 channels-first";
    EXPECT_EQ(strips(d, DataType::kBF16, TensorFormat::kLINEAR), Strips{0}) << "BF16";
    d.stride = 2;
    EXPECT_EQ(strips(d), (Strips{0, 1, 2})) << "stride 2";
    d.stride = 3;
    EXPECT_EQ(strips(d), Strips{0}) << "stride 3";
    d = Depthwise{};
    d.dilation = 2;
    EXPECT_EQ(strips(d), Strips{0}) << "dilated";
    d = Depthwise{};
    d.kernel = 9;
    EXPECT_EQ(strips(d), Strips{0}) << "9x9";
    d.kernel = 7;
    EXPECT_EQ(strips(d), (Strips{0, 1, 2, 4})) << "7x7";
    d.input = Dims{4, {2, 12, 13, 11}};
    EXPECT_EQ(strips(d), Strips{0}) << "12 channels: no vectors of eight";
    EXPECT_EQ(strips(d, DataType::kHALF, TensorFormat::kLINEAR), (Strips{0, 1, 2, 4})) << "12 channels, channels-first";

    // A strip the kernel does not offer (a damaged plan's choice) is refused by name.
    d = Depthwise{};
    d.stride = 2;
    try
    {
        DepthwiseConvolution(geometryOf(d), DataType::kHALF, TensorFormat::kHWC, false, 4);
        FAIL() << "strips of 4 at stride 2 were taken";
    }
    catch (std::invalid_argument const& error)
    {
        EXPECT_NE(std::string(error.what()).find("no strips of 4 positions"), std::string::npos) << error.what();
    }
}

TEST(DepthwiseConvolution, ChannelsFirstStripsAgreeWithTheCpu)
{
    SKIP_WITHOUT_GPU();
    // ConvNeXt's 7x7 window of stride 1, FP32 and FP16; of 29 columns, the last strip of 4 or of 2 holds one value.
    Depthwise d;
    d.input = Dims{4, {2, 12, 29, 29}};
    d.kernel = 7;
    d.padding = 3;
    for (bool const fp16 : {false, true})
    {
        for (int32_t const strip : {1, 2, 4})
        {
            expectKernelAgreesWithTheCpu(d, fp16, false,
                std::string(fp16 ? "FP16" : "FP32") + " channels-first, 7x7, strips of " + std::to_string(strip),
                strip);
        }
    }
    // A 5x5 window of stride 2 (15 output columns), 5 channels, no ReLU; a 3x3 window without padding or bias.
    d = Depthwise{};
    d.input = Dims{4, {3, 5, 30, 29}};
    d.kernel = 5;
    d.padding = 2;
    d.stride = 2;
    d.relu = false;
    expectKernelAgreesWithTheCpu(d, false, false, "FP32 channels-first, 5x5 stride 2, strips of 2", 2);
    d = Depthwise{};
    d.input = Dims{4, {2, 7, 18, 17}};
    d.padding = 0;
    d.bias = false;
    expectKernelAgreesWithTheCpu(d, true, false, "FP16 channels-first, 3x3 without padding, strips of 4", 4);
}

TEST(DepthwiseConvolution, Fp16ChannelsLastStripsAgreeWithTheCpu)
{
    SKIP_WITHOUT_GPU();
    // ConvNeXt's 7x7 window of stride 1; of 29 columns, the last strip of 4 or of 2 holds one position.
    Depthwise d;
    d.input = Dims{4, {2, 32, 29, 29}};
    d.kernel = 7;
    d.padding = 3;
    for (int32_t const strip : {1, 2, 4})
    {
        expectKernelAgreesWithTheCpu(
            d, true, true, "FP16 channels-last, 7x7, strips of " + std::to_string(strip), strip);
    }
    // EfficientNet's 5x5 window of stride 2; 15 output columns leave a last strip of one.
    d = Depthwise{};
    d.input = Dims{4, {3, 16, 30, 29}};
    d.kernel = 5;
    d.padding = 2;
    d.stride = 2;
    d.relu = false;
    for (int32_t const strip : {1, 2})
    {
        expectKernelAgreesWithTheCpu(
            d, true, true, "FP16 channels-last, 5x5 stride 2, strips of " + std::to_string(strip), strip);
    }
    // A 3x3 window of stride 1 and 2 without padding (every column a strip reads lies in the image), no bias.
    d = Depthwise{};
    d.input = Dims{4, {2, 24, 18, 17}};
    d.padding = 0;
    d.bias = false;
    expectKernelAgreesWithTheCpu(d, true, true, "FP16 channels-last, 3x3 without padding, strips of 4", 4);
    d.stride = 2;
    expectKernelAgreesWithTheCpu(d, true, true, "FP16 channels-last, 3x3 stride 2 without padding, strips of 2", 2);
}

} // namespace
