// Constant folding (src/builder/constant_folding.h): layers that read only constants are computed when the plan is
// built and stored as constants. Each network is checked against hand-computed values and against the same network
// with its constants given as inputs instead (which nothing folds, so its layers run one by one at inference), and
// the inspector says which layers the plan kept: chains fold into one constant named after the last layer, network
// outputs keep their names, FP16 plans fold in the precision the builder chose, plugins and large broadcasts stay.
#include "../layers/layer_harness.h"
#include "resource_probe_plugin.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace
{

using namespace nvinfer1;
using kiln::test::floatWeights;
using kiln::test::LayerHarness;
using nlohmann::json;

//! The plan's layers, as the inspector describes them.
json layersOf(LayerHarness const& h)
{
    std::unique_ptr<IEngineInspector> inspector(h.engine->createEngineInspector());
    return json::parse(inspector->getEngineInformation(LayerInformationFormat::kJSON))["Layers"];
}

//! "name [type]" for each layer of the plan, in order.
std::vector<std::string> layerNames(LayerHarness const& h)
{
    std::vector<std::string> names;
    for (json const& layer : layersOf(h))
    {
        names.push_back(layer["Name"].get<std::string>() + " [" + layer["LayerType"].get<std::string>() + "]");
    }
    return names;
}

ILayer* named(ILayer* layer, char const* name)
{
    EXPECT_NE(layer, nullptr);
    if (layer != nullptr)
    {
        layer->setName(name);
    }
    return layer;
}

//! A constant, or (`asInput`) a network input of the same type and shape, which no build folds.
ITensor* constantOrInput(LayerHarness& h, bool asInput, char const* name, Dims const& dims, Weights const& weights)
{
    if (asInput)
    {
        return h.network->addInput(name, weights.type, dims);
    }
    return named(h.network->addConstant(dims, weights), name)->getOutput(0);
}

//! Runs `h` on x, and on the constant's `values` as the input `name` where the network takes them as one; y, which
//! has x's element count.
std::vector<float> runWith(
    LayerHarness& h, std::vector<float> const& x, bool asInput, char const* name, void const* values)
{
    std::vector<float> y(x.size(), 0.0F);
    std::map<std::string, void const*> inputs{{"x", x.data()}};
    if (asInput)
    {
        inputs[name] = values;
    }
    EXPECT_TRUE(h.run(inputs, {{"y", y.data()}}));
    return y;
}

//! y = x + reshape(float(c), [1, 3]) * 2 with x FP32 [2, 3] and c INT32 [3] = {1, 2, 3}: a cast, a reshape and a
//! product that read only constants, then a sum that reads the input.
struct CastReshapeDouble
{
    std::vector<int32_t> c{1, 2, 3};
    std::vector<float> two{2.0F};
    bool asInputs;
    LayerHarness h;

    explicit CastReshapeDouble(bool constantsAsInputs)
        : asInputs(constantsAsInputs)
    {
        ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{2, {2, 3}});
        ITensor* values
            = constantOrInput(h, constantsAsInputs, "c", Dims{1, {3}}, Weights{DataType::kINT32, c.data(), 3});
        ITensor* floats = named(h.network->addCast(*values, DataType::kFLOAT), "cast")->getOutput(0);
        IShuffleLayer* reshape = h.network->addShuffle(*floats);
        reshape->setReshapeDimensions(Dims{2, {1, 3}});
        named(reshape, "reshape");
        ITensor* twos = named(h.network->addConstant(Dims{2, {1, 1}}, floatWeights(two)), "two")->getOutput(0);
        ITensor* doubled
            = named(h.network->addElementWise(*reshape->getOutput(0), *twos, ElementWiseOperation::kPROD), "double")
                  ->getOutput(0);
        h.output(named(h.network->addElementWise(*x, *doubled, ElementWiseOperation::kSUM), "add"), "y");
    }

    std::vector<float> run(std::vector<float> const& x)
    {
        return runWith(h, x, asInputs, "c", c.data());
    }
};

