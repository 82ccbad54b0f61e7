// Repeated layers (src/builder/repeated_layers.h): a layer computing what an earlier one computes, from the same
// inputs with the same parameters, is left out of the plan and its readers read the earlier one's output. Checked by
// the plan's layers (the inspector) and by outputs worked out by hand: an attention mask that every block builds alike
// from its own constants is built once; layers that differ, and layers whose output the application sees, stay.
#include "../layers/layer_harness.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <vector>

namespace
{

using namespace nvinfer1;
using kiln::test::floatWeights;
using kiln::test::LayerHarness;
using nlohmann::json;

//! "name [type]" for each layer of the plan, in order.
std::vector<std::string> layerNames(LayerHarness const& h)
{
    std::unique_ptr<IEngineInspector> inspector(h.engine->createEngineInspector());
    json const information = json::parse(inspector->getEngineInformation(LayerInformationFormat::kJSON));
    std::vector<std::string> names;
    for (json const& layer : information["Layers"])
    {
        names.push_back(layer["Name"].get<std::string>() + " [" + layer["LayerType"].get<std::string>() + "]");
    }
    return names;
}

template <typename Layer>
Layer* named(Layer* layer, std::string const& name)
{
    EXPECT_NE(layer, nullptr);
    layer->setName(name.c_str());
    return layer;
}

//! Three blocks, each with its own constants 0 and -100 and its own Select of them by the same mask, added to the
//! running sum: y = x + 3 * (m ? 0 : -100). `scalars`: the constants are one-value vectors reshaped to the mask's
//! rank, as ONNX exports hold them (shape inference then tracks their values as shape values), else 1x1 matrices.
void buildMaskBlocks(LayerHarness& h, bool scalars)
{
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{2, {2, 3}});
    ITensor* m = h.network->addInput("m", DataType::kBOOL, Dims{2, {2, 3}});
    auto const constant = [&](float value, std::string const& name) {
        std::vector<float> const values{value};
        ITensor* held
            = named(h.network->addConstant(scalars ? Dims{1, {1}} : Dims{2, {1, 1}}, floatWeights(values)), name)
                  ->getOutput(0);
        if (!scalars)
        {
            return held;
        }
        IShuffleLayer* reshape = named(h.network->addShuffle(*held), name + " reshaped");
        reshape->setReshapeDimensions(Dims{2, {1, 1}});
        return reshape->getOutput(0);
    };
    ITensor* sum = x;
    for (int block = 0; block < 3; ++block)
    {
        std::string const n = std::to_string(block);
        ITensor* keep = constant(0.0F, "zero " + n);
        ITensor* drop = constant(-100.0F, "minus " + n);
        ITensor* mask = named(h.network->addSelect(*m, *keep, *drop), "mask " + n)->getOutput(0);
        IElementWiseLayer* add = named(h.network->addElementWise(*sum, *mask, ElementWiseOperation::kSUM), "add " + n);
        sum = add->getOutput(0);
        if (block == 2)
        {
            h.output(add, "y");
        }
    }
}

//! Runs the mask blocks on a fixed x and m and checks y.
void expectMaskBlocksCompute(LayerHarness& h)
{
    std::vector<float> const xs{1.0F, 2.0F, 3.0F, 4.0F, 5.0F, 6.0F};
    bool const ms[6]{true, false, true, false, false, true};
    std::vector<float> y(6, 0.0F);
    ASSERT_TRUE(h.run({{"x", xs.data()}, {"m", ms}}, {{"y", y.data()}}));
    EXPECT_EQ(y, (std::vector<float>{1.0F, -298.0F, 3.0F, -296.0F, -295.0F, 6.0F}));
}

TEST(RepeatedLayers, AMaskEveryLayerBuildsAlikeIsBuiltOnce)
{
    LayerHarness h;
    buildMaskBlocks(h, false);
    ASSERT_TRUE(h.build());
    // One Select and its two constants are left (the sums, each reading the one before, become one chain).
    EXPECT_EQ(layerNames(h),
        (std::vector<std::string>{
            "zero 0 [Constant]", "minus 0 [Constant]", "mask 0 [Select]", "add 0 + add 1 + add 2 [PointWise]"}));
    expectMaskBlocksCompute(h);
}

TEST(RepeatedLayers, AMaskOfScalarsThatShapeInferenceKnowsIsBuiltOnce)
{
    LayerHarness h;
    buildMaskBlocks(h, true);
    ASSERT_TRUE(h.build());
    // Constant folding made each reshaped scalar a constant of its own; they and the Selects merge as above.
    EXPECT_EQ(layerNames(h),
        (std::vector<std::string>{"folded: zero 0 reshaped [Constant]", "folded: minus 0 reshaped [Constant]",
            "mask 0 [Select]", "add 0 + add 1 + add 2 [PointWise]"}));
    expectMaskBlocksCompute(h);
}

TEST(RepeatedLayers, LayersThatDifferOrThatTheApplicationSeesStay)
{
    // relu(x) three times: the second is the network output "seen", so it stays; the third merges into the first.
    // x * 2 and x * 3 differ in their constants' values, so both stay.
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{1, {4}});
    ITensor* first = named(h.network->addActivation(*x, ActivationType::kRELU), "relu 0")->getOutput(0);
    h.output(named(h.network->addActivation(*x, ActivationType::kRELU), "relu 1"), "seen");
    ITensor* third = named(h.network->addActivation(*x, ActivationType::kRELU), "relu 2")->getOutput(0);
    std::vector<float> const two{2.0F};
    std::vector<float> const three{3.0F};
    ITensor* twos = named(h.network->addConstant(Dims{1, {1}}, floatWeights(two)), "two")->getOutput(0);
    ITensor* threes = named(h.network->addConstant(Dims{1, {1}}, floatWeights(three)), "three")->getOutput(0);
    ITensor* doubled
        = named(h.network->addElementWise(*first, *twos, ElementWiseOperation::kPROD), "double")->getOutput(0);
    ITensor* tripled
        = named(h.network->addElementWise(*third, *threes, ElementWiseOperation::kPROD), "triple")->getOutput(0);
    h.output(named(h.network->addElementWise(*doubled, *tripled, ElementWiseOperation::kSUM), "sum"), "y");
    ASSERT_TRUE(h.build());
    // relu 2 is gone: the chain that multiplies reads relu 0's values twice.
    EXPECT_EQ(layerNames(h),
        (std::vector<std::string>{"relu 1 [Activation]", "two [Constant]", "three [Constant]",
            "relu 0 + double + triple + sum [PointWise]"}));

    std::vector<float> const xs{-1.0F, 0.5F, 2.0F, -3.0F};
    std::vector<float> seen(4, 0.0F);
    std::vector<float> y(4, 0.0F);
    ASSERT_TRUE(h.run({{"x", xs.data()}}, {{"seen", seen.data()}, {"y", y.data()}}));
    EXPECT_EQ(seen, (std::vector<float>{0.0F, 0.5F, 2.0F, 0.0F}));
    EXPECT_EQ(y, (std::vector<float>{0.0F, 2.5F, 10.0F, 0.0F})); // relu(x) * 5
}

} // namespace
