#include "resnet18_network.h"

#include "seeded_random.h"

#include <cmath>
#include <iostream>
#include <stdexcept>
#include <string>
#include <utility>

namespace kiln_bench
{

nvinfer1::Weights WeightStore::add(std::vector<float> values)
{
    mValueCount += static_cast<int64_t>(values.size());
    std::vector<float> const& stored = mArrays.emplace_back(std::move(values));
    return nvinfer1::Weights{nvinfer1::DataType::kFLOAT, stored.data(), static_cast<int64_t>(stored.size())};
}

namespace
{

using namespace nvinfer1;

//! Absent weights: no convolution bias, no power in the scale layer.
constexpr Weights kNone{DataType::kFLOAT, nullptr, 0};

std::string describe(Dims const& dims)
{
    std::string text = "[";
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        text += (i > 0 ? ", " : "") + std::to_string(dims.d[i]);
    }
    return text + "]";
}

//! Grows the network one torchvision-named layer at a time. A rejected layer or an unexpected shape
//! throws, so the assembly below reads as the architecture; addResNet18 turns the throw into nullptr.
class ResNetAssembler
{
public:
    ResNetAssembler(INetworkDefinition& network, WeightStore& weights, uint32_t seed, int64_t batch)
        : mNetwork(network)
        , mWeights(weights)
        , mRandom(seed)
        , mBatch(batch)
    {
    }

    //! Convolution (no bias, as in ResNet) then batch norm, optionally ReLU. Padding keeps "same" geometry
    //! for odd kernels: k/2 on each side.
    ITensor& convBn(ITensor& x, int64_t maps, int64_t kernel, int64_t stride, std::string const& convName,
        std::string const& bnName, bool relu)
    {
        int64_t const channels = x.getDimensions().d[1];
        int64_t const fanIn = channels * kernel * kernel;
        // He-uniform: variance 2/fanIn keeps activations at a steady scale through ReLU layers.
        float const limit = std::sqrt(6.0F / static_cast<float>(fanIn));
        Weights const kernelWeights = mWeights.add(draw(maps * fanIn, -limit, limit));
        IConvolutionLayer* conv = mNetwork.addConvolutionNd(x, maps, Dims{2, {kernel, kernel}}, kernelWeights, kNone);
        require(conv, convName);
        conv->setStrideNd(Dims{2, {stride, stride}});
        conv->setPaddingNd(Dims{2, {kernel / 2, kernel / 2}});

        // Batch norm folded to y = x * scale + shift per channel; the ranges keep activations finite and
        // away from zero without a trained network's statistics.
        Weights const shift = mWeights.add(draw(maps, -0.1F, 0.1F));
        Weights const scale = mWeights.add(draw(maps, 0.5F, 1.0F));
        IScaleLayer* bn = mNetwork.addScale(*conv->getOutput(0), ScaleMode::kCHANNEL, shift, scale, kNone);
        require(bn, bnName);
        ITensor* out = bn->getOutput(0);
        if (relu)
        {
            out = &this->relu(*out, bnName + ".relu");
        }
        return *out;
    }

    ITensor& relu(ITensor& x, std::string const& name)
    {
        IActivationLayer* layer = mNetwork.addActivation(x, ActivationType::kRELU);
        require(layer, name);
        return *layer->getOutput(0);
    }

    //! Two 3x3 convolutions and a shortcut: the input itself, or a 1x1 projection when the block changes
    //! the channel count or the resolution (torchvision's "downsample").
    ITensor& basicBlock(ITensor& x, int64_t maps, int64_t stride, std::string const& name)
    {
        ITensor& branch = convBn(x, maps, 3, stride, name + ".conv1", name + ".bn1", true);
        ITensor& residual = convBn(branch, maps, 3, 1, name + ".conv2", name + ".bn2", false);
        bool const projects = stride != 1 || x.getDimensions().d[1] != maps;
        ITensor& shortcut = projects ? convBn(x, maps, 1, stride, name + ".downsample.0", name + ".downsample.1", false)
                                     : x;
        IElementWiseLayer* sum = mNetwork.addElementWise(residual, shortcut, ElementWiseOperation::kSUM);
        require(sum, name + ".add");
        return relu(*sum->getOutput(0), name + ".relu");
    }

    ITensor& stage(ITensor& x, int64_t maps, int64_t stride, int32_t index)
    {
        std::string const name = "layer" + std::to_string(index);
        ITensor& first = basicBlock(x, maps, stride, name + ".0");
        return basicBlock(first, maps, 1, name + ".1");
    }

    ITensor& maxPool(ITensor& x)
    {
        IPoolingLayer* pool = mNetwork.addPoolingNd(x, PoolingType::kMAX, Dims{2, {3, 3}});
        require(pool, "maxpool");
        pool->setStrideNd(Dims{2, {2, 2}});
        pool->setPaddingNd(Dims{2, {1, 1}});
        return *pool->getOutput(0);
    }