TEST(ConstantFolding, AChainOfLayersReadingConstantsBecomesOneConstant)
{
    CastReshapeDouble folded(false);
    ASSERT_TRUE(folded.h.build());
    // c, two, cast, reshape and double are one constant now; the sum reads the input, so it runs.
    EXPECT_EQ(layerNames(folded.h), (std::vector<std::string>{"folded: double [Constant]", "add [ElementWise]"}));
    std::vector<float> const x{0.5F, -1.0F, 2.0F, 10.0F, 20.0F, 30.0F};
    std::vector<float> const y = folded.run(x);
    EXPECT_EQ(y, (std::vector<float>{2.5F, 3.0F, 8.0F, 12.0F, 24.0F, 36.0F})); // x + {2, 4, 6}, exact

    CastReshapeDouble unfolded(true);
    ASSERT_TRUE(unfolded.h.build());
    EXPECT_EQ(layerNames(unfolded.h),
        (std::vector<std::string>{
            "cast [Cast]", "reshape [Shuffle]", "two [Constant]", "double [ElementWise]", "add [ElementWise]"}));
    EXPECT_EQ(unfolded.run(x), y);
}

TEST(ConstantFolding, ANetworkOutputMadeOfConstantsKeepsItsNameAndValues)
{
    std::vector<float> const k{1.0F, -2.0F, 3.0F};
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{1, {3}});
    ITensor* constant = named(h.network->addConstant(Dims{1, {3}}, floatWeights(k)), "k")->getOutput(0);
    h.output(named(h.network->addUnary(*constant, UnaryOperation::kABS), "abs"), "k_abs");
    h.output(named(h.network->addElementWise(*x, *constant, ElementWiseOperation::kSUM), "add"), "y");
    ASSERT_TRUE(h.build());
    // k is still read by the sum, so it stays beside the folded output.
    EXPECT_EQ(layerNames(h), (std::vector<std::string>{"k [Constant]", "folded: abs [Constant]", "add [ElementWise]"}));
    ASSERT_EQ(h.engine->getNbIOTensors(), 3);
    EXPECT_EQ(h.engine->getTensorIOMode("k_abs"), TensorIOMode::kOUTPUT);
    EXPECT_EQ(h.shapeOf("k_abs"), (std::vector<int64_t>{3}));
    std::vector<float> const in{10.0F, 20.0F, 30.0F};
    std::vector<float> magnitudes(3, 0.0F);
    std::vector<float> y(3, 0.0F);
    ASSERT_TRUE(h.run({{"x", in.data()}}, {{"k_abs", magnitudes.data()}, {"y", y.data()}}));
    EXPECT_EQ(magnitudes, (std::vector<float>{1.0F, 2.0F, 3.0F}));
    EXPECT_EQ(y, (std::vector<float>{11.0F, 18.0F, 33.0F}));
}

TEST(ConstantFolding, AScatterOfConstantsFolds)
{
    // As Swin's shifted-window mask is made: zeros that a kND scatter fills at picked coordinates, then added to x.
    std::vector<float> const zeros(8, 0.0F);
    std::vector<int32_t> const indices{0, 1, 1, 3};
    std::vector<float> const updates{5.0F, 7.0F};
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{2, {2, 4}});
    ITensor* data = named(h.network->addConstant(Dims{2, {2, 4}}, floatWeights(zeros)), "zeros")->getOutput(0);
    ITensor* picked
        = named(h.network->addConstant(Dims{2, {2, 2}}, Weights{DataType::kINT32, indices.data(), 4}), "indices")
              ->getOutput(0);
    ITensor* values = named(h.network->addConstant(Dims{1, {2}}, floatWeights(updates)), "updates")->getOutput(0);
    ITensor* mask = named(h.network->addScatter(*data, *picked, *values, ScatterMode::kND), "scatter")->getOutput(0);
    h.output(named(h.network->addElementWise(*x, *mask, ElementWiseOperation::kSUM), "add"), "y");
    ASSERT_TRUE(h.build());
    EXPECT_EQ(layerNames(h), (std::vector<std::string>{"folded: scatter [Constant]", "add [ElementWise]"}));
    std::vector<float> const in{1.0F, 2.0F, 3.0F, 4.0F, 5.0F, 6.0F, 7.0F, 8.0F};
    std::vector<float> y(8, 0.0F);
    ASSERT_TRUE(h.run({{"x", in.data()}}, {{"y", y.data()}}));
    EXPECT_EQ(y, (std::vector<float>{1.0F, 7.0F, 3.0F, 4.0F, 5.0F, 6.0F, 7.0F, 15.0F})); // 5 at [0, 1], 7 at [1, 3]
}

