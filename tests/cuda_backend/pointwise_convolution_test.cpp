// 1x1 convolutions as one cuBLASLt product (pointwise_convolution.h): which layers it takes, and, forced into every
// convolution of an FP16 channels-last plan, the same results as the CPU reference: a ResNet bottleneck's 1x1
// convolutions with bias, residual and ReLU, one without bias or activation, and layers the product does not take
// (3x3, and a 1x1 of stride 2), which run cuDNN's choice instead.
#include "backend/cuda/libraries/cublaslt/pointwise_convolution.h"
#include "backend/cuda/tuning/algorithm_choice.h"
#include "backend_comparison.h"

#include <algorithm>
#include <string>
#include <vector>

namespace
{

using namespace nvinfer1;
using namespace kiln::test;
using kiln::cuda::PointwiseConvolution;

Weights weights(std::vector<float> const& values)
{
    return Weights{DataType::kFLOAT, values.data(), static_cast<int64_t>(values.size())};
}

struct Kernels
{
    std::vector<float> stem = spread(32 * 8 * 9, -0.2F, 0.25F);
    std::vector<float> stemBias = spread(32, -0.3F, 0.3F);
    std::vector<float> reduce = spread(16 * 32, -0.25F, 0.2F);
    std::vector<float> reduceBias = spread(16, -0.2F, 0.4F);
    std::vector<float> expand = spread(32 * 16, -0.3F, 0.35F);
    std::vector<float> expandBias = spread(32, -0.5F, 0.1F);
    std::vector<float> plain = spread(24 * 32, -0.15F, 0.2F);
    std::vector<float> strided = spread(8 * 24, -0.3F, 0.3F);
};

//! A 3x3 stem over 8 channels; a bottleneck: relu(1x1 to 16 + bias), relu(1x1 back to 32 + bias + its input); a 1x1
//! to 24 maps without bias or activation; a 1x1 of stride 2 to 8 maps.
NetworkMaker bottleneck(Kernels const& k, Dims input)
{
    return [&k, input](INetworkDefinition& network) {
        ITensor* x = network.addInput("x", DataType::kFLOAT, input);
        IConvolutionLayer* stem
            = network.addConvolutionNd(*x, 32, Dims{2, {3, 3}}, weights(k.stem), weights(k.stemBias));
        stem->setPaddingNd(Dims{2, {1, 1}});
        ITensor* a = &relu(network, *stem->getOutput(0), "stem relu");
        IConvolutionLayer* reduce
            = network.addConvolutionNd(*a, 16, Dims{2, {1, 1}}, weights(k.reduce), weights(k.reduceBias));
        ITensor* b = &relu(network, *reduce->getOutput(0), "reduce relu");
        IConvolutionLayer* expand
            = network.addConvolutionNd(*b, 32, Dims{2, {1, 1}}, weights(k.expand), weights(k.expandBias));
        ITensor* c = &relu(network, add(network, *expand->getOutput(0), *a, "residual"), "expand relu");
        IConvolutionLayer* plain = network.addConvolutionNd(*c, 24, Dims{2, {1, 1}}, weights(k.plain), Weights{});
        IConvolutionLayer* strided
            = network.addConvolutionNd(*plain->getOutput(0), 8, Dims{2, {1, 1}}, weights(k.strided), Weights{});
        strided->setStrideNd(Dims{2, {2, 2}});
        plain->getOutput(0)->setName("plain");
        strided->getOutput(0)->setName("y");
        network.markOutput(*plain->getOutput(0));
        network.markOutput(*strided->getOutput(0));
    };
}

//! How many of `model`'s convolutions the product takes: 1x1 of stride 1 over FP16 kHWC.
int32_t pointwiseConvolutions(kiln::plan::PlanModel const& model)
{
    return static_cast<int32_t>(std::count_if(model.layers.begin(), model.layers.end(), [&](auto const& layer) {
        if (layer.type != LayerType::kCONVOLUTION || layer.precision != DataType::kHALF
            || firstInputFormat(model, layer) != TensorFormat::kHWC)
        {
            return false;
        }
        auto const& params = static_cast<kiln::network::ConvolutionParams const&>(*layer.params);
        return params.kernelSize.d[0] == 1 && params.kernelSize.d[1] == 1 && params.stride.d[0] == 1;
    }));
}

TEST(PointwiseConvolution, TakesUnpaddedOneByOneConvolutionsOfStrideOneChannelsLast)
{
    kiln::network::ConvolutionParams params;
    params.nbOutputMaps = 256;
    params.setDefaults(Dims{2, {1, 1}});
    kiln::plan::Epilogue residual;
    residual.addsResidual = true;
    residual.setRelu();
    kiln::Shape const shape{8, 64, 56, 56};
    auto const takes = [&](kiln::network::ConvolutionParams const& p, kiln::plan::Epilogue const& e, DataType type,
                           TensorFormat format) { return PointwiseConvolution::takes(p, e, shape, type, format); };
    EXPECT_TRUE(takes(params, residual, DataType::kHALF, TensorFormat::kHWC));
    EXPECT_TRUE(takes(params, {}, DataType::kFLOAT, TensorFormat::kHWC));
    EXPECT_FALSE(takes(params, residual, DataType::kHALF, TensorFormat::kLINEAR)) << "channels first";
    EXPECT_FALSE(takes(params, residual, DataType::kHALF, TensorFormat::kHWC8)) << "padded channels";
    EXPECT_FALSE(takes(params, residual, DataType::kINT8, TensorFormat::kHWC)) << "INT8";
    kiln::plan::Epilogue sigmoid;
    sigmoid.activates = true;
    sigmoid.activation = ActivationType::kSIGMOID;
    EXPECT_FALSE(takes(params, sigmoid, DataType::kHALF, TensorFormat::kHWC)) << "a sigmoid";

    kiln::network::ConvolutionParams other = params;
    other.stride = Dims{2, {2, 2}};
    EXPECT_FALSE(takes(other, residual, DataType::kHALF, TensorFormat::kHWC)) << "stride 2";
    other = params;
    other.prePadding = Dims{2, {1, 1}};
    other.postPadding = Dims{2, {1, 1}};
    EXPECT_FALSE(takes(other, residual, DataType::kHALF, TensorFormat::kHWC)) << "padding";
    other = params;
    other.nbGroups = 4;
    EXPECT_FALSE(takes(other, residual, DataType::kHALF, TensorFormat::kHWC)) << "groups";
    other = params;
    other.setDefaults(Dims{2, {3, 3}});
    EXPECT_FALSE(takes(other, residual, DataType::kHALF, TensorFormat::kHWC)) << "3x3";
}

TEST(PointwiseConvolution, ABottleneckAgreesWithTheCpu)
{
    SKIP_WITHOUT_GPU();
    Kernels const kernels;
    Dims const input{4, {3, 8, 13, 11}}; // 429 positions: not a multiple of any tile
    NetworkMaker const maker = bottleneck(kernels, input);
    auto const channelsLast
        = [](IBuilderConfig& config) { kiln::setConvolutionLayout(config, kiln::ConvolutionLayout::kCHANNELS_LAST); };
    std::map<std::string, HostTensor> const inputs{
        {"x", fromFloats(shapeOf(input), spread(volumeOf(input), -1.5F, 1.7F))}};
    auto const expected = runOn(kiln::Backend::kCPU, maker, inputs, true, nullptr, channelsLast);
    kiln::plan::PlanModel const model = cudaPlanOf(maker, true, channelsLast);
    ASSERT_EQ(pointwiseConvolutions(model), 3) << "the bottleneck's two 1x1 convolutions and the plain one";
    auto const outputs = runPlan(kiln::Backend::kCUDA,
        withBackendChoice(model, LayerType::kCONVOLUTION, kiln::cuda::AlgorithmChoice::gemm().encode()), inputs);
    for (char const* name : {"plain", "y"})
    {
        ASSERT_EQ(outputs.count(name), 1U) << name;
        expectSameOutput(outputs.at(name), expected.at(name), Tolerance{2.5e-3, 1e-3},
            std::string("every convolution set to the cuBLASLt product, output ") + name);
    }
}

} // namespace
