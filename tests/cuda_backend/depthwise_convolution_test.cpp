// Kiln's kernel for depthwise convolutions (depthwise_convolution.h): which layers it takes, and, forced into the
// depthwise convolution of a plan, the same results as the CPU reference in FP32 and FP16, channels-first and
// channels-last (8-, 2- and 1-channel vectors; in FP16, strips of 4, 2 and 1 positions a thread), with strides,
// dilation, padding, 5x5 and 7x7 windows, and with and without a bias and a fused ReLU.
#include "backend/cuda/device_facts.h"
#include "backend/cuda/kernels/convolution/depthwise_convolution.h"
#include "backend/cuda/tuning/algorithm_choice.h"
#include "backend_comparison.h"
#include "plan/plan_graph.h"

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

void expectKernelAgreesWithTheCpu(Depthwise const& d, bool fp16, bool channelsLast, std::string const& what)
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
        withBackendChoice(model, LayerType::kCONVOLUTION, kiln::cuda::AlgorithmChoice::depthwiseKernel().encode()),
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

//! A layer of `d`'s geometry whose batch makes enough threads for Kiln's kernel to run strips of `strip` positions
//! on this GPU (the kernel chooses by the multiprocessors to fill).
Depthwise withStripsOf(Depthwise d, int32_t strip)
{
    int64_t const outHeight = (d.input.d[2] + 2 * d.padding - d.kernel) / d.stride + 1;
    int64_t const outWidth = (d.input.d[3] + 2 * d.padding - d.kernel) / d.stride + 1;
    int64_t const threadsPerImage = outHeight * ((outWidth + strip - 1) / strip) * (d.input.d[1] / 8);
    int64_t const wanted = int64_t{kiln::cuda::multiprocessorCount("the test")} * 1024;
    d.input.d[0] = static_cast<int32_t>((wanted + threadsPerImage - 1) / threadsPerImage);
    return d;
}

//! The strip Kiln's kernel runs `d` in, FP16 channels-last.
int32_t stripOf(Depthwise const& d)
{
    kiln::network::ConvolutionParams params;
    params.nbOutputMaps = d.input.d[1];
    params.nbGroups = d.input.d[1];
    params.setDefaults(Dims{2, {d.kernel, d.kernel}});
    params.stride = Dims{2, {d.stride, d.stride}};
    params.prePadding = Dims{2, {d.padding, d.padding}};
    params.postPadding = params.prePadding;
    params.dilation = Dims{2, {d.dilation, d.dilation}};
    std::vector<float> const kernel(static_cast<size_t>(d.input.d[1] * d.kernel * d.kernel), 0.5F);
    params.kernel = kiln::network::WeightsBuffer(weights(kernel));
    return DepthwiseConvolution(
        kiln::cuda::convolutionGeometry(params, shapeOf(d.input), false), DataType::kHALF, TensorFormat::kHWC, d.relu)
        .strip();
}

TEST(DepthwiseConvolution, Fp16ChannelsLastStripsAgreeWithTheCpu)
{
    SKIP_WITHOUT_GPU();
    // ConvNeXt's 7x7 window of stride 1, in strips of 4 positions; 29 columns leave a last strip of one.
    Depthwise d;
    d.input = Dims{4, {1, 32, 29, 29}};
    d.kernel = 7;
    d.padding = 3;
    d = withStripsOf(d, 4);
    ASSERT_EQ(stripOf(d), 4) << "batch " << d.input.d[0];
    expectKernelAgreesWithTheCpu(d, true, true, "FP16 channels-last, 7x7, strips of 4");
    // EfficientNet's 5x5 window of stride 2: strips of 2 at most; 29 output columns leave a last strip of one. (16
    // channels: the 1x1 convolution before sums fewer values, whose FP16 roundings the window's 25 taps add up.)
    d = Depthwise{};
    d.input = Dims{4, {1, 16, 60, 57}};
    d.kernel = 5;
    d.padding = 2;
    d.stride = 2;
    d.relu = false;
    d = withStripsOf(d, 2);
    ASSERT_EQ(stripOf(d), 2) << "batch " << d.input.d[0];
    expectKernelAgreesWithTheCpu(d, true, true, "FP16 channels-last, 5x5 stride 2, strips of 2");
    // A 3x3 window over few positions: one position a thread, the window's width fixed at compile time.
    d = Depthwise{};
    d.input = Dims{4, {1, 16, 6, 7}};
    d.bias = false;
    ASSERT_EQ(stripOf(d), 1);
    expectKernelAgreesWithTheCpu(d, true, true, "FP16 channels-last, 3x3, strips of 1");
    // A 3x3 window of stride 1 in strips of 4, without padding (every column a strip reads lies in the image).
    d.input = Dims{4, {1, 24, 18, 18}};
    d.padding = 0;
    d = withStripsOf(d, 4);
    ASSERT_EQ(stripOf(d), 4) << "batch " << d.input.d[0];
    expectKernelAgreesWithTheCpu(d, true, true, "FP16 channels-last, 3x3 without padding, strips of 4");
}

} // namespace