TEST(ConstantFolding, AFoldedShapeTensorStillShapesItsReader)
{
    std::vector<int32_t> const rows{2};
    std::vector<int32_t> const columns{3};
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{1, {6}});
    ITensor* parts[]
        = {named(h.network->addConstant(Dims{1, {1}}, Weights{DataType::kINT32, rows.data(), 1}), "rows")->getOutput(0),
            named(h.network->addConstant(Dims{1, {1}}, Weights{DataType::kINT32, columns.data(), 1}), "columns")
                ->getOutput(0)};
    ITensor* dims = named(h.network->addConcatenation(parts, 2), "dims")->getOutput(0);
    IShuffleLayer* reshape = h.network->addShuffle(*x);
    reshape->setInput(1, *dims);
    h.output(named(reshape, "reshape"), "y");
    ASSERT_TRUE(h.build());
    EXPECT_EQ(layerNames(h), (std::vector<std::string>{"folded: dims [Constant]", "reshape [Shuffle]"}));
    EXPECT_EQ(h.shapeOf("y"), (std::vector<int64_t>{2, 3}));
    std::vector<float> const in{1.0F, 2.0F, 3.0F, 4.0F, 5.0F, 6.0F};
    std::vector<float> y(6, 0.0F);
    ASSERT_TRUE(h.run({{"x", in.data()}}, {{"y", y.data()}}));
    EXPECT_EQ(y, in);
}

TEST(ConstantFolding, AScaleComputedFromAStaticExtentOfADynamicTensorFolds)
{
    // As exports compute an attention's scale: 1 / sqrt(float(shape(x)[-1])), where x's batch is dynamic but its
    // last extent is 4 in every profile. The shape's other values are not constants, so the Shape layer stays
    // (as an expression only), and the slice of it that is constant starts a chain that folds into one constant.
    std::vector<int64_t> const starts{2};
    std::vector<int64_t> const sizes{1};
    std::vector<float> const one{1.0F};
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{3, {-1, 2, 4}});
    ITensor* shape = named(h.network->addShape(*x), "shape")->getOutput(0);
    ISliceLayer* last = h.network->addSlice(*shape, Dims{1, {2}}, Dims{1, {1}}, Dims{1, {1}});
    named(last, "last extent");
    ITensor* depth = named(h.network->addCast(*last->getOutput(0), DataType::kFLOAT), "depth")->getOutput(0);
    ITensor* root = named(h.network->addUnary(*depth, UnaryOperation::kSQRT), "root")->getOutput(0);
    ITensor* ones = named(h.network->addConstant(Dims{1, {1}}, floatWeights(one)), "one")->getOutput(0);
    ITensor* scale = named(h.network->addElementWise(*ones, *root, ElementWiseOperation::kDIV), "scale")->getOutput(0);
    IShuffleLayer* scalar = h.network->addShuffle(*scale);
    scalar->setReshapeDimensions(Dims{3, {1, 1, 1}});
    h.output(named(h.network->addElementWise(*x, *named(scalar, "as 3-D")->getOutput(0), ElementWiseOperation::kPROD),
                 "scaled"),
        "y");
    h.setProfile("x", Dims{3, {1, 2, 4}}, Dims{3, {2, 2, 4}}, Dims{3, {3, 2, 4}});
    ASSERT_TRUE(h.build());
    std::vector<std::string> const names = layerNames(h);
    EXPECT_EQ(names.back(), "scaled [ElementWise]");
    for (std::string const& name : names)
    {
        EXPECT_TRUE(name == "scaled [ElementWise]" || name == "shape [Shape]" || name.rfind("folded: ", 0) == 0)
            << name << " runs, where every layer between the shape and the product should fold";
    }
    ASSERT_TRUE(h.context->setInputShape("x", Dims{3, {3, 2, 4}}));
    std::vector<float> x24(24);
    for (size_t i = 0; i < x24.size(); ++i)
    {
        x24[i] = static_cast<float>(i) - 6.0F;
    }
    std::vector<float> y(24, 0.0F);
    ASSERT_TRUE(h.run({{"x", x24.data()}}, {{"y", y.data()}}));
    for (size_t i = 0; i < y.size(); ++i)
    {
        EXPECT_FLOAT_EQ(y[i], x24[i] * 0.5F) << i; // 1 / sqrt(4)
    }
}

