// Kiln's kernel for convolutions over few input channels (small_channel_convolution.h): which layers it takes, and,
// forced into every convolution of an FP16 channels-last plan, the same results as the CPU reference: stems with and
// without bias and ReLU, strides, dilation, padding, an odd tap count, output maps beyond one block's 64, and output
// positions that end mid-tile. A layer the kernel does not take runs cuDNN's choice instead.
#include "backend/cuda/kernels/convolution/small_channel_convolution.h"
#include "backend/cuda/tuning/algorithm_choice.h"
#include "backend_comparison.h"

#include <algorithm>
#include <string>
#include <vector>

namespace
{

using namespace nvinfer1;
using namespace kiln::test;
using kiln::cuda::SmallChannelConvolution;

//! One convolution over an image of `channels` channels, as the tests run it.
struct Stem
{
    int32_t channels{3};
    int32_t maps{64};
    int32_t kernel{7};
    int32_t stride{2};
    int32_t padding{3};
    int32_t dilation{1};
    bool bias{true};
    bool relu{true};
    Dims input{4, {2, 3, 20, 18}};
};

Weights weights(std::vector<float> const& values)
{
    return Weights{DataType::kFLOAT, values.data(), static_cast<int64_t>(values.size())};
}

//! `stem` over input "x"; with `follow`, a 3x3 convolution over its output maps comes after (which the kernel does
//! not take: too many channels).
NetworkMaker stemNetwork(Stem const& stem, std::vector<float> const& kernel, std::vector<float> const& bias,
    std::vector<float> const& next, bool follow)
{
    return [=, &kernel, &bias, &next](INetworkDefinition& network) {
        ITensor* x = network.addInput("x", DataType::kFLOAT, stem.input);
        IConvolutionLayer* conv = network.addConvolutionNd(
            *x, stem.maps, Dims{2, {stem.kernel, stem.kernel}}, weights(kernel), stem.bias ? weights(bias) : Weights{});
        conv->setStrideNd(Dims{2, {stem.stride, stem.stride}});
        conv->setPaddingNd(Dims{2, {stem.padding, stem.padding}});
        conv->setDilationNd(Dims{2, {stem.dilation, stem.dilation}});
        ITensor* y = conv->getOutput(0);
        if (stem.relu)
        {
            y = network.addActivation(*y, ActivationType::kRELU)->getOutput(0);
        }
        if (follow)
        {
            IConvolutionLayer* after = network.addConvolutionNd(*y, 8, Dims{2, {3, 3}}, weights(next), Weights{});
            after->setPaddingNd(Dims{2, {1, 1}});
            y = after->getOutput(0);
        }
        y->setName("y");
        network.markOutput(*y);
    };
}

//! How many of `model`'s convolutions read FP16 kHWC8 (an image of at most 8 channels: those the kernel takes).
int32_t eightChannelConvolutions(kiln::plan::PlanModel const& model)
{
    return static_cast<int32_t>(std::count_if(model.layers.begin(), model.layers.end(), [&](auto const& layer) {
        return layer.type == LayerType::kCONVOLUTION && layer.precision == DataType::kHALF
            && firstInputFormat(model, layer) == TensorFormat::kHWC8;
    }));
}

void expectKernelAgreesWithTheCpu(Stem const& stem, bool follow, std::string const& what)
{
    int64_t const channels = stem.input.d[1];
    std::vector<float> const kernel
        = spread(static_cast<size_t>(stem.maps * channels * stem.kernel * stem.kernel), -0.4F, 0.45F);
    std::vector<float> const bias = spread(static_cast<size_t>(stem.maps), -0.6F, 0.5F);
    std::vector<float> const next = spread(static_cast<size_t>(8 * stem.maps * 9), -0.05F, 0.06F);
    NetworkMaker const maker = stemNetwork(stem, kernel, bias, next, follow);
    auto const channelsLast
        = [](IBuilderConfig& config) { kiln::setConvolutionLayout(config, kiln::ConvolutionLayout::kCHANNELS_LAST); };
    std::map<std::string, HostTensor> const inputs{
        {"x", fromFloats(shapeOf(stem.input), spread(volumeOf(stem.input), -1.5F, 1.7F))}};
    auto const expected = runOn(kiln::Backend::kCPU, maker, inputs, true, nullptr, channelsLast);
    kiln::plan::PlanModel const model = cudaPlanOf(maker, true, channelsLast);
    ASSERT_EQ(eightChannelConvolutions(model), 1)
        << what << ": the stem should read FP16 kHWC8, which the kernel takes";
    auto const outputs = runPlan(kiln::Backend::kCUDA,
        withBackendChoice(model, LayerType::kCONVOLUTION, kiln::cuda::AlgorithmChoice::kilnKernel().encode()), inputs);
    ASSERT_EQ(outputs.count("y"), 1U) << what;
    expectSameOutput(outputs.at("y"), expected.at("y"), Tolerance{2.5e-3, 1e-3}, what);
}

TEST(SmallChannelConvolution, TakesFp16ChannelsLastInputsOfAtMostEightChannels)
{
    kiln::network::ConvolutionParams params;
    params.nbOutputMaps = 64;
    params.setDefaults(Dims{2, {7, 7}});
    kiln::plan::Epilogue relu;
    relu.setRelu();
    kiln::Shape const rgb{8, 3, 224, 224};
    auto const takes = [&](kiln::Shape const& shape, DataType type, TensorFormat format) {
        return SmallChannelConvolution::takes(params, relu, shape, type, format);
    };
    EXPECT_TRUE(takes(rgb, DataType::kHALF, TensorFormat::kHWC8));
    EXPECT_TRUE(takes({8, 8, 224, 224}, DataType::kHALF, TensorFormat::kHWC));
    EXPECT_FALSE(takes(rgb, DataType::kFLOAT, TensorFormat::kHWC8)) << "FP32";
    EXPECT_FALSE(takes(rgb, DataType::kHALF, TensorFormat::kLINEAR)) << "channels first";
    EXPECT_FALSE(takes({8, 3, 224, 224}, DataType::kHALF, TensorFormat::kHWC)) << "3 channels stored unpadded";
    EXPECT_FALSE(takes({8, 16, 224, 224}, DataType::kHALF, TensorFormat::kHWC8)) << "16 channels";
    EXPECT_FALSE(takes({8, 3, 224}, DataType::kHALF, TensorFormat::kHWC8)) << "one spatial axis";

    kiln::plan::Epilogue residual = relu;
    residual.addsResidual = true;
    EXPECT_FALSE(SmallChannelConvolution::takes(params, residual, rgb, DataType::kHALF, TensorFormat::kHWC8));
    kiln::plan::Epilogue sigmoid;
    sigmoid.activates = true;
    sigmoid.activation = ActivationType::kSIGMOID;
    EXPECT_FALSE(SmallChannelConvolution::takes(params, sigmoid, rgb, DataType::kHALF, TensorFormat::kHWC8));
    EXPECT_TRUE(SmallChannelConvolution::takes(params, {}, rgb, DataType::kHALF, TensorFormat::kHWC8));

    kiln::network::ConvolutionParams other = params;
    other.nbOutputMaps = 60;
    EXPECT_FALSE(SmallChannelConvolution::takes(other, relu, rgb, DataType::kHALF, TensorFormat::kHWC8))
        << "maps not a multiple of 8";
    other = params;
    other.nbGroups = 3;
    EXPECT_FALSE(SmallChannelConvolution::takes(other, relu, rgb, DataType::kHALF, TensorFormat::kHWC8)) << "groups";
    other = params;
    other.setDefaults(Dims{2, {15, 15}});
    EXPECT_FALSE(SmallChannelConvolution::takes(other, relu, rgb, DataType::kHALF, TensorFormat::kHWC8))
        << "225 taps: 64 maps' kernel alone takes 232 KB";
    other = params;
    other.setDefaults(Dims{2, {11, 11}});
    other.stride = Dims{2, {4, 4}};
    EXPECT_FALSE(SmallChannelConvolution::takes(other, relu, rgb, DataType::kHALF, TensorFormat::kHWC8))
        << "AlexNet's 11x11 stride 4: a tile reads 71 x 71 input positions";
    other.setDefaults(Dims{2, {4, 4}});
    other.stride = Dims{2, {4, 4}};
    EXPECT_TRUE(SmallChannelConvolution::takes(other, relu, rgb, DataType::kHALF, TensorFormat::kHWC8))
        << "ConvNeXt's 4x4 stride-4 stem";
}

TEST(SmallChannelConvolution, ResNetsStemAgreesWithTheCpu)
{
    SKIP_WITHOUT_GPU();
    expectKernelAgreesWithTheCpu(Stem{}, false, "7x7 stride 2, 64 maps, bias and ReLU");
}

TEST(SmallChannelConvolution, ALayerItDoesNotTakeRunsCudnnsChoice)
{
    SKIP_WITHOUT_GPU();
    expectKernelAgreesWithTheCpu(Stem{}, true, "the stem, then a 3x3 convolution over its 64 maps");
}

TEST(SmallChannelConvolution, WithoutBiasOrReluOddTapsAndDilation)
{
    SKIP_WITHOUT_GPU();
    Stem stem;
    stem.maps = 16;
    stem.kernel = 3;
    stem.stride = 1;
    stem.padding = 2;
    stem.dilation = 2;
    stem.bias = false;
    stem.relu = false;
    stem.input = Dims{4, {3, 1, 13, 11}};
    expectKernelAgreesWithTheCpu(stem, false, "3x3 dilated, one channel, 16 maps, no epilogue");
}

TEST(SmallChannelConvolution, MapsBeyondOneBlockAndAPatchifyingStem)
{
    SKIP_WITHOUT_GPU();
    Stem stem;
    stem.maps = 96; // a second block of 64 maps, two thirds empty
    stem.kernel = 4;
    stem.stride = 4;
    stem.padding = 0;
    stem.relu = false;
    stem.input = Dims{4, {2, 4, 36, 28}};
    expectKernelAgreesWithTheCpu(stem, false, "ConvNeXt's 4x4 stride-4 stem, 96 maps, bias");
}

TEST(SmallChannelConvolution, ManyTilesAndMapsNotAMultipleOfSixteen)
{
    SKIP_WITHOUT_GPU();
    Stem stem;
    stem.maps = 24;
    stem.kernel = 3;
    stem.stride = 2;
    stem.padding = 1;
    stem.input = Dims{4, {3, 3, 70, 66}}; // 3 x 35 x 33 positions: 28 tiles of 128, the last partly full
    expectKernelAgreesWithTheCpu(stem, false, "EfficientNet-like 3x3 stride-2 stem, 24 maps");
}

} // namespace