    //! Global average pool as a reduction over H and W, which also drops them: [N, C, H, W] -> [N, C].
    ITensor& globalAveragePool(ITensor& x)
    {
        IReduceLayer* reduce = mNetwork.addReduce(x, ReduceOperation::kAVG, (1U << 2) | (1U << 3), false);
        require(reduce, "avgpool");
        return *reduce->getOutput(0);
    }

    //! logits = x * W^T + b with W stored [classes, features] as PyTorch's Linear (and ONNX Gemm with
    //! transB) keep it; the bias is a [1, classes] constant broadcast over the batch.
    ITensor& fullyConnected(ITensor& x, int64_t classes)
    {
        int64_t const features = x.getDimensions().d[1];
        float const limit = 1.0F / std::sqrt(static_cast<float>(features));
        IConstantLayer* weight
            = mNetwork.addConstant(Dims{2, {classes, features}}, mWeights.add(draw(classes * features, -limit, limit)));
        require(weight, "fc.weight");
        IConstantLayer* bias = mNetwork.addConstant(Dims{2, {1, classes}}, mWeights.add(draw(classes, -limit, limit)));
        require(bias, "fc.bias");
        IMatrixMultiplyLayer* product
            = mNetwork.addMatrixMultiply(x, MatrixOperation::kNONE, *weight->getOutput(0), MatrixOperation::kTRANSPOSE);
        require(product, "fc");
        IElementWiseLayer* sum
            = mNetwork.addElementWise(*product->getOutput(0), *bias->getOutput(0), ElementWiseOperation::kSUM);
        require(sum, "fc.add_bias");
        return *sum->getOutput(0);
    }

    //! The batch extent is whatever the input declares (-1 when dynamic); the rest must match exactly.
    void expectShape(ITensor& x, std::vector<int64_t> const& perImage, std::string const& where) const
    {
        Dims expected{static_cast<int32_t>(perImage.size() + 1), {mBatch}};
        for (size_t i = 0; i < perImage.size(); ++i)
        {
            expected.d[i + 1] = perImage[i];
        }
        Dims const actual = x.getDimensions();
        bool same = actual.nbDims == expected.nbDims;
        for (int32_t i = 0; same && i < actual.nbDims; ++i)
        {
            same = actual.d[i] == expected.d[i];
        }
        if (!same)
        {
            throw std::runtime_error(
                "after " + where + " the shape is " + describe(actual) + ", expected " + describe(expected));
        }
    }

private:
    template <typename Layer>
    Layer* require(Layer* layer, std::string const& name)
    {
        if (layer == nullptr)
        {
            throw std::runtime_error("the network rejected layer " + name + " (its reason is logged above)");
        }
        layer->setName(name.c_str());
        return layer;
    }

    std::vector<float> draw(int64_t count, float low, float high)
    {
        std::vector<float> values(static_cast<size_t>(count));
        for (float& value : values)
        {
            value = mRandom.uniform(low, high);
        }
        return values;
    }

    INetworkDefinition& mNetwork;
    WeightStore& mWeights;
    SeededRandom mRandom;
    int64_t mBatch;
};

} // namespace

ITensor* addResNet18(INetworkDefinition& network, ITensor& input, WeightStore& weights, uint32_t seed)
{
    try
    {
        ResNetAssembler net(network, weights, seed, input.getDimensions().d[0]);
        net.expectShape(input, {3, 224, 224}, "the input");
        ITensor* x = &net.convBn(input, 64, 7, 2, "conv1", "bn1", true);
        net.expectShape(*x, {64, 112, 112}, "conv1");
        x = &net.maxPool(*x);
        net.expectShape(*x, {64, 56, 56}, "maxpool");
        x = &net.stage(*x, 64, 1, 1);
        net.expectShape(*x, {64, 56, 56}, "layer1");
        x = &net.stage(*x, 128, 2, 2);
        net.expectShape(*x, {128, 28, 28}, "layer2");
        x = &net.stage(*x, 256, 2, 3);
        net.expectShape(*x, {256, 14, 14}, "layer3");
        x = &net.stage(*x, 512, 2, 4);
        net.expectShape(*x, {512, 7, 7}, "layer4");
        x = &net.globalAveragePool(*x);
        net.expectShape(*x, {512}, "avgpool");
        x = &net.fullyConnected(*x, kResNet18Classes);
        net.expectShape(*x, {kResNet18Classes}, "fc");
        return x;
    }
    catch (std::exception const& error)
    {
        std::cerr << "ResNet-18: " << error.what() << "\n";
        return nullptr;
    }
}

} // namespace kiln_bench