TEST(ConstantFolding, AnExtentEveryProfilePinsFoldsItsShapeArithmetic)
{
    // y = x * float(shape(x)[0]) with x [-1, 4]. Where the only profile pins the batch to 3 (min == max, as trtexec's
    // --shapes builds), an engine only ever runs at 3: the Shape, the Slice and the Cast fold. Where the profile
    // lets the batch vary they stay, and compute the batch of each run.
    for (bool pinned : {true, false})
    {
        LayerHarness h;
        ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{2, {-1, 4}});
        ITensor* shape = named(h.network->addShape(*x), "shape")->getOutput(0);
        ISliceLayer* first = h.network->addSlice(*shape, Dims{1, {0}}, Dims{1, {1}}, Dims{1, {1}});
        named(first, "batch");
        ITensor* batch = named(h.network->addCast(*first->getOutput(0), DataType::kFLOAT), "as float")->getOutput(0);
        IShuffleLayer* column = h.network->addShuffle(*batch);
        column->setReshapeDimensions(Dims{2, {1, 1}});
        h.output(
            named(h.network->addElementWise(*x, *named(column, "as 2-D")->getOutput(0), ElementWiseOperation::kPROD),
                "scaled"),
            "y");
        h.setProfile("x", Dims{2, {pinned ? 3 : 1, 4}}, Dims{2, {3, 4}}, Dims{2, {pinned ? 3 : 5, 4}});
        ASSERT_TRUE(h.build());
        std::vector<std::string> const names = layerNames(h);
        bool const shapeRuns = std::find(names.begin(), names.end(), "shape [Shape]") != names.end();
        EXPECT_EQ(shapeRuns, !pinned) << (pinned ? "pinned" : "free");
        if (pinned)
        {
            EXPECT_EQ(names, (std::vector<std::string>{"folded: as 2-D [Constant]", "scaled [ElementWise]"}));
        }
        ASSERT_TRUE(h.context->setInputShape("x", Dims{2, {3, 4}}));
        std::vector<float> xs(12);
        for (size_t i = 0; i < xs.size(); ++i)
        {
            xs[i] = static_cast<float>(i) - 5.0F;
        }
        std::vector<float> y(12, 0.0F);
        ASSERT_TRUE(h.run({{"x", xs.data()}}, {{"y", y.data()}}));
        for (size_t i = 0; i < y.size(); ++i)
        {
            EXPECT_EQ(y[i], 3.0F * xs[i]) << i;
        }
    }
}

//! y = x + a * 3 with x FP32 [3] and a FP32 [3] = {0.1, 1/3, 1000.7}, where kFP16 lets the layers compute in half.
struct ScaledSum
{
    std::vector<float> a{0.1F, 1.0F / 3.0F, 1000.7F};
    std::vector<float> three{3.0F};
    bool asInputs;
    LayerHarness h;

    ScaledSum(bool fp16, bool constantsAsInputs)
        : asInputs(constantsAsInputs)
    {
        ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{1, {3}});
        ITensor* values = constantOrInput(h, constantsAsInputs, "a", Dims{1, {3}}, floatWeights(a));
        ITensor* threes = named(h.network->addConstant(Dims{1, {1}}, floatWeights(three)), "three")->getOutput(0);
        ITensor* scaled
            = named(h.network->addElementWise(*values, *threes, ElementWiseOperation::kPROD), "scale")->getOutput(0);
        h.output(named(h.network->addElementWise(*x, *scaled, ElementWiseOperation::kSUM), "add"), "y");
        if (fp16)
        {
            h.config->setFlag(BuilderFlag::kFP16);
        }
    }

    std::vector<float> run()
    {
        return runWith(h, {1.0F, 2.0F, -1000.0F}, asInputs, "a", a.data());
    }
};

