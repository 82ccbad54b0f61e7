// Convolutions whose windows do not overlap, as one cuBLASLt product of the unfolded windows (patch_convolution.h):
// which layers it takes, and, forced into every convolution of an FP16 channels-last plan, the same results as the CPU
// reference: a ViT-style 16x16 patch embedding of an RGB image, a 4x4 stem over extents that leave a remainder, a
// 2x3 window of stride 2x3, a 2x2 window of stride 3 (gaps between windows), and a 2x2 and a 1x1 convolution of
// stride 2 whose sum and ReLU fuse as the residual.
#include "backend/cuda/libraries/cublaslt/patch_convolution.h"
#include "backend/cuda/tuning/algorithm_choice.h"
#include "backend_comparison.h"

#include <algorithm>
#include <string>
#include <vector>

namespace
{

using namespace nvinfer1;
using namespace kiln::test;
using kiln::cuda::PatchConvolution;

Weights weights(std::vector<float> const& values)
{
    return Weights{DataType::kFLOAT, values.data(), static_cast<int64_t>(values.size())};
}

//! A convolution of `window` and `stride` (the window's where not given).
IConvolutionLayer& apart(INetworkDefinition& network, ITensor& input, int64_t maps, Dims window,
    std::vector<float> const& kernel, std::vector<float> const& bias, Dims stride = Dims{-1, {}})
{
    IConvolutionLayer* layer = network.addConvolutionNd(input, maps, window, weights(kernel), weights(bias));
    layer->setStrideNd(stride.nbDims < 0 ? window : stride);
    return *layer;
}

struct Kernels
{
    std::vector<float> patch = spread(48 * 3 * 16 * 16, -0.05F, 0.06F);
    std::vector<float> patchBias = spread(48, -0.3F, 0.3F);
    std::vector<float> stem = spread(16 * 3 * 4 * 4, -0.2F, 0.25F);
    std::vector<float> stemBias = spread(16, -0.2F, 0.4F);
    std::vector<float> oblong = spread(8 * 3 * 2 * 3, -0.3F, 0.35F);
    std::vector<float> oblongBias = spread(8, -0.5F, 0.1F);
    std::vector<float> gapped = spread(24 * 3 * 2 * 2, -0.4F, 0.3F);
    std::vector<float> merge = spread(32 * 16 * 2 * 2, -0.15F, 0.2F);
    std::vector<float> shortcut = spread(32 * 16, -0.3F, 0.3F);
    std::vector<float> shortcutBias = spread(32, -0.1F, 0.2F);
};

//! From an RGB image: a 16x16 patch embedding to 48 maps; relu(4x4 stem to 16 maps); a 2x3 window of stride 2x3 to 8
//! maps; a 2x2 window of stride 3 to 24 maps, without bias; from the stem, relu(2x2 stride-2 merge to 32 maps + the
//! 1x1 stride-2 shortcut to 32 maps).
NetworkMaker windowsApart(Kernels const& k, Dims input)
{
    return [&k, input](INetworkDefinition& network) {
        ITensor* x = network.addInput("x", DataType::kFLOAT, input);
        ITensor* patches = apart(network, *x, 48, Dims{2, {16, 16}}, k.patch, k.patchBias).getOutput(0);
        ITensor* stem
            = &relu(network, *apart(network, *x, 16, Dims{2, {4, 4}}, k.stem, k.stemBias).getOutput(0), "stem relu");
        ITensor* oblong = apart(network, *x, 8, Dims{2, {2, 3}}, k.oblong, k.oblongBias).getOutput(0);
        ITensor* gapped = apart(network, *x, 24, Dims{2, {2, 2}}, k.gapped, {}, Dims{2, {3, 3}}).getOutput(0);
        ITensor* merged = apart(network, *stem, 32, Dims{2, {2, 2}}, k.merge, {}).getOutput(0);
        IConvolutionLayer* shortcut
            = network.addConvolutionNd(*stem, 32, Dims{2, {1, 1}}, weights(k.shortcut), weights(k.shortcutBias));
        shortcut->setStrideNd(Dims{2, {2, 2}});
        ITensor* y = &relu(network, add(network, *merged, *shortcut->getOutput(0), "residual"), "merge relu");
        patches->setName("patches");
        oblong->setName("oblong");
        gapped->setName("gapped");
        y->setName("y");
        for (ITensor* output : {patches, oblong, gapped, y})
        {
            network.markOutput(*output);
        }
    };
}

//! How many of `model`'s convolutions read FP16 channels-last data through windows apart (strides at least the
//! window; every convolution of the network is unpadded).
int32_t windowsApartConvolutions(kiln::plan::PlanModel const& model)
{
    return static_cast<int32_t>(std::count_if(model.layers.begin(), model.layers.end(), [&](auto const& layer) {
        if (layer.type != LayerType::kCONVOLUTION || layer.precision != DataType::kHALF)
        {
            return false;
        }
        auto const& params = static_cast<kiln::network::ConvolutionParams const&>(*layer.params);
        bool const apart = params.stride.d[0] >= params.kernelSize.d[0] && params.stride.d[1] >= params.kernelSize.d[1];
        return apart && kiln::channelsLast(firstInputFormat(model, layer));
    }));
}

TEST(PatchConvolution, TakesWindowsApartChannelsLast)
{
    kiln::network::ConvolutionParams params;
    params.nbOutputMaps = 768;
    params.setDefaults(Dims{2, {16, 16}});
    params.stride = Dims{2, {16, 16}};
    kiln::plan::Epilogue residual;
    residual.addsResidual = true;
    residual.setRelu();
    kiln::Shape const image{8, 3, 224, 224};
    auto const takes = [&](kiln::network::ConvolutionParams const& p, kiln::plan::Epilogue const& e, DataType type,
                           TensorFormat format,
                           kiln::Shape const& shape) { return PatchConvolution::takes(p, e, shape, type, format); };
    EXPECT_TRUE(takes(params, {}, DataType::kHALF, TensorFormat::kHWC8, image)) << "ViT's patch embedding";
    EXPECT_TRUE(takes(params, residual, DataType::kHALF, TensorFormat::kHWC, image));
    EXPECT_FALSE(takes(params, {}, DataType::kFLOAT, TensorFormat::kHWC, image)) << "FP32 (its plans keep kLINEAR)";
    EXPECT_TRUE(takes(params, {}, DataType::kHALF, TensorFormat::kHWC8, {1, 3, 230, 231})) << "a remainder";
    EXPECT_FALSE(takes(params, {}, DataType::kHALF, TensorFormat::kLINEAR, image)) << "channels first";
    EXPECT_FALSE(takes(params, {}, DataType::kINT8, TensorFormat::kHWC, image)) << "INT8";
    EXPECT_FALSE(takes(params, {}, DataType::kHALF, TensorFormat::kHWC8, {8, 3, 224})) << "one spatial axis";
    kiln::plan::Epilogue sigmoid;
    sigmoid.activates = true;
    sigmoid.activation = ActivationType::kSIGMOID;
    EXPECT_FALSE(takes(params, sigmoid, DataType::kHALF, TensorFormat::kHWC8, image)) << "a sigmoid";

    kiln::network::ConvolutionParams other = params;
    other.stride = Dims{2, {8, 8}};
    EXPECT_FALSE(takes(other, {}, DataType::kHALF, TensorFormat::kHWC8, image)) << "overlapping windows";
    other.stride = Dims{2, {16, 20}};
    EXPECT_TRUE(takes(other, {}, DataType::kHALF, TensorFormat::kHWC8, image)) << "gaps between windows";
    other = params;
    other.prePadding = Dims{2, {1, 1}};
    other.postPadding = Dims{2, {1, 1}};
    EXPECT_FALSE(takes(other, {}, DataType::kHALF, TensorFormat::kHWC8, image)) << "padding";
    other = params;
    other.paddingMode = PaddingMode::kSAME_UPPER;
    EXPECT_FALSE(takes(other, {}, DataType::kHALF, TensorFormat::kHWC8, {1, 3, 230, 230})) << "padded to SAME";
    EXPECT_TRUE(takes(other, {}, DataType::kHALF, TensorFormat::kHWC8, image)) << "SAME, which needs no padding here";
    other = params;
    other.dilation = Dims{2, {2, 2}};
    EXPECT_FALSE(takes(other, {}, DataType::kHALF, TensorFormat::kHWC8, image)) << "dilation";
    other = params;
    other.nbGroups = 3;
    other.nbOutputMaps = 768;
    EXPECT_FALSE(takes(other, {}, DataType::kHALF, TensorFormat::kHWC8, image)) << "groups";
    other.setDefaults(Dims{2, {1, 1}});
    other.nbGroups = 1;
    EXPECT_FALSE(takes(other, residual, DataType::kHALF, TensorFormat::kHWC, image)) << "1x1 of stride 1: pointwise";
    other.stride = Dims{2, {2, 2}};
    EXPECT_TRUE(takes(other, residual, DataType::kHALF, TensorFormat::kHWC, image)) << "1x1 of stride 2";
}

TEST(PatchConvolution, WindowsApartAgreeWithTheCpu)
{
    SKIP_WITHOUT_GPU();
    Kernels const kernels;
    Dims const input{4, {2, 3, 50, 42}}; // windows of 16 and 4 leave rows and columns over
    NetworkMaker const maker = windowsApart(kernels, input);
    auto const channelsLast
        = [](IBuilderConfig& config) { kiln::setConvolutionLayout(config, kiln::ConvolutionLayout::kCHANNELS_LAST); };
    std::map<std::string, HostTensor> const inputs{
        {"x", fromFloats(shapeOf(input), spread(volumeOf(input), -1.5F, 1.7F))}};
    auto const expected = runOn(kiln::Backend::kCPU, maker, inputs, false, nullptr, channelsLast);
    kiln::plan::PlanModel const model = cudaPlanOf(maker, true, channelsLast);
    ASSERT_EQ(windowsApartConvolutions(model), 6) << "every convolution of the network";
    auto const outputs = runPlan(kiln::Backend::kCUDA,
        withBackendChoice(model, LayerType::kCONVOLUTION, kiln::cuda::AlgorithmChoice::gemm().encode()), inputs);
    for (char const* name : {"patches", "oblong", "gapped", "y"})
    {
        ASSERT_EQ(outputs.count(name), 1U) << name;
        expectSameOutput(outputs.at(name), expected.at(name), Tolerance{1e-2, 4e-3},
            std::string("every convolution set to the cuBLASLt product, output ") + name);
    }
}

} // namespace
