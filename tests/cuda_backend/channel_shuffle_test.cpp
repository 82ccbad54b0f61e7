// ShuffleNet's channel shuffle in CUDA plans: the reshape, transpose and reshape that permute the channels of the
// join of two branches, and the two slices that split the result for the next unit, run as one gather of the join per
// slice (plan/passes/channel_permutation.h), channels-last inside an FP16 region. The plans are read without a GPU,
// and each gather's channels checked against what the CPU reference's own shuffles do (for groups of 2 to 4 and
// chains of two and three shuffles); the outputs are compared with the CPU reference on a GPU.
#include "backend_comparison.h"

#include "network/layers/constant.h"
#include "plan/plan_graph.h"

namespace
{

using namespace nvinfer1;
using namespace kiln::test;

constexpr int64_t kBranchChannels = 6;
constexpr int64_t kChannels = 2 * kBranchChannels;

//! A 1x1 convolution of `input` (`inputs` channels) to `maps` channels, its weights kept alive by `weights`.
ITensor& convolve(INetworkDefinition& network, std::vector<std::vector<float>>& weights, ITensor& input, int64_t inputs,
    int64_t maps, char const* name)
{
    auto const count = static_cast<size_t>(maps * inputs);
    weights.push_back(spread(count, -0.5F, 0.5F + 0.01F * static_cast<float>(weights.size())));
    IConvolutionLayer* conv = network.addConvolutionNd(input, maps, Dims{2, {1, 1}},
        Weights{DataType::kFLOAT, weights.back().data(), static_cast<int64_t>(count)}, Weights{});
    conv->setName(name);
    return *conv->getOutput(0);
}

//! How the network of shuffleUnit ends.
enum class Ending
{
    kSPLIT,            //!< the shuffled channels split in two halves by slices, each read by a convolution
    kSPLIT_AND_OUTPUT, //!< the same, and the shuffled tensor itself is a network output
    kWHOLE,            //!< the shuffled tensor read whole by a convolution
};

//! Two branches of 1x1 convolutions joined along the channels (kChannels), shuffled in two groups as torchvision's
//! ShuffleNetV2 exports it: a reshape to [N, 2, C / 2, H, W] (the batch copied by a 0), a transpose of axes 1 and 2,
//! a reshape back; then `ending`.
NetworkMaker shuffleUnit(std::shared_ptr<std::vector<std::vector<float>>> const& weights, Ending ending,
    Dims const& input = Dims{4, {2, 4, 3, 5}})
{
    return [weights, ending, input](INetworkDefinition& network) {
        weights->clear(); // each backend's network gets the same weights
        ITensor* x = network.addInput("x", DataType::kFLOAT, input);
        ITensor& left = convolve(network, *weights, *x, 4, kBranchChannels, "left");
        ITensor& right = convolve(network, *weights, *x, 4, kBranchChannels, "right");
        std::vector<ITensor*> branches{&left, &right};
        IConcatenationLayer* join = network.addConcatenation(branches.data(), 2);
        join->setAxis(1);
        IShuffleLayer* split = network.addShuffle(*join->getOutput(0));
        split->setReshapeDimensions(Dims{5, {0, 2, kBranchChannels, 3, 5}});
        IShuffleLayer* transpose = network.addShuffle(*split->getOutput(0));
        transpose->setFirstTranspose(Permutation{{0, 2, 1, 3, 4}});
        IShuffleLayer* merge = network.addShuffle(*transpose->getOutput(0));
        merge->setReshapeDimensions(Dims{4, {0, kChannels, 3, 5}});
        ITensor* shuffled = merge->getOutput(0);
        shuffled->setName("shuffled");
        if (ending == Ending::kWHOLE)
        {
            ITensor& y = convolve(network, *weights, *shuffled, kChannels, 5, "after");
            y.setName("y");
            network.markOutput(y);
            return;
        }
        for (int64_t half = 0; half < 2; ++half)
        {
            ISliceLayer* slice = network.addSlice(*shuffled, Dims{4, {0, half * kBranchChannels, 0, 0}},
                Dims{4, {input.d[0], kBranchChannels, 3, 5}}, Dims{4, {1, 1, 1, 1}});
            std::string const name = "half" + std::to_string(half);
            slice->setName(name.c_str());
            ITensor& y = convolve(network, *weights, *slice->getOutput(0), kBranchChannels, 5, name.c_str());
            y.setName(("y" + std::to_string(half)).c_str());
            network.markOutput(y);
        }
        if (ending == Ending::kSPLIT_AND_OUTPUT)
        {
            network.markOutput(*shuffled);
        }
    };
}

void alwaysChannelsLast(IBuilderConfig& config)
{
    kiln::setConvolutionLayout(config, kiln::ConvolutionLayout::kCHANNELS_LAST);
}

//! The channels each gather of `model` reads, in plan order.
std::vector<std::vector<int32_t>> gatheredChannels(kiln::plan::PlanModel const& model)
{
    std::vector<std::vector<int32_t>> channels;
    for (kiln::plan::LayerRecord const* gather : layersOfType(model, LayerType::kGATHER))
    {
        for (kiln::plan::LayerRecord const& layer : model.layers)
        {
            auto const* constant = kiln::plan::paramsOf<kiln::network::ConstantParams>(layer);
            if (constant != nullptr && layer.outputs.at(0) == gather->inputs.at(1))
            {
                auto const* values = static_cast<int32_t const*>(constant->weights.view().values);
                channels.emplace_back(values, values + constant->weights.count());
            }
        }
    }
    return channels;
}

// Output channel j of the shuffle is channel j / 2 of group j % 2 of the join: join channel (j % 2) * 6 + j / 2.
std::vector<int32_t> const kShuffled{0, 6, 1, 7, 2, 8, 3, 9, 4, 10, 5, 11};

TEST(ChannelShuffle, EachSliceGathersItsChannelsFromTheJoin)
{
    // Building and reading a CUDA plan needs no GPU.
    auto const weights = std::make_shared<std::vector<std::vector<float>>>();
    for (bool fp16 : {false, true})
    {
        SCOPED_TRACE(fp16 ? "fp16, channels last" : "fp32");
        kiln::plan::PlanModel const model = cudaPlanOf(shuffleUnit(weights, Ending::kSPLIT), fp16, alwaysChannelsLast);
        EXPECT_EQ(layersOfKind(model, LayerType::kSHUFFLE), 0);
        EXPECT_EQ(layersOfKind(model, LayerType::kSLICE), 0);
        std::vector<std::vector<int32_t>> const halves{
            {kShuffled.begin(), kShuffled.begin() + 6}, {kShuffled.begin() + 6, kShuffled.end()}};
        EXPECT_EQ(gatheredChannels(model), halves);
        for (kiln::plan::LayerRecord const* gather : layersOfType(model, LayerType::kGATHER))
        {
            // The data and the output as they are stored (channels-last in FP16), the indices row-major: nothing
            // converts.
            TensorFormat const stored = fp16 ? TensorFormat::kHWC : TensorFormat::kLINEAR;
            EXPECT_EQ(kiln::plan::slotFormat(model, *gather, 0), stored);
            EXPECT_EQ(kiln::plan::slotFormat(model, *gather, 1), TensorFormat::kLINEAR);
            EXPECT_EQ(kiln::plan::slotFormat(model, *gather, 2), stored);
            EXPECT_TRUE(gather->ioFormats.empty());
        }
    }
}

TEST(ChannelShuffle, TheWholePermutationIsOneGatherWhereItIsReadWhole)
{
    auto const weights = std::make_shared<std::vector<std::vector<float>>>();
    kiln::plan::PlanModel const whole = cudaPlanOf(shuffleUnit(weights, Ending::kWHOLE), true, alwaysChannelsLast);
    EXPECT_EQ(layersOfKind(whole, LayerType::kSHUFFLE), 0);
    EXPECT_EQ(gatheredChannels(whole), std::vector<std::vector<int32_t>>{kShuffled});
    // A network output keeps the whole permutation as well as each half's.
    kiln::plan::PlanModel const observed = cudaPlanOf(shuffleUnit(weights, Ending::kSPLIT_AND_OUTPUT));
    EXPECT_EQ(layersOfKind(observed, LayerType::kGATHER), 3);
    EXPECT_EQ(layersOfKind(observed, LayerType::kSLICE), 0);
    // In FP16 that output is stored in FP32, converted as the gather writes it, and the slices read it converted back:
    // they stay slices of it.
    kiln::plan::PlanModel const converted
        = cudaPlanOf(shuffleUnit(weights, Ending::kSPLIT_AND_OUTPUT), true, alwaysChannelsLast);
    EXPECT_EQ(layersOfKind(converted, LayerType::kSHUFFLE), 0);
    EXPECT_EQ(gatheredChannels(converted), std::vector<std::vector<int32_t>>{kShuffled});
    EXPECT_EQ(layersOfKind(converted, LayerType::kSLICE), 2);
}

TEST(ChannelShuffle, ABatchKnownOnlyAtRunTimeStillGathers)
{
    // The reshapes copy the batch (0), so their extents past it are constants whatever the batch is.
    auto const weights = std::make_shared<std::vector<std::vector<float>>>();
    NetworkMaker const maker = shuffleUnit(weights, Ending::kWHOLE, Dims{4, {-1, 4, 3, 5}});
    RecordingLogger logger;
    std::unique_ptr<IBuilder> builder(createInferBuilder(logger));
    std::unique_ptr<INetworkDefinition> network(builder->createNetworkV2(0));
    maker(*network);
    std::unique_ptr<IBuilderConfig> config(builder->createBuilderConfig());
    kiln::setBackend(*config, kiln::Backend::kCUDA);
    config->setFlag(BuilderFlag::kFP16);
    alwaysChannelsLast(*config);
    IOptimizationProfile* profile = builder->createOptimizationProfile();
    profile->setDimensions("x", OptProfileSelector::kMIN, Dims{4, {1, 4, 3, 5}});
    profile->setDimensions("x", OptProfileSelector::kOPT, Dims{4, {2, 4, 3, 5}});
    profile->setDimensions("x", OptProfileSelector::kMAX, Dims{4, {8, 4, 3, 5}});
    config->addOptimizationProfile(profile);
    std::unique_ptr<IHostMemory> const plan(builder->buildSerializedNetwork(*network, *config));
    ASSERT_NE(plan, nullptr) << logger.errors();
    kiln::plan::PlanModel model;
    std::string error;
    ASSERT_TRUE(kiln::plan::readPlan(plan->data(), plan->size(), model, error)) << error;
    EXPECT_EQ(layersOfKind(model, LayerType::kSHUFFLE), 0);
    EXPECT_EQ(gatheredChannels(model), std::vector<std::vector<int32_t>>{kShuffled});
}

TEST(ChannelShuffle, ATransposeOfTheSpatialAxesIsNoChannelPermutation)
{
    // [N, C, 5, 5] with its rows and columns exchanged has the input's shape, but moves elements between positions.
    NetworkMaker const maker = [](INetworkDefinition& network) {
        ITensor* x = network.addInput("x", DataType::kFLOAT, Dims{4, {2, 3, 5, 5}});
        IShuffleLayer* transpose = network.addShuffle(*x);
        transpose->setFirstTranspose(Permutation{{0, 1, 3, 2}});
        transpose->getOutput(0)->setName("y");
        network.markOutput(*transpose->getOutput(0));
    };
    kiln::plan::PlanModel const model = cudaPlanOf(maker);
    EXPECT_EQ(layersOfKind(model, LayerType::kSHUFFLE), 1);
    EXPECT_EQ(layersOfKind(model, LayerType::kGATHER), 0);
}

//! One chain of shuffles on x [2, 12, 3, 4]: each step's reshape (none where nbDims is -1) and first transpose.
struct ShuffleStepSpec
{
    Dims reshape;
    Permutation transpose;
};

//! x through `steps`, the result marked as the output y.
NetworkMaker shuffleChain(std::vector<ShuffleStepSpec> const& steps)
{
    return [steps](INetworkDefinition& network) {
        ITensor* t = network.addInput("x", DataType::kFLOAT, Dims{4, {2, 12, 3, 4}});
        for (ShuffleStepSpec const& step : steps)
        {
            IShuffleLayer* shuffle = network.addShuffle(*t);
            shuffle->setFirstTranspose(step.transpose);
            if (step.reshape.nbDims >= 0)
            {
                shuffle->setReshapeDimensions(step.reshape);
            }
            t = shuffle->getOutput(0);
        }
        t->setName("y");
        network.markOutput(*t);
    };
}

TEST(ChannelShuffle, EachGatherTakesTheChannelsTheCpuReferenceShuffles)
{
    // The CPU reference runs the shuffles themselves (the pass is the CUDA backend's), on x[n, c, h, w] = 100 c + 10 h
    // + w: where the CUDA plan gathers instead, output channel j must be input channel indices[j] at every position.
    Permutation const keep{{0, 1, 2, 3, 4}};
    Permutation const swap12{{0, 2, 1, 3, 4}};
    Permutation const swap12of4{{0, 2, 1, 3}};
    Dims const unchanged{-1, {}};
    std::vector<std::pair<std::string, std::vector<ShuffleStepSpec>>> const chains{
        {"2 groups", {{Dims{5, {0, 2, 6, 3, 4}}, keep}, {unchanged, swap12}, {Dims{4, {0, 12, 3, 4}}, keep}}},
        {"3 groups", {{Dims{5, {0, 3, 4, 3, 4}}, keep}, {unchanged, swap12}, {Dims{4, {0, 12, 3, 4}}, keep}}},
        {"4 groups, transposed as it is reshaped",
            {{Dims{5, {0, 4, 3, 3, 4}}, keep}, {Dims{4, {0, 12, 3, 4}}, swap12}}},
        {"2 groups of the flattened image",
            {{Dims{4, {0, 2, 6, 12}}, Permutation{{0, 1, 2, 3}}}, {unchanged, swap12of4},
                {Dims{4, {0, 12, 3, 4}}, keep}}},
        {"rows and columns of each channel exchanged",
            {{Dims{4, {0, 12, 4, 3}}, Permutation{{0, 1, 3, 2}}}, {Dims{4, {0, 12, 3, 4}}, keep}}},
    };
    std::vector<float> values;
    for (int64_t n = 0; n < 2; ++n)
    {
        for (int64_t c = 0; c < 12; ++c)
        {
            for (int64_t p = 0; p < 12; ++p)
            {
                values.push_back(static_cast<float>(100 * c + 10 * (p / 4) + p % 4));
            }
        }
    }
    std::map<std::string, HostTensor> const x{{"x", fromFloats({2, 12, 3, 4}, values)}};
    size_t gathered = 0;
    for (auto const& [what, steps] : chains)
    {
        SCOPED_TRACE(what);
        std::vector<float> const shuffled = runOn(kiln::Backend::kCPU, shuffleChain(steps), x).at("y").floats();
        std::vector<std::vector<int32_t>> const channels = gatheredChannels(cudaPlanOf(shuffleChain(steps)));
        if (channels.empty())
        {
            // Left as shuffles: then no channel permutation does what they do.
            bool permutes = true;
            for (size_t i = 0; i < shuffled.size(); ++i)
            {
                permutes = permutes && static_cast<int64_t>(shuffled[i]) % 100 == static_cast<int64_t>(values[i]) % 100;
            }
            EXPECT_FALSE(permutes) << "a channel permutation stayed shuffles";
            continue;
        }
        ++gathered;
        ASSERT_EQ(channels.size(), 1U);
        for (size_t i = 0; i < shuffled.size(); ++i)
        {
            size_t const j = i / 12 % 12;
            ASSERT_EQ(shuffled[i], values[i] + 100.0F * static_cast<float>(channels[0][j] - static_cast<int32_t>(j)))
                << "element " << i;
        }
    }
    EXPECT_EQ(gathered, 4U); // the four shuffles of channel groups; not the transpose of rows and columns
}

TEST(ChannelShuffle, AChainOverMoreThanItFollowsStaysAsItIs)
{
    // Proving a chain a permutation follows each element of a batch item; past 2^21 of them the build leaves it.
    NetworkMaker const maker = [](INetworkDefinition& network) {
        ITensor* x = network.addInput("x", DataType::kFLOAT, Dims{4, {1, 4, 1024, 1024}});
        IShuffleLayer* split = network.addShuffle(*x);
        split->setReshapeDimensions(Dims{5, {0, 2, 2, 1024, 1024}});
        IShuffleLayer* transpose = network.addShuffle(*split->getOutput(0));
        transpose->setFirstTranspose(Permutation{{0, 2, 1, 3, 4}});
        IShuffleLayer* merge = network.addShuffle(*transpose->getOutput(0));
        merge->setReshapeDimensions(Dims{4, {0, 4, 1024, 1024}});
        merge->getOutput(0)->setName("y");
        network.markOutput(*merge->getOutput(0));
    };
    kiln::plan::PlanModel const model = cudaPlanOf(maker);
    EXPECT_EQ(layersOfKind(model, LayerType::kGATHER), 0);
    EXPECT_EQ(layersOfKind(model, LayerType::kSHUFFLE), 3);
}

TEST(ChannelShuffle, AgreesWithTheCpu)
{
    SKIP_WITHOUT_GPU();
    auto const weights = std::make_shared<std::vector<std::vector<float>>>();
    std::map<std::string, HostTensor> const x{{"x", fromFloats({2, 4, 3, 5}, spread(2 * 4 * 3 * 5, -2.0F, 2.0F))}};
    for (Ending ending : {Ending::kSPLIT, Ending::kSPLIT_AND_OUTPUT, Ending::kWHOLE})
    {
        std::string const what = "ending " + std::to_string(static_cast<int32_t>(ending));
        expectBackendsAgree(shuffleUnit(weights, ending), x, false, what + ", fp32");
        expectBackendsAgree(shuffleUnit(weights, ending), x, true, what + ", fp16, channels last", alwaysChannelsLast);
    }
}

} // namespace
