// The fast path's shuffle against the reference kernel: ONNX's Transpose in 2-D to 5-D, the key transposed for
// Q K^T, a transformer's heads split (reshape, then transpose) and merged (transpose, then reshape), a reshape alone,
// dynamic shapes; two transposes around a reshape, and dimensions from a shape tensor, stay on the reference.
#include "fast_path_comparison.h"
#include "layer_helpers.h"

namespace kiln::test
{
namespace
{

struct ShuffleCase
{
    char const* name;
    Shape input;
    std::vector<int32_t> first; //!< empty: none
    Shape reshape;              //!< empty: none
    std::vector<int32_t> second;
    bool fast{true};
};

void PrintTo(ShuffleCase const& c, std::ostream* os)
{
    *os << c.name;
}

Permutation permutationOf(std::vector<int32_t> const& order)
{
    Permutation permutation{};
    for (int32_t axis = 0; axis < Dims::MAX_DIMS; ++axis)
    {
        permutation.order[axis] = static_cast<size_t>(axis) < order.size() ? order[static_cast<size_t>(axis)] : axis;
    }
    return permutation;
}

NetworkMaker shuffleOf(ShuffleCase const& c, Shape const& declared = {})
{
    return [c, declared](INetworkDefinition& network) {
        ITensor* x = network.addInput("x", DataType::kFLOAT, dimsOf(declared.empty() ? c.input : declared));
        IShuffleLayer* layer = network.addShuffle(*x);
        layer->setFirstTranspose(permutationOf(c.first));
        if (!c.reshape.empty())
        {
            layer->setReshapeDimensions(dimsOf(c.reshape));
        }
        layer->setSecondTranspose(permutationOf(c.second));
        layer->setName("shuffle");
        markOutput(network, *layer->getOutput(0));
    };
}

class FastShuffle : public testing::TestWithParam<ShuffleCase>
{
};

TEST_P(FastShuffle, MatchesTheReferenceKernel)
{
    ShuffleCase const& c = GetParam();
    std::map<std::string, bool> const layers
        = expectFastMatchesReference(shuffleOf(c), {{{"x", randomTensor(c.input, 1)}}}, 0.0);
    EXPECT_EQ(layers, (std::map<std::string, bool>{{"shuffle", c.fast}}));
}

INSTANTIATE_TEST_SUITE_P(Shapes, FastShuffle,
    testing::Values(ShuffleCase{"Transpose", {5, 7}, {1, 0}, {}, {}},
        ShuffleCase{"OnnxTransposeFourDimensional", {2, 3, 4, 5}, {0, 2, 3, 1}, {}, {}},
        ShuffleCase{"KeyTransposed", {2, 4, 10, 8}, {0, 1, 3, 2}, {}, {}},
        ShuffleCase{"SplitHeads", {2, 10, 32}, {}, {2, 10, 4, 8}, {0, 2, 1, 3}},
        ShuffleCase{"MergeHeads", {2, 4, 10, 8}, {0, 2, 1, 3}, {2, 10, 32}, {}},
        ShuffleCase{"ReshapeAlone", {6, 10}, {}, {3, 4, 5}, {}},
        ShuffleCase{"ReshapeThenRotate", {6, 4}, {}, {2, 3, 4}, {2, 0, 1}},
        ShuffleCase{"FiveDimensional", {2, 3, 4, 5, 6}, {4, 0, 3, 1, 2}, {}, {}},
        ShuffleCase{"OddSizes", {7, 13, 3}, {2, 0, 1}, {}, {}},
        // ShuffleNetV2's channel shuffle at its first stage: more elements than one thread takes (kParallelElements).
        ShuffleCase{"ChannelShuffleOfManyElements", {1, 116, 28, 28}, {}, {1, 2, 58, 28, 28}, {0, 2, 1, 3, 4}},
        ShuffleCase{"TransposeThenReshapeThenTranspose", {2, 3, 4}, {1, 0, 2}, {3, 8}, {1, 0}, false}),
    [](testing::TestParamInfo<ShuffleCase> const& testInfo) { return std::string(testInfo.param.name); });

TEST(FastShuffleFallback, DimensionsFromAShapeTensorRunOnTheReference)
{
    std::vector<int32_t> const dims{3, 4, 5};
    auto maker = [&](INetworkDefinition& network) {
        ITensor* x = network.addInput("x", DataType::kFLOAT, Dims2{6, 10});
        IConstantLayer* target = network.addConstant(Dims{1, {3}}, Weights{DataType::kINT32, dims.data(), 3});
        IShuffleLayer* layer = network.addShuffle(*x);
        layer->setInput(1, *target->getOutput(0));
        layer->setName("shuffle");
        markOutput(network, *layer->getOutput(0));
    };
    std::map<std::string, bool> const layers
        = expectFastMatchesReference(maker, {{{"x", randomTensor({6, 10}, 2)}}}, 0.0);
    EXPECT_EQ(layersNamed(layers, {"shuffle"}), (std::map<std::string, bool>{{"shuffle", false}}));
}

TEST(FastShuffleShapes, EachShapeOfAProfileRunsAndRunsAgain)
{
    // Heads split from a batch and sequence that change between runs.
    ShuffleCase const split{"Split", {-1, -1, 32}, {}, {0, 0, 4, 8}, {0, 2, 1, 3}};
    auto profile = [](IBuilder& builder, IBuilderConfig& config) {
        IOptimizationProfile* shapes = builder.createOptimizationProfile();
        shapes->setDimensions("x", OptProfileSelector::kMIN, Dims3{1, 1, 32});
        shapes->setDimensions("x", OptProfileSelector::kOPT, Dims3{2, 10, 32});
        shapes->setDimensions("x", OptProfileSelector::kMAX, Dims3{4, 64, 32});
        config.addOptimizationProfile(shapes);
    };
    std::vector<Tensors> const runs{{{"x", randomTensor({2, 10, 32}, 3)}}, {{"x", randomTensor({4, 64, 32}, 4)}},
        {{"x", randomTensor({1, 1, 32}, 5)}}, {{"x", randomTensor({2, 10, 32}, 6)}}};
    EXPECT_EQ(expectFastMatchesReference(shuffleOf(split), runs, 0.0, profile),
        (std::map<std::string, bool>{{"shuffle", true}}));
}

} // namespace
} // namespace kiln::test
