// Channels-last (kHWC) regions in FP16 CUDA plans: which tensors the builder stores channels-last, where layers
// convert and which permutations become views (read from the plan, without a GPU), that such plans compute what the
// CPU reference computes, and the reformatting kernel against the CPU's.
#include "backend/cpu/kernels/tensor/reformat.h"
#include "backend/cuda/kernels/tensor/reformat.h"
#include "backend/cuda/passes/column_scale_folding.h"
#include "backend/cuda/passes/constant_before_transpose.h"
#include "backend/shared/channel_order.h"
#include "backend_comparison.h"
#include "device_common/half.h"
#include "plan/plan_format.h"
#include "plan/plan_graph.h"

#include <map>
#include <vector>

namespace
{

using namespace nvinfer1;
using namespace kiln::test;

//! Weights outlive the network that refers to them until the plan is built.
struct Filters
{
    std::vector<std::vector<float>> storage;

    Weights add(size_t count, float phase)
    {
        storage.push_back(weightsOf(count, phase));
        return Weights{DataType::kFLOAT, storage.back().data(), static_cast<int64_t>(count)};
    }

    Weights one(float value)
    {
        storage.push_back({value});
        return Weights{DataType::kFLOAT, storage.back().data(), 1};
    }
};

ITensor& convolve(INetworkDefinition& network, Filters& filters, ITensor& input, int64_t inputs, int64_t outputs,
    int64_t kernel, int64_t groups, int64_t stride, char const* name)
{
    size_t const taps = static_cast<size_t>(outputs * (inputs / groups) * kernel * kernel);
    IConvolutionLayer* conv = network.addConvolutionNd(input, outputs, Dims{2, {kernel, kernel}},
        filters.add(taps, static_cast<float>(outputs)), filters.add(static_cast<size_t>(outputs), 1.0F));
    conv->setPaddingNd(Dims{2, {kernel / 2, kernel / 2}});
    conv->setStrideNd(Dims{2, {stride, stride}});
    conv->setNbGroups(groups);
    conv->setName(name);
    return *conv->getOutput(0);
}

ITensor& named(ILayer* layer, char const* name)
{
    layer->setName(name);
    layer->getOutput(0)->setName(name);
    return *layer->getOutput(0);
}

Dims const kInputShape{4, {2, 3, 12, 10}};

//! A ResNet-like stem and block, then the edges of the region: a broadcast addition and an activation after it
//! (linear), a convolution to 5 maps (not a multiple of 8), average pooling into a network output, and a reduction.
NetworkMaker stemAndBlock(std::shared_ptr<Filters> const& filters)
{
    return [filters](INetworkDefinition& network) {
        ITensor* x = network.addInput("x", DataType::kFLOAT, kInputShape);
        ITensor& conv1 = convolve(network, *filters, *x, 3, 16, 3, 1, 1, "conv1");
        ITensor& a = named(network.addActivation(conv1, ActivationType::kRELU), "a");
        IPoolingLayer* maxPool = network.addPoolingNd(a, PoolingType::kMAX, Dims{2, {3, 3}});
        maxPool->setStrideNd(Dims{2, {2, 2}});
        maxPool->setPaddingNd(Dims{2, {1, 1}});
        ITensor& p = named(maxPool, "p");
        ITensor& conv2 = convolve(network, *filters, p, 16, 16, 3, 1, 1, "conv2");
        ITensor& sum = named(network.addElementWise(conv2, p, ElementWiseOperation::kSUM), "sum");
        ITensor& b = named(network.addActivation(sum, ActivationType::kRELU), "b");
        ITensor& c = convolve(network, *filters, b, 16, 16, 3, 4, 2, "c");
        c.setName("c");
        IConstantLayer* shift = network.addConstant(Dims{4, {1, 16, 1, 1}}, filters->add(16, 2.0F));
        ITensor& d = named(network.addElementWise(c, *shift->getOutput(0), ElementWiseOperation::kSUM), "d");
        ITensor& e = named(network.addActivation(d, ActivationType::kSIGMOID), "e");
        ITensor& f = convolve(network, *filters, e, 16, 5, 1, 1, 1, "f");
        f.setName("f");
        IPoolingLayer* averagePool = network.addPoolingNd(f, PoolingType::kAVERAGE, Dims{2, {2, 2}});
        ITensor& y = named(averagePool, "y");
        // Reductions read channels-last tensors through their strides: over the spatial axes (global average
        // pooling), over the channels, and over a channel and a spatial axis at once.
        ITensor& z = named(network.addReduce(c, ReduceOperation::kAVG, 0b1100, false), "z");
        ITensor& v = named(network.addReduce(c, ReduceOperation::kSUM, 0b0010, false), "v");
        ITensor& w = named(network.addReduce(b, ReduceOperation::kMAX, 0b0110, true), "w");
        for (ITensor* output : {&y, &z, &v, &w})
        {
            network.markOutput(*output);
        }
    };
}

TensorFormat formatOfTensor(kiln::plan::PlanModel const& model, std::string const& name)
{
    for (kiln::plan::TensorRecord const& tensor : model.tensors)
    {
        if (tensor.name == name)
        {
            return tensor.format;
        }
    }
    ADD_FAILURE() << "no tensor " << name;
    return TensorFormat::kLINEAR;
}

//! The formats layer `name` reads and writes, slot by slot.
std::vector<TensorFormat> formatsOfLayer(kiln::plan::PlanModel const& model, std::string const& name)
{
    for (kiln::plan::LayerRecord const& layer : model.layers)
    {
        if (layer.name == name)
        {
            std::vector<TensorFormat> formats;
            for (size_t slot = 0; slot < layer.inputs.size() + layer.outputs.size(); ++slot)
            {
                formats.push_back(kiln::plan::slotFormat(model, layer, slot));
            }
            return formats;
        }
    }
    ADD_FAILURE() << "no layer " << name;
    return {};
}

constexpr TensorFormat kHWC = TensorFormat::kHWC;
constexpr TensorFormat kLINEAR = TensorFormat::kLINEAR;

//! On a GPU the builder keeps channels-last only where it times faster; these tests need it either way.
void alwaysChannelsLast(IBuilderConfig& config)
{
    kiln::setConvolutionLayout(config, kiln::ConvolutionLayout::kCHANNELS_LAST);
}

//! The same for networks with Q/DQ layers (`--int8`).
void int8AlwaysChannelsLast(IBuilderConfig& config)
{
    alwaysChannelsLast(config);
    config.setFlag(BuilderFlag::kINT8);
}

TEST(CudaBackendChannelsLast, Fp16ConvolutionRegionsAreStoredChannelsLast)
{
    // Building and reading a CUDA plan needs no GPU.
    auto const filters = std::make_shared<Filters>();
    kiln::plan::PlanModel const model = cudaPlanOf(stemAndBlock(filters), true, alwaysChannelsLast);
    std::map<std::string, TensorFormat> const expected{{"x", kLINEAR}, {"a", kHWC}, {"p", kHWC}, {"b", kHWC},
        {"c", kHWC}, {"e", kHWC}, {"f", kHWC}, {"y", kLINEAR}, {"z", kLINEAR}, {"v", kLINEAR}, {"w", kLINEAR}};
    for (auto const& [name, format] : expected)
    {
        EXPECT_EQ(formatOfTensor(model, name), format) << name;
    }
    // The first convolution converts the FP32 linear input as it reads it, its 3 channels padded to 8 (kHWC8); the
    // broadcast addition (fused with the sigmoid after it) stays in the region, its per-channel constant read as it
    // is stored (alike in both orders); the reduction reads a channels-last tensor as it is stored; the average
    // pooling writes the network's output linear through a conversion.
    EXPECT_EQ(formatsOfLayer(model, "conv1 + a"), (std::vector<TensorFormat>{TensorFormat::kHWC8, kHWC}));
    EXPECT_EQ(formatsOfLayer(model, "conv2 + sum + b"), (std::vector<TensorFormat>{kHWC, kHWC, kHWC}));
    EXPECT_EQ(formatsOfLayer(model, "d + e"), (std::vector<TensorFormat>{kHWC, kLINEAR, kHWC}));
    EXPECT_EQ(formatsOfLayer(model, "f"), (std::vector<TensorFormat>{kHWC, kHWC}));
    EXPECT_EQ(formatsOfLayer(model, "y"), (std::vector<TensorFormat>{kHWC, kHWC}));
    EXPECT_EQ(formatsOfLayer(model, "z"), (std::vector<TensorFormat>{kHWC, kLINEAR}));
}

//! Squeeze-and-excitation as EfficientNet and MobileNetV3 have it, in `channels` channels: a convolution, SiLU (x *
//! sigmoid(x)), a global average pool, two 1x1 convolutions on [N, C, 1, 1] with hard-swish (x * hard_sigmoid(x))
//! between them, a sigmoid gate, the gate times the activations (a broadcast product), and a 1x1 projection.
NetworkMaker squeezeExcitation(std::shared_ptr<Filters> const& filters, int64_t channels)
{
    return [filters, channels](INetworkDefinition& network) {
        ITensor* x = network.addInput("x", DataType::kFLOAT, kInputShape);
        ITensor& conv = convolve(network, *filters, *x, 3, channels, 3, 1, 1, "conv");
        ITensor& sigmoid = named(network.addActivation(conv, ActivationType::kSIGMOID), "sigmoid");
        ITensor& silu = named(network.addElementWise(conv, sigmoid, ElementWiseOperation::kPROD), "silu");
        ITensor& pooled = named(network.addReduce(silu, ReduceOperation::kAVG, 0b1100, true), "pooled");
        ITensor& squeezed = convolve(network, *filters, pooled, channels, channels, 1, 1, 1, "squeeze");
        IActivationLayer* hardSigmoid = network.addActivation(squeezed, ActivationType::kHARD_SIGMOID);
        hardSigmoid->setAlpha(1.0F / 6.0F);
        hardSigmoid->setBeta(0.5F);
        ITensor& hardSwish
            = named(network.addElementWise(named(hardSigmoid, "hard sigmoid"), squeezed, ElementWiseOperation::kPROD),
                "hard swish");
        ITensor& excited = convolve(network, *filters, hardSwish, channels, channels, 1, 1, 1, "excite");
        ITensor& gate = named(network.addActivation(excited, ActivationType::kSIGMOID), "gate");
        ITensor& scaled = named(network.addElementWise(gate, silu, ElementWiseOperation::kPROD), "scaled");
        ITensor& projected = convolve(network, *filters, scaled, channels, channels, 1, 1, 1, "project");
        projected.setName("y");
        network.markOutput(projected);
    };
}

//! The layer that writes tensor `name`.
kiln::plan::LayerRecord const* writerOf(kiln::plan::PlanModel const& model, std::string const& name)
{
    for (kiln::plan::LayerRecord const& layer : model.layers)
    {
        for (int32_t output : layer.outputs)
        {
            if (output >= 0 && model.tensors[output].name == name)
            {
                return &layer;
            }
        }
    }
    return nullptr;
}

TEST(CudaBackendChannelsLast, SqueezeAndExcitationScalesChannelsLast)
{
    // The gate [N, C, 1, 1] times the activations broadcasts; it stays in the region, reading both as they are
    // stored, and so does the projection after it: nothing converts the activations on the way, nor the pool.
    for (int64_t channels : {16, 12})
    {
        auto const filters = std::make_shared<Filters>();
        kiln::plan::PlanModel const model = cudaPlanOf(squeezeExcitation(filters, channels), true, alwaysChannelsLast);
        EXPECT_EQ(formatOfTensor(model, "silu"), kHWC);
        EXPECT_EQ(formatOfTensor(model, "scaled"), kHWC);
        // The pool's [N, C, 1, 1] lies alike in both formats: stored kHWC, the squeeze convolution reads it as it is.
        EXPECT_EQ(formatOfTensor(model, "pooled"), kHWC);
        for (kiln::plan::LayerRecord const& layer : model.layers)
        {
            if (layer.name.rfind("squeeze", 0) == 0 && channels % 8 == 0) // 12 channels are read padded (kHWC8)
            {
                EXPECT_EQ(kiln::plan::slotFormat(model, layer, 0), model.tensors[layer.inputs[0]].format) << layer.name;
            }
        }
        // With 12 channels the projection reads its input padded to 16 (kHWC8), as every such convolution does.
        for (char const* tensor : {"scaled", channels % 8 == 0 ? "y" : "scaled"})
        {
            kiln::plan::LayerRecord const* writer = writerOf(model, tensor);
            ASSERT_NE(writer, nullptr) << tensor;
            for (size_t slot = 0; slot < writer->inputs.size(); ++slot)
            {
                int32_t const input = writer->inputs[slot];
                EXPECT_EQ(kiln::plan::slotFormat(model, *writer, slot), model.tensors[input].format)
                    << writer->name << " converts " << model.tensors[input].name;
            }
        }
        EXPECT_EQ(
            kiln::plan::slotFormat(model, *writerOf(model, "scaled"), writerOf(model, "scaled")->inputs.size()), kHWC);
    }
}

TEST(CudaBackendChannelsLast, AChannelsLastGateDoesNotDrawALinearTensorIn)
{
    // The network's input (kLINEAR) times a gate computed channels-last ([N, C, 1, 1], stored alike): the product
    // stays linear rather than convert the large input to spare the gate.
    auto const filters = std::make_shared<Filters>();
    NetworkMaker const maker = [filters](INetworkDefinition& network) {
        ITensor* x = network.addInput("x", DataType::kFLOAT, Dims{4, {2, 8, 6, 5}});
        ITensor& conv = convolve(network, *filters, *x, 8, 8, 3, 1, 1, "conv");
        ITensor& pooled = named(network.addReduce(conv, ReduceOperation::kAVG, 0b1100, true), "pooled");
        ITensor& excited = convolve(network, *filters, pooled, 8, 8, 1, 1, 1, "excite");
        ITensor& gate = named(network.addActivation(excited, ActivationType::kSIGMOID), "gate");
        ITensor& product = named(network.addElementWise(*x, gate, ElementWiseOperation::kPROD), "product");
        network.markOutput(product);
    };
    kiln::plan::PlanModel const model = cudaPlanOf(maker, true, alwaysChannelsLast);
    kiln::plan::LayerRecord const* product = writerOf(model, "product");
    ASSERT_NE(product, nullptr);
    EXPECT_EQ(kiln::plan::slotFormat(model, *product, 0), kLINEAR);
    EXPECT_EQ(kiln::plan::slotFormat(model, *product, product->inputs.size()), kLINEAR);
}

TEST(CudaBackendChannelsLast, SqueezeAndExcitationAgreesWithTheCpuReference)
{
    SKIP_WITHOUT_GPU();
    int64_t const count = 2 * 3 * 12 * 10;
    HostTensor const x = fromFloats({2, 3, 12, 10}, spread(static_cast<size_t>(count), -2.0F, 2.5F));
    for (int64_t channels : {16, 12})
    {
        auto const filters = std::make_shared<Filters>();
        std::string const name = std::to_string(channels) + " channels";
        expectBackendsAgree(
            squeezeExcitation(filters, channels), {{"x", x}}, true, "fp16, channels last, " + name, alwaysChannelsLast);
        expectBackendsAgree(squeezeExcitation(filters, channels), {{"x", x}}, false, "fp32, " + name);
    }
}

void expectLinearThroughout(kiln::plan::PlanModel const& model, std::string const& what)
{
    for (kiln::plan::TensorRecord const& tensor : model.tensors)
    {
        EXPECT_EQ(tensor.format, kLINEAR) << what << ": " << tensor.name;
    }
    for (kiln::plan::LayerRecord const& layer : model.layers)
    {
        EXPECT_TRUE(layer.ioFormats.empty()) << what << ": " << layer.name;
    }
}

TEST(CudaBackendChannelsLast, Fp32PlansAndLinearLayoutsStayLinear)
{
    auto const filters = std::make_shared<Filters>();
    expectLinearThroughout(cudaPlanOf(stemAndBlock(filters), false, alwaysChannelsLast), "fp32");
    expectLinearThroughout(cudaPlanOf(stemAndBlock(filters), true,
                               [](IBuilderConfig& config) {
                                   EXPECT_TRUE(kiln::setConvolutionLayout(config, kiln::ConvolutionLayout::kLINEAR));
                                   EXPECT_EQ(kiln::getConvolutionLayout(config), kiln::ConvolutionLayout::kLINEAR);
                               }),
        "fp16 asked to stay linear");
}

TEST(CudaBackendChannelsLast, ChannelsLastPlansAgreeWithTheCpuReference)
{
    SKIP_WITHOUT_GPU();
    auto const filters = std::make_shared<Filters>();
    int64_t const count = 2 * 3 * 12 * 10;
    HostTensor const x = fromFloats({2, 3, 12, 10}, spread(static_cast<size_t>(count), -2.0F, 2.5F));
    expectBackendsAgree(stemAndBlock(filters), {{"x", x}}, true, "fp16, channels last", alwaysChannelsLast);
    expectBackendsAgree(stemAndBlock(filters), {{"x", x}}, true, "fp16, as timed");
    expectBackendsAgree(stemAndBlock(filters), {{"x", x}}, false, "fp32, linear");
    // A NaN goes through the first convolution and its ReLU into the max pooling, and must come out of it.
    std::vector<float> withNan = spread(static_cast<size_t>(count), -2.0F, 2.5F);
    withNan[12 * 10 + 5 * 10 + 4] = NAN;
    expectBackendsAgree(stemAndBlock(filters), {{"x", fromFloats({2, 3, 12, 10}, withNan)}}, true,
        "fp16, channels last, a NaN", alwaysChannelsLast);
}

Dims const kBlockInputShape{4, {2, 16, 6, 5}};

ITensor& shuffled(INetworkDefinition& network, ITensor& input, Permutation const& first, char const* name)
{
    IShuffleLayer* shuffle = network.addShuffle(input);
    shuffle->setFirstTranspose(first);
    return named(shuffle, name);
}

//! ConvNeXt's block, in small: a depthwise convolution, its channels moved last for a product over them (a linear
//! layer), moved back, with `layerScale` a bias added before and a constant per channel multiplied after (which a
//! second output multiplies by too), and the residual sum before the next convolution. Beside it, the convolution's
//! spatial axes swapped into a network output. With `quantized`, the product's output is quantized to INT8 (one
//! scale) before it moves back and dequantized after, as Model Optimizer's INT8 ConvNeXt has it.
NetworkMaker channelsMovedLastAndBack(std::shared_ptr<Filters> const& filters, bool layerScale, bool quantized = false)
{
    return [filters, layerScale, quantized](INetworkDefinition& network) {
        ITensor* x = network.addInput("x", DataType::kFLOAT, kBlockInputShape);
        ITensor& c1 = convolve(network, *filters, *x, 16, 16, 3, 16, 1, "c1");
        c1.setName("c1");
        ITensor& nhwc = shuffled(network, c1, Permutation{{0, 2, 3, 1}}, "nhwc");
        IConstantLayer* weights = network.addConstant(Dims{4, {1, 1, 16, 16}}, filters->add(16 * 16, 3.0F));
        ITensor& mixed = named(
            network.addMatrixMultiply(nhwc, MatrixOperation::kNONE, *weights->getOutput(0), MatrixOperation::kNONE),
            "mixed");
        ITensor* linear = &mixed;
        if (layerScale)
        {
            IConstantLayer* bias = network.addConstant(Dims{4, {1, 1, 1, 16}}, filters->add(16, 4.0F));
            linear = &named(network.addElementWise(mixed, *bias->getOutput(0), ElementWiseOperation::kSUM), "biased");
        }
        if (quantized)
        {
            IConstantLayer* scale = network.addConstant(Dims{}, filters->one(0.05F));
            linear = &named(network.addQuantize(*linear, *scale->getOutput(0), DataType::kINT8), "codes");
        }
        ITensor* nchw = &shuffled(network, *linear, Permutation{{0, 3, 1, 2}}, "nchw");
        if (quantized)
        {
            IConstantLayer* scale = network.addConstant(Dims{}, filters->one(0.05F));
            nchw = &named(network.addDequantize(*nchw, *scale->getOutput(0), DataType::kFLOAT), "dequantized");
        }
        if (layerScale)
        {
            // The scale's constant is also read by another layer, a network output: the scale moves with a copy.
            IConstantLayer* gamma = network.addConstant(Dims{4, {1, 16, 1, 1}}, filters->add(16, 0.5F));
            nchw = &named(network.addElementWise(*nchw, *gamma->getOutput(0), ElementWiseOperation::kPROD), "scaled");
            network.markOutput(
                named(network.addElementWise(c1, *gamma->getOutput(0), ElementWiseOperation::kPROD), "alsoScaled"));
        }
        ITensor& sum = named(network.addElementWise(*nchw, c1, ElementWiseOperation::kSUM), "sum");
        ITensor& y = convolve(network, *filters, sum, 16, 16, 3, 1, 1, "y");
        y.setName("y");
        ITensor& swapped = shuffled(network, c1, Permutation{{0, 1, 3, 2}}, "swapped");
        network.markOutput(y);
        network.markOutput(swapped);
    };
}

//! The name of the tensor whose memory tensor `name` is (a view's), or "" where it has its own.
std::string viewedBy(kiln::plan::PlanModel const& model, std::string const& name)
{
    for (kiln::plan::TensorRecord const& tensor : model.tensors)
    {
        if (tensor.name == name)
        {
            return tensor.viewOf >= 0 ? model.tensors[static_cast<size_t>(tensor.viewOf)].name : "";
        }
    }
    ADD_FAILURE() << "no tensor " << name;
    return "";
}

TEST(CudaBackendChannelsLast, ChannelsMovedLastAndBackAroundALinearLayerMoveNothing)
{
    auto const filters = std::make_shared<Filters>();
    kiln::plan::PlanModel const model = cudaPlanOf(channelsMovedLastAndBack(filters, false), true, alwaysChannelsLast);
    // The channels-last convolution's output, permuted to [N, H, W, C], is its own bytes read linear: a view. The
    // product's output permuted back to [N, C, H, W] is its bytes read channels-last: a view too, which the residual
    // sum reads channels-last beside the convolution's output.
    std::map<std::string, TensorFormat> const expected{
        {"c1", kHWC}, {"nhwc", kLINEAR}, {"mixed", kLINEAR}, {"nchw", kHWC}, {"sum", kHWC}, {"swapped", kLINEAR}};
    for (auto const& [name, format] : expected)
    {
        EXPECT_EQ(formatOfTensor(model, name), format) << name;
    }
    EXPECT_EQ(viewedBy(model, "nhwc"), "c1");
    EXPECT_EQ(viewedBy(model, "nchw"), "mixed");
    EXPECT_EQ(formatsOfLayer(model, "nhwc"), (std::vector<TensorFormat>{kHWC, kLINEAR}));
    EXPECT_EQ(formatsOfLayer(model, "nchw"), (std::vector<TensorFormat>{kLINEAR, kHWC}));
    // Swapping the spatial axes moves elements: the shuffle's kernel reads the channels-last input as it is stored
    // and writes the linear network output, with no conversion before it.
    EXPECT_EQ(viewedBy(model, "swapped"), "");
    EXPECT_EQ(formatsOfLayer(model, "swapped"), (std::vector<TensorFormat>{kHWC, kLINEAR}));
    // FP32 plans stay linear, and their permutations move elements.
    kiln::plan::PlanModel const fp32 = cudaPlanOf(channelsMovedLastAndBack(filters, false), false, alwaysChannelsLast);
    expectLinearThroughout(fp32, "fp32");
    EXPECT_EQ(viewedBy(fp32, "nhwc"), "");
}

//! The position of layer `name` in the plan's order.
size_t positionOf(kiln::plan::PlanModel const& model, std::string const& name)
{
    for (size_t l = 0; l < model.layers.size(); ++l)
    {
        if (model.layers[l].name == name)
        {
            return l;
        }
    }
    ADD_FAILURE() << "no layer " << name;
    return 0;
}

TEST(CudaBackendChannelsLast, ChannelsMovedBackOnInt8CodesMoveNothing)
{
    // The product's output quantized before it moves back, dequantized after for the residual sum: the transpose
    // reaches the region through the dequantization (one scale, which maps each element alone), so it writes its
    // INT8 output channels-last, a view, and the dequantization continues the region.
    auto const filters = std::make_shared<Filters>();
    kiln::plan::PlanModel const model
        = cudaPlanOf(channelsMovedLastAndBack(filters, false, true), true, int8AlwaysChannelsLast);
    EXPECT_EQ(viewedBy(model, "nchw"), "codes");
    EXPECT_EQ(formatsOfLayer(model, "nchw"), (std::vector<TensorFormat>{kLINEAR, kHWC}));
    EXPECT_EQ(formatOfTensor(model, "dequantized"), kHWC);
    EXPECT_EQ(formatOfTensor(model, "sum"), kHWC);
}

TEST(CudaBackendChannelsLast, AScaleAfterTheChannelsMoveBackFoldsIntoTheLinearLayer)
{
    auto const filters = std::make_shared<Filters>();
    kiln::plan::PlanModel const model = cudaPlanOf(channelsMovedLastAndBack(filters, true), true, alwaysChannelsLast);
    // The per-channel scale moves before the transpose back, onto the product's linear [N, H, W, C] output, and folds
    // into the product's weights and bias: no layer multiplies by it (the second output's product stays). The
    // transpose back then feeds the residual sum, and writes its output channels-last as a view.
    for (kiln::plan::LayerRecord const& layer : model.layers)
    {
        EXPECT_EQ(layer.name.find("scaled"), std::string::npos) << layer.name; // not "alsoScaled": case tells
    }
    EXPECT_EQ(viewedBy(model, "scaled"), "scaled, before nchw");
    EXPECT_EQ(formatOfTensor(model, "scaled, before nchw"), kLINEAR);
    EXPECT_EQ(formatOfTensor(model, "scaled"), kHWC);
    EXPECT_EQ(formatOfTensor(model, "sum"), kHWC);
    EXPECT_EQ(formatsOfLayer(model, "nchw"), (std::vector<TensorFormat>{kLINEAR, kHWC}));
    for (kiln::plan::TensorRecord const& tensor : model.tensors)
    {
        if (tensor.name == "scaled, before nchw")
        {
            EXPECT_EQ(kiln::plan::constantDims(model, static_cast<int32_t>(&tensor - model.tensors.data())),
                (std::vector<int64_t>{2, 6, 5, 16}));
        }
    }
}

TEST(CudaBackendChannelsLast, MovingTheScaleAndFoldingItKeepTheOutputs)
{
    // The two rewrites alone, on the CPU reference. Moving the scale before the transpose computes the same bits
    // (each element is scaled by the same factor either way); folding it into the product's weights and bias rounds
    // differently, within FP32's precision.
    auto const filters = std::make_shared<Filters>();
    RecordingLogger logger;
    std::unique_ptr<IHostMemory> const plan
        = buildPlan(logger, kiln::Backend::kCPU, channelsMovedLastAndBack(filters, true), false, nullptr);
    ASSERT_NE(plan, nullptr);
    kiln::plan::PlanModel model;
    std::string error;
    ASSERT_TRUE(kiln::plan::readPlan(plan->data(), plan->size(), model, error)) << error;
    std::map<std::string, HostTensor> const inputs{
        {"x", fromFloats({2, 16, 6, 5}, spread(2 * 16 * 6 * 5, -2.0F, 2.5F))}};
    auto const* blob = static_cast<uint8_t const*>(plan->data());
    std::map<std::string, HostTensor> const asBuilt
        = runPlan(kiln::Backend::kCPU, std::vector<uint8_t>(blob, blob + plan->size()), inputs);
    ASSERT_EQ(asBuilt.size(), 3U);

    EXPECT_EQ(kiln::cuda::moveConstantOperationsBeforeTransposes(model), 1U);
    EXPECT_LT(positionOf(model, "scaled"), positionOf(model, "nchw"));
    std::map<std::string, HostTensor> const moved = runPlan(kiln::Backend::kCPU, kiln::plan::writePlan(model), inputs);
    for (auto const& [name, tensor] : asBuilt)
    {
        ASSERT_EQ(moved.count(name), 1U) << name;
        EXPECT_EQ(moved.at(name).bytes, tensor.bytes) << name;
    }

    size_t const layers = model.layers.size();
    EXPECT_EQ(kiln::cuda::foldColumnScalesIntoProducts(model), 1U);
    EXPECT_EQ(model.layers.size(), layers - 2); // the product by the scale and the scale's constant
    std::map<std::string, HostTensor> const folded = runPlan(kiln::Backend::kCPU, kiln::plan::writePlan(model), inputs);
    for (auto const& [name, tensor] : asBuilt)
    {
        ASSERT_EQ(folded.count(name), 1U) << name;
        expectSameOutput(folded.at(name), tensor, Tolerance{1e-5, 1e-5}, "folded: " + name);
    }
}

TEST(CudaBackendChannelsLast, ChannelsMovedLastAndBackAgreeWithTheCpuReference)
{
    SKIP_WITHOUT_GPU();
    auto const filters = std::make_shared<Filters>();
    HostTensor const x = fromFloats({2, 16, 6, 5}, spread(2 * 16 * 6 * 5, -2.0F, 2.5F));
    for (bool const layerScale : {false, true})
    {
        SCOPED_TRACE(layerScale ? "with a scale per channel" : "without a scale");
        NetworkMaker const maker = channelsMovedLastAndBack(filters, layerScale);
        expectBackendsAgree(maker, {{"x", x}}, true, "fp16, channels last", alwaysChannelsLast);
        expectBackendsAgree(maker, {{"x", x}}, true, "fp16, as timed");
        expectBackendsAgree(maker, {{"x", x}}, false, "fp32, linear");
    }
    // Moved back on INT8 codes (--int8 --fp16): the transpose a view, the dequantization channels-last.
    NetworkMaker const quantized = channelsMovedLastAndBack(filters, false, true);
    expectBackendsAgree(quantized, {{"x", x}}, true, "int8 codes, fp16, channels last", int8AlwaysChannelsLast);
}

//! `input` reformatted on the GPU and by the CPU reference, byte for byte.
void expectReformatsAgree(HostTensor const& input, TensorFormat from, DataType toType, TensorFormat to)
{
    size_t const outBytes = static_cast<size_t>(kiln::storedCount(input.shape, to)) * kiln::elementSize(toType);
    std::vector<uint8_t> expected(outBytes);
    kiln::cpu::reformat(kiln::ConstTensorView(input.type, input.shape, input.bytes.data(), from),
        kiln::TensorView{toType, input.shape, expected.data(), to});
    DeviceCopy const source(input.bytes);
    DeviceCopy const target(std::vector<uint8_t>(outBytes, 0xAB));
    kiln::cuda::reformatOnDevice(kiln::ConstTensorView(input.type, input.shape, source.data, from),
        kiln::TensorView{toType, input.shape, target.data, to}, nullptr);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_EQ(target.read(outBytes), expected);
}

TEST(CudaBackendChannelsLast, TheReformatKernelAgreesWithTheCpu)
{
    SKIP_WITHOUT_GPU();
    // Extents that are not multiples of the kernel's 32x32 tiles, a batch, and one spatial axis or three.
    for (std::vector<int64_t> const& shape :
        std::vector<std::vector<int64_t>>{{3, 37, 5, 7}, {2, 3, 50, 41}, {1, 64, 1, 1}, {2, 40, 33}, {2, 5, 3, 4, 6}})
    {
        size_t const count = static_cast<size_t>(kiln::volume(shape));
        HostTensor const values = fromFloats(shape, spread(count, -3.0F, 70000.0F));
        std::string const what = "shape of " + std::to_string(shape.size()) + " axes, " + std::to_string(count);
        SCOPED_TRACE(what);
        expectReformatsAgree(values, kLINEAR, DataType::kFLOAT, kHWC);
        expectReformatsAgree(values, kHWC, DataType::kFLOAT, kLINEAR);
        expectReformatsAgree(values, kLINEAR, DataType::kHALF, kHWC); // 70000 overflows to infinity
        expectReformatsAgree(values, kHWC, DataType::kHALF, kLINEAR);
        // Into kHWC8, the channels padded with zeros to a multiple of 8, from either format.
        expectReformatsAgree(values, kLINEAR, DataType::kHALF, TensorFormat::kHWC8);
        expectReformatsAgree(values, kHWC, DataType::kFLOAT, TensorFormat::kHWC8);
    }
}

TEST(CudaBackendChannelsLast, VectorMajorLayoutsAgreeWithTheCpu)
{
    SKIP_WITHOUT_GPU();
    // INT8 plugins' kCHW4 and kCHW32 (and the same layouts of FP16 and FP32 elements): packed from kLINEAR and
    // unpacked back, on the GPU and by the CPU reference, byte for byte, padding included.
    for (std::vector<int64_t> const& shape :
        std::vector<std::vector<int64_t>>{{2, 37, 3, 5}, {3, 1, 70, 1, 1}, {1, 4, 2, 2}, {5, 33, 1}})
    {
        size_t const count = static_cast<size_t>(kiln::volume(shape));
        std::vector<int64_t> values(count);
        std::vector<float> floats(count);
        for (size_t i = 0; i < count; ++i)
        {
            values[i] = static_cast<int64_t>(i % 251) - 125;
            floats[i] = static_cast<float>(values[i]);
        }
        for (DataType const type : {DataType::kINT8, DataType::kHALF, DataType::kFLOAT})
        {
            HostTensor const linear = type == DataType::kINT8 ? fromInts(shape, values, type)
                                                              : fromFloats(shape, floats, type);
            for (TensorFormat const format : {TensorFormat::kCHW4, TensorFormat::kCHW32})
            {
                SCOPED_TRACE(std::to_string(shape.size()) + " axes, format " + std::to_string(int(format)));
                size_t const bytes
                    = static_cast<size_t>(kiln::backend::reformattedCount(shape, format)) * kiln::elementSize(type);
                std::vector<uint8_t> packed(bytes, 0xAB);
                kiln::cpu::reformat(kiln::ConstTensorView(type, shape, linear.bytes.data()),
                    kiln::TensorView{type, shape, packed.data(), format});
                DeviceCopy const source(linear.bytes);
                DeviceCopy const target(std::vector<uint8_t>(bytes, 0xAB));
                kiln::cuda::reformatOnDevice(kiln::ConstTensorView(type, shape, source.data),
                    kiln::TensorView{type, shape, target.data, format}, nullptr);
                DeviceCopy const unpacked(std::vector<uint8_t>(linear.bytes.size(), 0xAB));
                kiln::cuda::reformatOnDevice(kiln::ConstTensorView(type, shape, target.data, format),
                    kiln::TensorView{type, shape, unpacked.data}, nullptr);
                ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
                EXPECT_EQ(target.read(bytes), packed);
                EXPECT_EQ(unpacked.read(linear.bytes.size()), linear.bytes);
            }
        }
    }
}

TEST(CudaBackendChannelsLast, MovingFp16KeepsNaNPayloads)
{
    SKIP_WITHOUT_GPU();
    // A NaN with a payload (0x7D01) and a negative one: a same-type move copies their bits, as the CPU does.
    std::vector<uint16_t> const bits{0x7D01, 0x3C00, 0xFE03, 0x0001, 0xC000, 0x7C00};
    HostTensor const halves = fromElements({1, 2, 3, 1}, bits, DataType::kHALF);
    expectReformatsAgree(halves, kLINEAR, DataType::kHALF, kHWC);
    expectReformatsAgree(halves, kHWC, DataType::kHALF, kLINEAR);
}

TEST(CudaBackendChannelsLast, PaddingChannelsAddsZerosAfterEachPixelsChannels)
{
    SKIP_WITHOUT_GPU();
    // [N=2, C=3, H=1, W=2] channels-last: four pixels of three channels, widened to eight.
    std::vector<uint16_t> pixels(12);
    for (size_t i = 0; i < pixels.size(); ++i)
    {
        pixels[i] = static_cast<uint16_t>(0x3C00 + i); // distinct FP16 values, copied bit for bit
    }
    DeviceCopy const source(fromElements({2, 3, 1, 2}, pixels, DataType::kHALF).bytes);
    DeviceCopy const target(std::vector<uint8_t>(4 * 8 * 2, 0xAB));
    kiln::cuda::reformatOnDevice(kiln::ConstTensorView(DataType::kHALF, {2, 3, 1, 2}, source.data, kHWC),
        kiln::TensorView{DataType::kHALF, {2, 3, 1, 2}, target.data, TensorFormat::kHWC8}, nullptr);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    std::vector<uint8_t> const bytes = target.read(4 * 8 * 2);
    std::vector<uint16_t> padded(4 * 8);
    std::memcpy(padded.data(), bytes.data(), bytes.size());
    for (size_t pixel = 0; pixel < 4; ++pixel)
    {
        for (size_t channel = 0; channel < 8; ++channel)
        {
            uint16_t const expected = channel < 3 ? pixels[pixel * 3 + channel] : 0;
            EXPECT_EQ(padded[pixel * 8 + channel], expected) << "pixel " << pixel << " channel " << channel;
        }
    }
}

} // namespace
