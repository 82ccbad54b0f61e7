// Channels-last storage on the CPU fast path (backend/cpu/passes/channels_last.h): the tensors between the fast
// path's convolutions, pooling, point-wise chains, arithmetic and activations are stored kHWC, and the network's
// outputs, debug tensors and the inputs of layers that take row-major tensors only are converted at the edges. Each
// network runs on the fast path and on the reference kernels (which keep every tensor row-major); the plan is read
// back to check which tensors the fast one stores channels-last.
#include "layer_helpers.h"
#include "named_layers.h"

#include "plan/plan_format.h"

#include <dnnl.hpp>

namespace kiln::test
{
namespace
{

//! The format of each tensor of serialized plan `blob` named in `names`.
std::map<std::string, TensorFormat> formatsOf(std::vector<uint8_t> const& blob, std::vector<std::string> const& names)
{
    plan::PlanModel model;
    std::string error;
    EXPECT_TRUE(plan::readPlan(blob.data(), blob.size(), model, error)) << error;
    std::map<std::string, TensorFormat> formats;
    for (plan::TensorRecord const& tensor : model.tensors)
    {
        if (std::find(names.begin(), names.end(), tensor.name) != names.end())
        {
            formats[tensor.name] = tensor.format;
        }
    }
    return formats;
}

//! A convolution of `maps` maps over `input`'s `channels`, square window `size`, padded to keep the extents,
//! `groups` groups; its output tensor named `name`.
ITensor& convolution(INetworkDefinition& network, ITensor& input, int64_t channels, int64_t maps, int64_t size,
    int64_t groups, std::vector<std::vector<float>>& weights, char const* name)
{
    weights.push_back(randomValues(static_cast<size_t>(maps * channels / groups * size * size), 100 + weights.size()));
    weights.push_back(randomValues(static_cast<size_t>(maps), 200 + weights.size()));
    IConvolutionLayer* layer = network.addConvolutionNd(
        input, maps, DimsHW{size, size}, weightsOf(weights[weights.size() - 2]), weightsOf(weights.back()));
    layer->setPaddingNd(DimsHW{size / 2, size / 2});
    layer->setNbGroups(groups);
    layer->setName(name);
    layer->getOutput(0)->setName(name);
    return *layer->getOutput(0);
}

ITensor& named(ITensor& tensor, char const* name)
{
    tensor.setName(name);
    return tensor;
}

//! An inverted residual block as MobileNetV2 and EfficientNet make it, at odd sizes (channels not a multiple of any
//! vector): an expanding convolution with ReLU, a depthwise one with ReLU6, SiLU as a sigmoid and a product,
//! squeeze-and-excitation (a global average, two 1x1 convolutions on [N, C, 1, 1], a sigmoid, the broadcast product),
//! a projecting convolution that adds the block's input, max pooling, ELU and hard sigmoid (one point-wise chain), then
//! a local response normalization and a softmax over the channels (a reference kernel and a fast one that take
//! row-major tensors only) and a last convolution into the output; and SiLU of the projection into a second output.
class MobileBlock
{
public:
    explicit MobileBlock(char const* debugTensor = nullptr)
        : mDebugTensor(debugTensor)
    {
    }