TEST(ConstantFolding, Fp16PlansFoldInTheLayersPrecision)
{
    ScaledSum folded(true, false);
    ASSERT_TRUE(folded.h.build());
    json const layers = layersOf(folded.h);
    ASSERT_EQ(layers.size(), 2U);
    EXPECT_EQ(layers[0]["Name"], "folded: scale");
    // The product computed in half is stored in half, as the tensor is in the plan; the sum reads it so.
    EXPECT_EQ(layers[0]["Outputs"][0]["Format/Datatype"], "Row major linear HALF");
    EXPECT_EQ(layers[1]["Inputs"][1]["Format/Datatype"], "Row major linear HALF");
    // Hand-computed in half: a rounds to {0.0999755859375, 0.333251953125, 1000.5}, times 3 to {0.2998046875, 1,
    // 3002}; plus x (also rounded to half) gives {1.2998046875, 3, 2002}.
    std::vector<float> const y = folded.run();
    EXPECT_EQ(y, (std::vector<float>{1.2998046875F, 3.0F, 2002.0F}));

    ScaledSum unfolded(true, true);
    ASSERT_TRUE(unfolded.h.build());
    EXPECT_EQ(layersOf(unfolded.h).size(), 3U);
    EXPECT_EQ(unfolded.run(), y);

    ScaledSum fp32(false, false);
    ASSERT_TRUE(fp32.h.build());
    std::vector<float> const exact = fp32.run();
    EXPECT_FLOAT_EQ(exact[0], 1.3F);
    EXPECT_FLOAT_EQ(exact[2], 2002.1F); // no rounding to half's 0.5 steps
}

TEST(ConstantFolding, APluginReadingConstantsStillRuns)
{
    kiln::test::ResourceProbeCreator::registerOnce();
    kiln::test::ResourceProbeLog::clear();
    std::vector<float> const k{1.0F, -2.0F, 3.0F, 4.0F};
    LayerHarness h;
    ITensor* constant = named(h.network->addConstant(Dims{1, {4}}, floatWeights(k)), "k")->getOutput(0);
    kiln::test::ResourceProbePlugin probe;
    h.output(named(h.network->addPluginV3(&constant, 1, nullptr, 0, probe), "probe"), "copy");
    ASSERT_TRUE(h.build());
    EXPECT_EQ(layerNames(h), (std::vector<std::string>{"k [Constant]", "probe [PluginV3]"}));
    std::vector<float> copy(4, 0.0F);
    ASSERT_TRUE(h.run({}, {{"copy", copy.data()}}));
    EXPECT_EQ(copy, k);
    EXPECT_EQ(kiln::test::ResourceProbeLog::recordersAtRun.size(), 1U); // the plugin's own code ran
}

//! y = x + broadcast(0.5) with x FP32 [rows, 512]: the scalar is broadcast by a slice of stride 0 (as ONNX's Expand
//! imports), which reads only the constant.
struct BroadcastSum
{
    std::vector<float> half{0.5F};
    LayerHarness h;
    int64_t rows;

    explicit BroadcastSum(int64_t rowCount)
        : rows(rowCount)
    {
        ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{2, {rows, 512}});
        ITensor* scalar = named(h.network->addConstant(Dims{2, {1, 1}}, floatWeights(half)), "half")->getOutput(0);
        ILayer* expand
            = named(h.network->addSlice(*scalar, Dims{2, {0, 0}}, Dims{2, {rows, 512}}, Dims{2, {0, 0}}), "expand");
        h.output(named(h.network->addElementWise(*x, *expand->getOutput(0), ElementWiseOperation::kSUM), "add"), "y");
    }

    void expectSums()
    {
        std::vector<float> x(static_cast<size_t>(rows * 512));
        for (size_t i = 0; i < x.size(); ++i)
        {
            x[i] = static_cast<float>(i % 1000);
        }
        std::vector<float> y(x.size(), 0.0F);
        ASSERT_TRUE(h.run({{"x", x.data()}}, {{"y", y.data()}}));
        for (size_t i = 0; i < x.size(); i += 997)
        {
            ASSERT_EQ(y[i], x[i] + 0.5F) << "at " << i;
        }
    }
};

TEST(ConstantFolding, SmallBroadcastsFoldAndLargeOnesStay)
{
    // 8 x 512 FP32 is 16 KiB: folded.
    BroadcastSum small(8);
    ASSERT_TRUE(small.h.build());
    EXPECT_EQ(layerNames(small.h), (std::vector<std::string>{"folded: expand [Constant]", "add [ElementWise]"}));
    small.expectSums();
    // 1024 x 512 FP32 is 2 MiB made of 4 bytes: the plan would carry the copy, so the broadcast runs.
    BroadcastSum large(1024);
    ASSERT_TRUE(large.h.build());
    EXPECT_EQ(
        layerNames(large.h), (std::vector<std::string>{"half [Constant]", "expand [Slice]", "add [ElementWise]"}));
    large.expectSums();
}

} // namespace