    void operator()(INetworkDefinition& network)
    {
        mWeights.clear();
        ITensor& x = *network.addInput("x", DataType::kFLOAT, Dims4{2, 5, 9, 11});
        ITensor& expanded = named(activated(network, convolution(network, x, 5, 13, 1, 1, mWeights, "expand"),
                                      ActivationType::kRELU, "expand relu"),
            "expanded");
        IActivationLayer* clip = network.addActivation(
            convolution(network, expanded, 13, 13, 3, 13, mWeights, "depthwise"), ActivationType::kCLIP);
        clip->setName("relu6");
        clip->setAlpha(0.0F);
        clip->setBeta(6.0F);
        ITensor& depthwise = named(*clip->getOutput(0), "depthwise clipped");
        ITensor& silu = named(binary(network, depthwise, activated(network, depthwise, ActivationType::kSIGMOID, "sig"),
                                  ElementWiseOperation::kPROD, "silu"),
            "silu");
        IReduceLayer* squeeze = network.addReduce(silu, ReduceOperation::kAVG, 0b1100, true);
        squeeze->getOutput(0)->setName("squeezed");
        ITensor& reduced = activated(network,
            convolution(network, *squeeze->getOutput(0), 13, 4, 1, 1, mWeights, "fc1"), ActivationType::kRELU,
            "fc1 relu");
        ITensor& scale = activated(
            network, convolution(network, reduced, 4, 13, 1, 1, mWeights, "fc2"), ActivationType::kSIGMOID, "gate");
        ITensor& excited = named(binary(network, silu, scale, ElementWiseOperation::kPROD, "excite"), "excited");
        ITensor& projected
            = named(sumOf(network, convolution(network, excited, 13, 5, 1, 1, mWeights, "project"), x, "residual"),
                "projected");
        // A second output: a point-wise chain reading a channels-last tensor and writing a row-major one.
        ITensor& side = binary(network, projected, activated(network, projected, ActivationType::kSIGMOID, "side sig"),
            ElementWiseOperation::kPROD, "side");
        side.setName("side");
        network.markOutput(side);
        IPoolingLayer* pooling = network.addPoolingNd(projected, PoolingType::kMAX, DimsHW{2, 2});
        ITensor& pooled = named(*pooling->getOutput(0), "pooled");
        ITensor& elu = named(activated(network, pooled, ActivationType::kELU, "elu"), "elu");
        ITensor& hard = named(activated(network, elu, ActivationType::kHARD_SIGMOID, "hard sigmoid"), "hard");
        ILRNLayer* lrn = network.addLRN(hard, 3, 0.5F, 0.75F, 1.0F);
        lrn->setName("lrn");
        ITensor& normal = named(*lrn->getOutput(0), "lrn");
        ISoftMaxLayer* softmax = network.addSoftMax(normal);
        softmax->setAxes(1U << 1U);
        ITensor& normalized = named(*softmax->getOutput(0), "softmax");
        markOutput(network, convolution(network, normalized, 5, 7, 3, 1, mWeights, "last"));
        if (mDebugTensor != nullptr)
        {
            std::map<std::string, ITensor*> const tensors{{"expanded", &expanded}, {"silu", &silu}};
            network.markDebug(*tensors.at(mDebugTensor));
        }
    }

private:
    char const* mDebugTensor;
    std::vector<std::vector<float>> mWeights; //!< the convolutions' kernels and biases, kept for the build
};

std::vector<std::string> const kBlockTensors{"x", "expanded", "depthwise clipped", "silu", "squeezed", "excited",
    "projected", "pooled", "hard", "lrn", "softmax"};

TEST(CpuChannelsLast, MobileBlockMatchesReference)
{
    MobileBlock block;
    std::vector<Tensors> const runs{{{"x", randomTensor({2, 5, 9, 11}, 1)}}, {{"x", randomTensor({2, 5, 9, 11}, 2)}}};
    std::map<std::string, bool> const layers
        = expectFastMatchesReference(std::ref(block), runs, reductionTolerance(13 * 9 + 13));
    EXPECT_TRUE(layers.at("depthwise + relu6"));
    EXPECT_TRUE(layers.at("sig + silu"));
    EXPECT_TRUE(layers.at("excite"));
    EXPECT_TRUE(layers.at("project + residual"));
    EXPECT_FALSE(layers.at("lrn"));
}

TEST(CpuChannelsLast, StoresTheBlocksTensorsChannelsLast)
{
    MobileBlock block;
    std::map<std::string, TensorFormat> const formats
        = formatsOf(buildCpuPlan(std::ref(block), CpuKernels::kFAST), kBlockTensors);
    std::map<std::string, TensorFormat> const expected{
        {"x", TensorFormat::kLINEAR},     // the network's input
        {"expanded", TensorFormat::kHWC}, // a convolution's output
        {"depthwise clipped", TensorFormat::kHWC},
        {"silu", TensorFormat::kHWC},        // a point-wise chain reading a channels-last tensor
        {"squeezed", TensorFormat::kLINEAR}, // a reduction's [N, C, 1, 1]
        {"excited", TensorFormat::kHWC},     // the product of channels-last activations and a row-major scale
        {"projected", TensorFormat::kHWC},   // the convolution adding the row-major input
        {"pooled", TensorFormat::kHWC},
        // A point-wise chain of activations whose only reader, the LRN, takes row-major tensors: it ends the region,
        // writing row-major as it goes, where the LRN would convert.
        {"hard", TensorFormat::kLINEAR},
        {"lrn", TensorFormat::kLINEAR},     // the reference kernels take row-major tensors only
        {"softmax", TensorFormat::kLINEAR}, // so does the fast softmax
    };
    EXPECT_EQ(formats, expected);
    // The reference plan keeps every tensor row-major.
    for (auto const& [name, format] : formatsOf(buildCpuPlan(std::ref(block), CpuKernels::kREFERENCE), kBlockTensors))
    {
        EXPECT_EQ(format, TensorFormat::kLINEAR) << name;
    }
}

TEST(CpuChannelsLast, DebugTensorStaysRowMajor)
{
    for (char const* debug : {"expanded", "silu"})
    {
        MobileBlock block(debug);
        std::map<std::string, TensorFormat> const formats
            = formatsOf(buildCpuPlan(std::ref(block), CpuKernels::kFAST), {debug, "depthwise clipped"});
        EXPECT_EQ(formats.at(debug), TensorFormat::kLINEAR) << debug;
        // The region goes on after it: the next convolution writes channels-last again.
        EXPECT_EQ(formats.at("depthwise clipped"), TensorFormat::kHWC) << debug;
        expectFastMatchesReference(
            std::ref(block), {{{"x", randomTensor({2, 5, 9, 11}, 3)}}}, reductionTolerance(13 * 9 + 13));
    }
}

//! A residual network's stage at one thread and at two: convolutions with fused residuals, max pooling with
//! padding, and a global average pooling into a fully connected product, as ResNet ends.
TEST(CpuChannelsLast, ResidualStageMatchesReference)
{
    std::vector<std::vector<float>> weights;
    std::vector<float> const fc = randomValues(16 * 3, 77);
    NetworkMaker const stage = [&](INetworkDefinition& network) {
        weights.clear();
        ITensor& x = *network.addInput("x", DataType::kFLOAT, Dims4{1, 3, 17, 15});
        ITensor& stem = activated(
            network, convolution(network, x, 3, 16, 3, 1, weights, "stem"), ActivationType::kRELU, "stem relu");
        IPoolingLayer* pooling = network.addPoolingNd(stem, PoolingType::kMAX, DimsHW{3, 3});
        pooling->setStrideNd(DimsHW{2, 2});
        pooling->setPaddingNd(DimsHW{1, 1});
        ITensor& pooled = *pooling->getOutput(0);
        ITensor& a = activated(
            network, convolution(network, pooled, 16, 16, 3, 1, weights, "a"), ActivationType::kRELU, "a relu");
        ITensor& b = convolution(network, a, 16, 16, 3, 1, weights, "b");
        ITensor& sum = activated(network, sumOf(network, b, pooled, "add"), ActivationType::kRELU, "add relu");
        IReduceLayer* mean = network.addReduce(sum, ReduceOperation::kAVG, 0b1100, false);
        IMatrixMultiplyLayer* product = network.addMatrixMultiply(*mean->getOutput(0), MatrixOperation::kNONE,
            constantOf(network, {16, 3}, fc, "fc"), MatrixOperation::kNONE);
        markOutput(network, *product->getOutput(0));
    };
    expectFastMatchesReference(stage, {{{"x", randomTensor({1, 3, 17, 15}, 4)}}}, reductionTolerance(16 * 9 * 2));
    std::vector<uint8_t> const fast = buildCpuPlan(stage, CpuKernels::kFAST);
    std::vector<uint8_t> const reference = buildCpuPlan(stage, CpuKernels::kREFERENCE);
    Tensors const input{{"x", randomTensor({1, 3, 17, 15}, 5)}};
    HostTensor const expected = runCpuPlan(reference, {input}).at(0).at("output");
    for (int32_t threads : {1, 2})
    {
        expectClose(runCpuPlan(fast, {input}, threads).at(0).at("output"), expected, reductionTolerance(16 * 9 * 2),
            std::to_string(threads) + " threads");
    }
}

//! Squeeze-and-excitation at a size whose pooling and products split between threads (past 2^16 elements): a
//! convolution into channels-last [2, 24, 40, 40], its global average, a 1x1 convolution with a sigmoid into the
//! scale, the product of the convolution's output by the scale into a projection; and beside it, the sum of the
//! convolution's output and a per-channel constant [1, 24, 1, 1] that both images share, into a second one.
class ExcitationBlock
{
public:
    static constexpr int64_t kChannels = 24;

    void operator()(INetworkDefinition& network)
    {
        mWeights.clear();
        ITensor& x = *network.addInput("x", DataType::kFLOAT, Dims4{2, 8, 40, 40});
        ITensor& expanded = convolution(network, x, 8, kChannels, 3, 1, mWeights, "expand");
        IReduceLayer* squeeze = network.addReduce(expanded, ReduceOperation::kAVG, 0b1100, true);
        squeeze->setName("squeeze");
        ITensor& scale = activated(network,
            convolution(network, *squeeze->getOutput(0), kChannels, kChannels, 1, 1, mWeights, "fc"),
            ActivationType::kSIGMOID, "gate");
        ITensor& excited = binary(network, expanded, scale, ElementWiseOperation::kPROD, "excite");
        markOutput(network, convolution(network, excited, kChannels, 5, 1, 1, mWeights, "project"));
        ITensor& shifted = binary(network, constantOf(network, {1, kChannels, 1, 1}, mShift, "shift values"), expanded,
            ElementWiseOperation::kSUM, "shift");
        ITensor& mixed = convolution(network, shifted, kChannels, 3, 1, 1, mWeights, "mix");
        mixed.setName("mixed");
        network.markOutput(mixed);
    }

private:
    std::vector<std::vector<float>> mWeights;
    std::vector<float> const mShift = randomValues(kChannels, 78);
};

TEST(CpuChannelsLast, SqueezeExcitationMatchesReference)
{
    ExcitationBlock block;
    std::map<std::string, bool> const layers = expectFastMatchesReference(
        std::ref(block), {{{"x", randomTensor({2, 8, 40, 40}, 6)}}}, reductionTolerance(40 * 40 + 8 * 9));
    EXPECT_EQ(layersNamed(layers, {"squeeze", "fc + gate", "excite", "shift"}),
        (std::map<std::string, bool>{{"squeeze", true}, {"fc + gate", true}, {"excite", true}, {"shift", true}}));
}

TEST(CpuChannelsLast, SqueezeExcitationGivesTheSameBitsAtEveryThreadCount)
{
    ExcitationBlock block;
    std::vector<uint8_t> const plan = buildCpuPlan(std::ref(block), CpuKernels::kFAST);
    Tensors const input{{"x", randomTensor({2, 8, 40, 40}, 7)}};
    std::vector<Tensors> const one = runCpuPlan(plan, {input}, 1);
    ASSERT_EQ(one.size(), 1U);
    for (int32_t threads : {2, 3})
    {
        std::vector<Tensors> const more = runCpuPlan(plan, {input}, threads);
        ASSERT_EQ(more.size(), 1U);
        for (char const* output : {"output", "mixed"})
        {
            EXPECT_EQ(more[0].at(output).bytes, one[0].at(output).bytes) << output << ", " << threads << " threads";
        }
    }
}

TEST(CpuChannelsLast, RunsWhoseThreadCountChangesGiveTheSameBits)
{
    // At most two threads, the context's choice (backend/cpu/thread_choice.h): it tries one thread after eight runs
    // of two, so forty runs take both counts, and their primitives, which each count makes on its first run.
    ExcitationBlock block;
    std::vector<uint8_t> const plan = buildCpuPlan(std::ref(block), CpuKernels::kFAST);
    Tensors const input{{"x", randomTensor({2, 8, 40, 40}, 8)}};
    std::vector<Tensors> const one = runCpuPlan(plan, {input}, 1);
    std::vector<Tensors> const adaptive = runCpuPlan(plan, std::vector<Tensors>(40, input), 2, false);
    ASSERT_EQ(one.size(), 1U);
    ASSERT_EQ(adaptive.size(), 40U);
    for (size_t run = 0; run < adaptive.size(); ++run)
    {
        for (char const* output : {"output", "mixed"})
        {
            EXPECT_EQ(adaptive[run].at(output).bytes, one[0].at(output).bytes) << output << ", run " << run;
        }
    }
}

//! An average pooling between two convolutions, of dynamic height: at odd heights oneDNN pools the channels-last
//! tensors; at even ones the last windows reach past the post-padding, and the kernel runs the reference kernel on
//! row-major copies of them.
TEST(CpuChannelsLast, PoolingFallsBackToTheReferenceOnChannelsLastTensors)
{
    std::vector<std::vector<float>> weights;
    NetworkMaker const network = [&](INetworkDefinition& n) {
        weights.clear();
        ITensor& a = *n.addInput("a", DataType::kFLOAT, Dims4{-1, 3, -1, 9});
        ITensor& first = convolution(n, a, 3, 6, 3, 1, weights, "first");
        IPoolingLayer* pooling = n.addPoolingNd(first, PoolingType::kAVERAGE, DimsHW{3, 3});
        pooling->setStrideNd(DimsHW{2, 2});
        pooling->setPaddingNd(DimsHW{1, 1});
        pooling->setPaddingMode(PaddingMode::kEXPLICIT_ROUND_UP);
        pooling->setAverageCountExcludesPadding(false);
        pooling->getOutput(0)->setName("pooled");
        markOutput(n, convolution(n, *pooling->getOutput(0), 6, 4, 1, 1, weights, "second"));
    };
    BuildSettings const profile = [](IBuilder& builder, IBuilderConfig& config) {
        IOptimizationProfile* shapes = builder.createOptimizationProfile();
        shapes->setDimensions("a", OptProfileSelector::kMIN, Dims4{1, 3, 4, 9});
        shapes->setDimensions("a", OptProfileSelector::kOPT, Dims4{2, 3, 7, 9});
        shapes->setDimensions("a", OptProfileSelector::kMAX, Dims4{3, 3, 12, 9});
        config.addOptimizationProfile(shapes);
    };
    std::vector<Tensors> const runs{{{"a", randomTensor({2, 3, 7, 9}, 1)}}, {{"a", randomTensor({1, 3, 6, 9}, 2)}},
        {{"a", randomTensor({3, 3, 8, 9}, 3)}}, {{"a", randomTensor({2, 3, 7, 9}, 4)}}};
    expectFastMatchesReference(network, runs, reductionTolerance(3 * 9 + 6), profile);
    EXPECT_EQ(formatsOf(buildCpuPlan(network, CpuKernels::kFAST, profile), {"first", "pooled"}),
        (std::map<std::string, TensorFormat>{{"first", TensorFormat::kHWC}, {"pooled", TensorFormat::kHWC}}));
}

//! The start of a CSP block as the YOLO-style detector has it: input "x" [2, 6, 11, 13], a 1x1 convolution into 16
//! maps ("expanded", channels-last), and its two halves of 8 channels as slices ("low" and "high"). The fast path's
//! slices continue the channels-last region; with `rowMajorHalves` they sample in kCLAMP mode (the same window), which
//! the fast path leaves to the reference kernels, so that the halves are row-major.
struct SplitBlock
{
    ITensor* low;
    ITensor* high;
};

SplitBlock splitBlock(INetworkDefinition& n, std::vector<std::vector<float>>& weights, bool rowMajorHalves)
{
    ITensor& expanded
        = named(convolution(n, *n.addInput("x", DataType::kFLOAT, Dims4{2, 6, 11, 13}), 6, 16, 1, 1, weights, "expand"),
            "expanded");
    SplitBlock halves{};
    for (auto const& [half, first] : {std::pair{&halves.low, 0}, std::pair{&halves.high, 8}})
    {
        ISliceLayer* slice = n.addSlice(expanded, Dims4{0, first, 0, 0}, Dims4{2, 8, 11, 13}, Dims4{1, 1, 1, 1});
        slice->setName(first == 0 ? "slice low" : "slice high");
        if (rowMajorHalves)
        {
            slice->setMode(SampleMode::kCLAMP);
        }
        *half = slice->getOutput(0);
        (*half)->setName(first == 0 ? "low" : "high");
    }
    return halves;
}

//! A convolution of `input`'s 8 channels into `maps`, activated by ReLU: the activation keeps a following sum out of
//! the convolution's epilogue, as SiLU does in the detector. Its output is "branch".
ITensor& activatedBranch(INetworkDefinition& n, ITensor& input, int64_t maps, std::vector<std::vector<float>>& weights)
{
    return named(
        activated(n, convolution(n, input, 8, maps, 3, 1, weights, "second"), ActivationType::kRELU, "relu"), "branch");
}

TEST(CpuChannelsLast, SumOfARowMajorSliceAndAChannelsLastOutput)
{
    // A CSP block's residual sum: a slice's row-major half added to the channels-last output of two convolutions of it,
    // the sum read by a third. The sum reads its inputs in two formats; the fast path converts the row-major one
    // first, where oneDNN's binary took its reference implementation.
    std::vector<std::vector<float>> weights;
    NetworkMaker const network = [&](INetworkDefinition& n) {
        weights.clear();
        SplitBlock const block = splitBlock(n, weights, true);
        ITensor& first = convolution(n, *block.high, 8, 8, 1, 1, weights, "first");
        ITensor& branch = activatedBranch(n, first, 8, weights);
        markOutput(n, convolution(n, sumOf(n, *block.high, branch, "sum"), 8, 4, 1, 1, weights, "merge"));
    };
    expectFastMatchesReference(
        network, {{{"x", randomTensor({2, 6, 11, 13}, 7)}}}, reductionTolerance(8 * 9 + 6 + 8 + 8));
    EXPECT_EQ(formatsOf(buildCpuPlan(network, CpuKernels::kFAST), {"high", "branch"}),
        (std::map<std::string, TensorFormat>{{"high", TensorFormat::kLINEAR}, {"branch", TensorFormat::kHWC}}));
}

TEST(CpuChannelsLast, ConcatenationOfInputsInBothFormats)
{
    // A CSP block's concatenation: the two row-major halves of the slices and a channels-last convolution output,
    // joined along the channels into a channels-last tensor that a convolution reads. The fast path copies each input
    // from its format into the output's; the reference converts.
    std::vector<std::vector<float>> weights;
    NetworkMaker const network = [&](INetworkDefinition& n) {
        weights.clear();
        SplitBlock const block = splitBlock(n, weights, true);
        std::vector<ITensor*> parts{block.low, block.high, &activatedBranch(n, *block.high, 5, weights)};
        IConcatenationLayer* joined = n.addConcatenation(parts.data(), 3);
        joined->setAxis(1);
        joined->setName("concatenation");
        joined->getOutput(0)->setName("joined");
        markOutput(n, convolution(n, *joined->getOutput(0), 21, 4, 1, 1, weights, "merge"));
    };
    std::map<std::string, bool> const layers = expectFastMatchesReference(
        network, {{{"x", randomTensor({2, 6, 11, 13}, 8)}}}, reductionTolerance(8 * 9 + 6 + 21));
    EXPECT_TRUE(layers.at("concatenation"));
    EXPECT_EQ(formatsOf(buildCpuPlan(network, CpuKernels::kFAST), {"low", "branch", "joined"}),
        (std::map<std::string, TensorFormat>{
            {"low", TensorFormat::kLINEAR}, {"branch", TensorFormat::kHWC}, {"joined", TensorFormat::kHWC}}));
}

TEST(CpuChannelsLast, SlicesContinueTheRegion)
{
    // The CSP block's split on the fast path: both halves sliced from the channels-last convolution output as it is
    // stored, written channels-last for the concatenation and the convolution that read them.
    std::vector<std::vector<float>> weights;
    NetworkMaker const network = [&](INetworkDefinition& n) {
        weights.clear();
        SplitBlock const block = splitBlock(n, weights, false);
        std::vector<ITensor*> parts{block.low, block.high, &activatedBranch(n, *block.high, 5, weights)};
        IConcatenationLayer* joined = n.addConcatenation(parts.data(), 3);
        joined->setAxis(1);
        markOutput(n, convolution(n, *joined->getOutput(0), 21, 4, 1, 1, weights, "merge"));
    };
    std::map<std::string, bool> const layers = expectFastMatchesReference(
        network, {{{"x", randomTensor({2, 6, 11, 13}, 9)}}}, reductionTolerance(8 * 9 + 6 + 21));
    EXPECT_TRUE(layers.at("slice low"));
    EXPECT_TRUE(layers.at("slice high"));
    EXPECT_EQ(formatsOf(buildCpuPlan(network, CpuKernels::kFAST), {"expanded", "low", "high"}),
        (std::map<std::string, TensorFormat>{
            {"expanded", TensorFormat::kHWC}, {"low", TensorFormat::kHWC}, {"high", TensorFormat::kHWC}}));
}

TEST(CpuChannelsLast, WindowsOfEveryAxisInBothFormats)
{
    // Windows that start inside every axis, from a channels-last convolution output into a network output (row-major:
    // the slice transposes as it copies) and into a convolution's input (channels-last), and from the row-major network
    // input into a convolution's input (row-major, as the input it reads).
    std::vector<std::vector<float>> weights;
    NetworkMaker const network = [&](INetworkDefinition& n) {
        weights.clear();
        ITensor& x = *n.addInput("x", DataType::kFLOAT, Dims4{3, 6, 11, 13});
        ITensor& expanded = named(convolution(n, x, 6, 16, 1, 1, weights, "expand"), "expanded");
        ISliceLayer* crop = n.addSlice(expanded, Dims4{1, 3, 2, 4}, Dims4{2, 9, 7, 6}, Dims4{1, 1, 1, 1});
        crop->setName("crop");
        n.markOutput(named(*crop->getOutput(0), "cropped"));
        n.markOutput(convolution(n, *crop->getOutput(0), 9, 4, 3, 1, weights, "after crop"));
        ISliceLayer* inputCrop = n.addSlice(x, Dims4{0, 1, 3, 0}, Dims4{3, 4, 8, 13}, Dims4{1, 1, 1, 1});
        inputCrop->setName("input crop");
        n.markOutput(convolution(n, *inputCrop->getOutput(0), 4, 5, 1, 1, weights, "after input crop"));
    };
    std::map<std::string, bool> const layers = expectFastMatchesReference(
        network, {{{"x", randomTensor({3, 6, 11, 13}, 10)}}}, reductionTolerance(9 * 9 + 6));
    EXPECT_TRUE(layers.at("crop"));
    EXPECT_TRUE(layers.at("input crop"));
    EXPECT_EQ(formatsOf(buildCpuPlan(network, CpuKernels::kFAST), {"expanded", "cropped"}),
        (std::map<std::string, TensorFormat>{{"expanded", TensorFormat::kHWC}, {"cropped", TensorFormat::kLINEAR}}));
}

TEST(CpuChannelsLast, PermutesThatMoveTheChannelsLastMoveNothing)
{
    // ConvNeXt's blocks permute a convolution's output to [N, H, W, C] for the products over its channels, and back.
    // Read channels-last as stored, the first permute's row-major output holds the same bytes: inside the network it
    // becomes a view of the convolution's output ("permuted", read by a ReLU), and as a network output, which no view
    // may be, a copy of it ("nhwc"). The permute back ("back"), stored channels-last, holds the ReLU's bytes.
    std::vector<std::vector<float>> weights;
    NetworkMaker const network = [&](INetworkDefinition& n) {
        weights.clear();
        ITensor& x = *n.addInput("x", DataType::kFLOAT, Dims4{2, 6, 9, 11});
        ITensor& expanded = named(convolution(n, x, 6, 8, 3, 1, weights, "expand"), "expanded");
        auto const permute = [&](char const* name) -> ITensor& {
            IShuffleLayer* layer = n.addShuffle(expanded);
            layer->setFirstTranspose(Permutation{{0, 2, 3, 1}});
            layer->setName(name);
            return named(*layer->getOutput(0), name);
        };
        ITensor& relu = named(activated(n, permute("permuted"), ActivationType::kRELU, "relu"), "relu");
        n.markOutput(permute("nhwc"));
        IShuffleLayer* back = n.addShuffle(relu);
        back->setFirstTranspose(Permutation{{0, 3, 1, 2}});
        back->setName("back");
        markOutput(n, convolution(n, named(*back->getOutput(0), "back"), 8, 4, 1, 1, weights, "merge"));
    };
    std::map<std::string, bool> const layers
        = expectFastMatchesReference(network, {{{"x", randomTensor({2, 6, 9, 11}, 11)}}}, reductionTolerance(6 * 9));
    EXPECT_TRUE(layers.at("nhwc"));
    plan::PlanModel model;
    std::string error;
    std::vector<uint8_t> const blob = buildCpuPlan(network, CpuKernels::kFAST);
    ASSERT_TRUE(plan::readPlan(blob.data(), blob.size(), model, error)) << error;
    std::map<std::string, plan::TensorRecord const*> tensors;
    for (plan::TensorRecord const& tensor : model.tensors)
    {
        tensors[tensor.name] = &tensor;
    }
    EXPECT_EQ(tensors.at("expanded")->format, TensorFormat::kHWC);
    int32_t const viewed = tensors.at("permuted")->viewOf;
    ASSERT_GE(viewed, 0) << "the permute inside the network should be a view";
    EXPECT_EQ(model.tensors[static_cast<size_t>(viewed)].name, "expanded");
    EXPECT_LT(tensors.at("nhwc")->viewOf, 0);
    // The permute back into [N, C, H, W] starts a region: stored channels-last, a view of the row-major ReLU output.
    EXPECT_EQ(tensors.at("back")->format, TensorFormat::kHWC);
    int32_t const backViewed = tensors.at("back")->viewOf;
    ASSERT_GE(backViewed, 0) << "the permute back should be a view";
    EXPECT_EQ(model.tensors[static_cast<size_t>(backViewed)].name, "relu");
}

//! PoolFormer's token mixer: a convolution into "features" [batch, 12, height, width] (or, without the stem, the input
//! itself), its group normalization of one group as PyTorch exports it (a reshape to [N, 1, C * H * W], a
//! normalization of that one row per sample by a scale and a shift of one value each, "group norm", and a reshape back
//! into "normalized"), the per-channel affine step ("gamma product", "beta sum" into "affine"), an average pooling
//! ("pooled") less its input, a per-channel layer scale, the residual sum ("residual"), and a 1x1 convolution into the
//! output. Kiln's own loops normalize, the affine step folded in; the sizes give rows of one chunk of their sums and
//! of several, which the threads share.
class PoolFormerMixer
{
public:
    static constexpr int64_t kChannels = 12;
    //! The normalization's layer once the fast path has folded the affine step into it.
    static constexpr char const* kFoldedNormalization = "group norm + gamma product + beta sum";

    PoolFormerMixer(int64_t batch, int64_t height, int64_t width, bool stem = true)
        : mShape{batch, stem ? 5 : kChannels, height, width}
        , mStem(stem)
    {
    }

    Shape const& inputShape() const
    {
        return mShape;
    }

    //! The elements of each row that the normalization sees: one image's.
    int64_t rowLength() const
    {
        return kChannels * mShape[2] * mShape[3];
    }

    void operator()(INetworkDefinition& network)
    {
        mWeights.clear();
        int64_t const height = mShape[2];
        int64_t const width = mShape[3];
        ITensor& x = *network.addInput("x", DataType::kFLOAT, dimsOf(mShape));
        ITensor& features = mStem ? named(convolution(network, x, 5, kChannels, 3, 1, mWeights, "stem"), "features")
                                  : x;
        INormalizationLayer* normalization = network.addNormalization(
            reshaped(network, features, {0, 1, -1}, "flatten"), constantOf(network, {1, 1, 1}, mScale, "scale"),
            constantOf(network, {1, 1, 1}, mShift, "shift"), 1U << 2);
        normalization->setName("group norm");
        ITensor& normalized = named(
            reshaped(network, *normalization->getOutput(0), {0, kChannels, height, width}, "restore"), "normalized");
        Shape const perChannel{1, kChannels, 1, 1};
        ITensor& affine
            = named(binary(network,
                        binary(network, normalized, constantOf(network, perChannel, mGamma, "gamma"),
                            ElementWiseOperation::kPROD, "gamma product"),
                        constantOf(network, perChannel, mBeta, "beta"), ElementWiseOperation::kSUM, "beta sum"),
                "affine");
        IPoolingLayer* pooling = network.addPoolingNd(affine, PoolingType::kAVERAGE, DimsHW{3, 3});
        pooling->setPaddingNd(DimsHW{1, 1});
        pooling->setAverageCountExcludesPadding(true);
        ITensor& mixed
            = binary(network, named(*pooling->getOutput(0), "pooled"), affine, ElementWiseOperation::kSUB, "mix");
        ITensor& scaled = binary(network, mixed, constantOf(network, perChannel, mLayerScale, "layer scale values"),
            ElementWiseOperation::kPROD, "layer scale");
        ITensor& residual = named(sumOf(network, features, scaled, "residual sum"), "residual");
        markOutput(network, convolution(network, residual, kChannels, 7, 1, 1, mWeights, "project"));
    }

private:
    Shape const mShape;
    bool const mStem;
    std::vector<std::vector<float>> mWeights;
    std::vector<float> const mScale{1.25F};
    std::vector<float> const mShift{-0.5F};
    std::vector<float> const mGamma = randomValues(kChannels, 81);
    std::vector<float> const mBeta = randomValues(kChannels, 82);
    std::vector<float> const mLayerScale = randomValues(kChannels, 83);
};

TEST(CpuChannelsLast, GroupNormalizationOfOneGroupKeepsTheRegion)
{
    // The fast path normalizes each sample of the 4-D tensor as it is stored, without the export's reshapes, the
    // affine step folded into its weights, and the whole mixer stays channels-last: the normalization, the pooling
    // and the sums read and write kHWC. The reference runs the network as written.
    for (PoolFormerMixer mixer : {PoolFormerMixer(2, 9, 11), PoolFormerMixer(1, 40, 36)})
    {
        SCOPED_TRACE("rows of " + std::to_string(mixer.rowLength()) + " elements");
        std::map<std::string, bool> const layers = expectFastMatchesReference(std::ref(mixer),
            {{{"x", randomTensor(mixer.inputShape(), 12)}}, {{"x", randomTensor(mixer.inputShape(), 13)}}},
            reductionTolerance(5 * 9 + PoolFormerMixer::kChannels));
        EXPECT_TRUE(layers.at(PoolFormerMixer::kFoldedNormalization));
        std::vector<uint8_t> const blob = buildCpuPlan(std::ref(mixer), CpuKernels::kFAST);
        EXPECT_EQ(formatsOf(blob, {"features", "affine", "pooled", "residual"}),
            (std::map<std::string, TensorFormat>{{"features", TensorFormat::kHWC}, {"affine", TensorFormat::kHWC},
                {"pooled", TensorFormat::kHWC}, {"residual", TensorFormat::kHWC}}));
        plan::PlanModel model;
        std::string error;
        ASSERT_TRUE(plan::readPlan(blob.data(), blob.size(), model, error)) << error;
        for (plan::LayerRecord const& layer : model.layers)
        {
            EXPECT_NE(layer.type, LayerType::kSHUFFLE) << layer.name;
            if (layer.type == LayerType::kNORMALIZATION)
            {
                // The data as stored, the scale and the shift (one value a channel) as theirs: nothing converts.
                EXPECT_EQ(plan::slotFormat(model, layer, 0), TensorFormat::kHWC);
                EXPECT_EQ(plan::slotFormat(model, layer, 1), TensorFormat::kLINEAR);
                EXPECT_EQ(plan::slotFormat(model, layer, 3), TensorFormat::kHWC);
            }
        }
    }
}

TEST(CpuChannelsLast, AffineStepFoldsIntoRowMajorSampleNormalizations)
{
    // Without the stem the mixer's input is the network's, row-major, and so is the normalization of its samples:
    // the folded weights are read per channel down each channel's plane. Nothing is left of the affine step.
    for (PoolFormerMixer mixer : {PoolFormerMixer(2, 9, 11, false), PoolFormerMixer(1, 40, 36, false)})
    {
        SCOPED_TRACE("rows of " + std::to_string(mixer.rowLength()) + " elements");
        std::map<std::string, bool> const layers = expectFastMatchesReference(std::ref(mixer),
            {{{"x", randomTensor(mixer.inputShape(), 14)}}}, reductionTolerance(PoolFormerMixer::kChannels));
        EXPECT_TRUE(layers.at(PoolFormerMixer::kFoldedNormalization));
        std::vector<uint8_t> const blob = buildCpuPlan(std::ref(mixer), CpuKernels::kFAST);
        EXPECT_EQ(
            formatsOf(blob, {"affine"}), (std::map<std::string, TensorFormat>{{"affine", TensorFormat::kLINEAR}}));
        plan::PlanModel model;
        std::string error;
        ASSERT_TRUE(plan::readPlan(blob.data(), blob.size(), model, error)) << error;
        for (plan::LayerRecord const& layer : model.layers)
        {
            if (layer.name != PoolFormerMixer::kFoldedNormalization)
            {
                EXPECT_EQ(layer.name.find("gamma product"), std::string::npos) << layer.name << " is the affine step's";
            }
        }
    }
}

TEST(CpuChannelsLast, GroupedConvolutionReadsAndWritesChannelsLastAsStored)
{
    // RegNet's grouped convolutions, groups of 16 channels, between channels-last tensors: oneDNN left to choose
    // (format_tag::any) runs its JIT kernel on a blocked layout (aBcd16b) with a reorder on each side; the same kernel
    // takes the tensors as they are stored. Its log shows the convolution on acdb (NHWC) and no reorder into or out of
    // a blocked layout.
    std::vector<std::vector<float>> weights;
    NetworkMaker const network = [&](INetworkDefinition& n) {
        weights.clear();
        ITensor& x = *n.addInput("x", DataType::kFLOAT, Dims4{1, 8, 20, 18});
        ITensor& expanded = named(convolution(n, x, 8, 64, 1, 1, weights, "expand"), "expanded");
        IConvolutionLayer* grouped = n.addConvolutionNd(expanded, 64, DimsHW{3, 3},
            weightsOf(weights.emplace_back(randomValues(64 * 16 * 9, 90))),
            weightsOf(weights.emplace_back(randomValues(64, 91))));
        grouped->setNbGroups(4);
        grouped->setStrideNd(DimsHW{2, 2});
        grouped->setPaddingNd(DimsHW{1, 1});
        grouped->setName("grouped");
        ITensor& mixed = named(*grouped->getOutput(0), "mixed");
        markOutput(n, convolution(n, mixed, 64, 5, 1, 1, weights, "project"));
    };
    std::vector<uint8_t> const fast = buildCpuPlan(network, CpuKernels::kFAST);
    EXPECT_EQ(formatsOf(fast, {"expanded", "mixed"}),
        (std::map<std::string, TensorFormat>{{"expanded", TensorFormat::kHWC}, {"mixed", TensorFormat::kHWC}}));
    std::vector<Tensors> const runs{{{"x", randomTensor({1, 8, 20, 18}, 92)}}};
    dnnl::set_verbose(1);
    testing::internal::CaptureStdout();
    std::vector<Tensors> const results = runCpuPlan(fast, runs, 2);
    std::string const log = testing::internal::GetCapturedStdout();
    dnnl::set_verbose(0);
    std::vector<Tensors> const expected = runCpuPlan(buildCpuPlan(network, CpuKernels::kREFERENCE), runs);
    ASSERT_EQ(results.size(), 1U);
    ASSERT_EQ(expected.size(), 1U);
    expectClose(results[0].at("output"), expected[0].at("output"), reductionTolerance(16 * 9 + 64 + 8), "output");
    auto const isa = static_cast<unsigned>(dnnl::get_effective_cpu_isa());
    auto const avx512 = static_cast<unsigned>(dnnl::cpu_isa::avx512_core);
    if ((isa & avx512) != avx512)
    {
        GTEST_SKIP() << "the layouts are those oneDNN picks on AVX-512";
    }
    size_t const line = log.find("g4mb1_ic64oc64");
    ASSERT_NE(line, std::string::npos) << log;
    size_t const start = log.rfind('\n', line) + 1;
    std::string const groupedLine = log.substr(start, log.find('\n', line) - start);
    EXPECT_NE(groupedLine.find("src_f32::blocked:acdb"), std::string::npos) << groupedLine;
    EXPECT_NE(groupedLine.find("dst_f32::blocked:acdb"), std::string::npos) << groupedLine;
    EXPECT_EQ(log.find("aBcd16b"), std::string::npos) << log;
}

TEST(CpuChannelsLast, ConvolutionReadOnlyByRowMajorLayersWritesRowMajor)
{
    // ResNeSt's split attention reshapes a grouped convolution's [N, 2C, H, W] into its radix groups [N, 2, C, H, W],
    // which no fast kernel reads channels-last: the convolution writes row-major itself and the reshape is a view,
    // where the executor converted the output for the reshape, which copied it again.
    std::vector<std::vector<float>> weights;
    NetworkMaker const network = [&](INetworkDefinition& n) {
        weights.clear();
        ITensor& x = *n.addInput("x", DataType::kFLOAT, Dims4{1, 6, 10, 12});
        ITensor& expanded = named(convolution(n, x, 6, 16, 1, 1, weights, "expand"), "expanded");
        ITensor& grouped = named(activated(n, convolution(n, expanded, 16, 16, 3, 2, weights, "grouped"),
                                     ActivationType::kRELU, "grouped relu"),
            "radix input");
        ITensor& radix = named(reshaped(n, grouped, {1, 2, 8, 10, 12}, "split"), "radix groups");
        IReduceLayer* sum = n.addReduce(radix, ReduceOperation::kSUM, 0b10, false);
        sum->setName("radix sum");
        markOutput(n, *sum->getOutput(0));
    };
    std::vector<uint8_t> const fast = buildCpuPlan(network, CpuKernels::kFAST);
    // The first convolution's reader continues the region; the second's reshape does not.
    EXPECT_EQ(formatsOf(fast, {"expanded", "radix input"}),
        (std::map<std::string, TensorFormat>{
            {"expanded", TensorFormat::kHWC}, {"radix input", TensorFormat::kLINEAR}}));
    plan::PlanModel model;
    std::string error;
    ASSERT_TRUE(plan::readPlan(fast.data(), fast.size(), model, error)) << error;
    for (plan::TensorRecord const& tensor : model.tensors)
    {
        if (tensor.name == "radix groups")
        {
            EXPECT_GE(tensor.viewOf, 0) << "the reshape copies";
        }
    }
    std::vector<Tensors> const runs{
        {{"x", randomTensor({1, 6, 10, 12}, 93)}}, {{"x", randomTensor({1, 6, 10, 12}, 94)}}};
    expectFastMatchesReference(network, runs, reductionTolerance(2 * (8 * 9 + 6 + 2)));
}

//! `x`'s channels shuffled in `groups` groups as torchvision's ShuffleNetV2 exports it: a reshape to [N, groups, C /
//! groups, H, W] (the batch copied by a 0), a transpose of axes 1 and 2, a reshape back; the layers named `name` and
//! "<name> transpose", "<name> merge".
ITensor& shuffled(INetworkDefinition& network, ITensor& x, int64_t channels, int64_t groups, std::string const& name)
{
    Dims const dims = x.getDimensions();
    ITensor& split = reshaped(network, x, {0, groups, channels / groups, dims.d[2], dims.d[3]}, name.c_str());
    IShuffleLayer* transpose = network.addShuffle(split);
    transpose->setFirstTranspose(Permutation{{0, 2, 1, 3, 4}});
    transpose->setName((name + " transpose").c_str());
    return reshaped(network, *transpose->getOutput(0), {0, channels, dims.d[2], dims.d[3]}, (name + " merge").c_str());
}

TEST(CpuChannelsLast, ChannelShufflesGatherInTheRegion)
{
    // ShuffleNetV2's unit: two branches of convolutions joined along the channels, shuffled in two groups, split in
    // halves by slices that convolutions read. Each half is one gather of the join (plan/passes/channel_permutation.h)
    // from the channels-last join into a channels-last half: with branches of 6 channels each half interleaves two
    // runs (0, 6, 1, 7, 2, 8), with 5 it does not (0, 5, 1, 6, 2). The shuffled tensor, an output too, is one gather
    // into row-major memory; the network input shuffled in three groups into an output gathers row-major to row-major.
    for (int64_t const branch : {6, 5})
    {
        SCOPED_TRACE("branches of " + std::to_string(branch) + " channels");
        std::vector<std::vector<float>> weights;
        NetworkMaker const network = [&](INetworkDefinition& n) {
            weights.clear();
            ITensor& x = *n.addInput("x", DataType::kFLOAT, Dims4{2, 6, 7, 9});
            std::vector<ITensor*> branches{&convolution(n, x, 6, branch, 1, 1, weights, "left"),
                &convolution(n, x, 6, branch, 3, 1, weights, "right")};
            IConcatenationLayer* join = n.addConcatenation(branches.data(), 2);
            join->setAxis(1);
            join->setName("join");
            ITensor& mixed
                = named(shuffled(n, named(*join->getOutput(0), "joined"), 2 * branch, 2, "shuffle"), "mixed");
            n.markOutput(mixed);
            for (int64_t half = 0; half < 2; ++half)
            {
                std::string const name = "half" + std::to_string(half);
                ISliceLayer* slice
                    = n.addSlice(mixed, Dims4{0, branch * half, 0, 0}, Dims4{2, branch, 7, 9}, Dims4{1, 1, 1, 1});
                slice->setName(name.c_str());
                ITensor& part = named(*slice->getOutput(0), name.c_str());
                n.markOutput(convolution(n, part, branch, 4, 3, 1, weights, (name + " conv").c_str()));
            }
            n.markOutput(named(shuffled(n, x, 6, 3, "input shuffle"), "x mixed"));
        };
        std::map<std::string, bool> const layers = expectFastMatchesReference(network,
            {{{"x", randomTensor({2, 6, 7, 9}, 95)}}, {{"x", randomTensor({2, 6, 7, 9}, 96)}}},
            reductionTolerance(2 * (6 * 9 + branch * 9)));
        std::string const chain = "shuffle + shuffle transpose + shuffle merge";
        std::string const inputChain = "input shuffle + input shuffle transpose + input shuffle merge";
        std::vector<std::string> const gathers{chain, chain + " + half0", chain + " + half1", inputChain};
        EXPECT_EQ(layersNamed(layers, gathers),
            (std::map<std::string, bool>{
                {gathers[0], true}, {gathers[1], true}, {gathers[2], true}, {gathers[3], true}}));
        for (char const* replaced : {"shuffle", "shuffle transpose", "half0", "half1", "input shuffle transpose"})
        {
            EXPECT_EQ(layers.count(replaced), 0U) << replaced;
        }
        EXPECT_EQ(formatsOf(buildCpuPlan(network, CpuKernels::kFAST), {"joined", "mixed", "half0", "half1", "x mixed"}),
            (std::map<std::string, TensorFormat>{{"joined", TensorFormat::kHWC}, {"mixed", TensorFormat::kLINEAR},
                {"half0", TensorFormat::kHWC}, {"half1", TensorFormat::kHWC}, {"x mixed", TensorFormat::kLINEAR}}));
    }
}

TEST(CpuChannelsLast, GatherOfChannelsByIndicesGivenAtRunTime)
{
    // A network's own gather of a convolution's channels by indices it is given at run time, negatives counting from
    // the end: read from the channels-last convolution output into row-major memory. An index outside the channels
    // fails the run with an error that names it, as the reference's gather does.
    std::vector<std::vector<float>> weights;
    NetworkMaker const network = [&](INetworkDefinition& n) {
        weights.clear();
        ITensor& x = *n.addInput("x", DataType::kFLOAT, Dims4{2, 3, 5, 6});
        ITensor& indices = *n.addInput("i", DataType::kINT32, Dims{1, {4}});
        IGatherLayer* gather = n.addGather(convolution(n, x, 3, 7, 3, 1, weights, "conv"), indices, 1);
        gather->setName("gather");
        markOutput(n, *gather->getOutput(0));
    };
    HostTensor const x = randomTensor({2, 3, 5, 6}, 97);
    std::map<std::string, bool> const layers = expectFastMatchesReference(
        network, {{{"x", x}, {"i", fromInts({4}, {6, -1, 0, 2}, DataType::kINT32)}}}, reductionTolerance(3 * 9));
    EXPECT_TRUE(layers.at("gather"));
    std::vector<uint8_t> const fast = buildCpuPlan(network, CpuKernels::kFAST);
    EXPECT_EQ(formatsOf(fast, {"conv", "output"}),
        (std::map<std::string, TensorFormat>{{"conv", TensorFormat::kHWC}, {"output", TensorFormat::kLINEAR}}));
    RecordingLogger logger;
    std::unique_ptr<IRuntime> runtime(createInferRuntime(logger));
    std::unique_ptr<ICudaEngine> engine(runtime->deserializeCudaEngine(fast.data(), fast.size()));
    ASSERT_NE(engine, nullptr) << logger.errors();
    std::unique_ptr<IExecutionContext> context(engine->createExecutionContext());
    HostTensor const outside = fromInts({4}, {0, 7, 1, 2}, DataType::kINT32);
    HostTensor output = zeros({2, 4, 5, 6});
    EXPECT_TRUE(context->setInputShape("x", Dims4{2, 3, 5, 6}));
    EXPECT_TRUE(context->setInputShape("i", Dims{1, {4}}));
    EXPECT_TRUE(context->setTensorAddress("x", const_cast<uint8_t*>(x.bytes.data())));
    EXPECT_TRUE(context->setTensorAddress("i", const_cast<uint8_t*>(outside.bytes.data())));
    EXPECT_TRUE(context->setTensorAddress("output", output.bytes.data()));
    EXPECT_FALSE(context->enqueueV3(nullptr));
    EXPECT_NE(logger.errors().find("index 7 is outside the 7 channels"), std::string::npos) << logger.errors();
}

} // namespace
} // namespace kiln::test
