// ILRNLayer end to end on the CPU backend: TensorRT's worked example through a built and reloaded plan, a rank-3
// input, a dynamic batch and height, FP16 and BF16 tensors, FP16 precision, the parameters kept by the plan, the
// getters and TensorRT's ranges (addLRN and every setter refuse a value outside them and change nothing), and each
// shape-inference error. Expected values are worked out by hand.
#include "expect_close.h"
#include "host_tensor.h"
#include "network/layers/lrn.h"
#include "round_trip.h"

#include <limits>

namespace
{

using namespace nvinfer1;
using kiln::test::errorMentions;
using kiln::test::expectClose;
using kiln::test::HostTensor;
using kiln::test::LayerHarness;

//! TensorRT's example input [1, 5, 2, 2]: channel c holds c.
std::vector<float> channelIndices()
{
    std::vector<float> values;
    for (int c = 0; c < 5; ++c)
    {
        values.insert(values.end(), 4, static_cast<float>(c));
    }
    return values;
}

//! Its output for window 3, alpha 1, beta 1, k 0.1: c / (0.1 + (sum of the squares of channels c - 1 to c + 1) / 3).
std::vector<float> channelIndicesNormalized()
{
    double const sums[] = {1, 5, 14, 29, 25};
    std::vector<float> values;
    for (int c = 0; c < 5; ++c)
    {
        values.insert(values.end(), 4, static_cast<float>(c / (0.1 + sums[c] / 3.0)));
    }
    return values;
}

Dims dimsOf(kiln::Shape const& shape)
{
    Dims dims{static_cast<int32_t>(shape.size()), {}};
    std::copy(shape.begin(), shape.end(), dims.d);
    return dims;
}

//! The output of LRN(window 3, alpha 1, beta 1, k 0.1) over `input` through a built and reloaded plan; an empty
//! tensor (with a test failure) when anything fails.
HostTensor normalize(HostTensor const& input)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", input.type, dimsOf(input.shape));
    ILRNLayer* layer = h.network->addLRN(*x, 3, 1.0F, 1.0F, 0.1F);
    h.output(layer, "y");
    if (layer == nullptr || !h.build())
    {
        return {};
    }
    kiln::test::expectRoundTrip(h);
    EXPECT_EQ(h.engine->getTensorDataType("y"), input.type);
    EXPECT_EQ(h.shapeOf("y"), input.shape);
    HostTensor y = kiln::test::zeros(input.shape, input.type);
    h.run({{"x", input.bytes.data()}}, {{"y", y.bytes.data()}});
    return y;
}

TEST(LRNLayer, TensorRtsWorkedExample)
{
    HostTensor const y = normalize(kiln::test::fromFloats({1, 5, 2, 2}, channelIndices()));
    expectClose(y.floats(), channelIndicesNormalized(), {0.0, 1e-6});
    // TensorRT's documentation gives these for channels 1 to 4.
    std::vector<float> const documented{0.56603765F, 0.4195804F, 0.3071672F, 0.47430828F};
    for (size_t c = 1; c < 5; ++c)
    {
        EXPECT_NEAR(y.floats().at(4 * c), documented[c - 1], 1e-6) << "channel " << c;
    }
}

TEST(LRNLayer, TheChannelsOfARankThreeInputAreItsFirstAxis)
{
    // [5, 2, 2]: the same channels without the batch axis.
    expectClose(normalize(kiln::test::fromFloats({5, 2, 2}, channelIndices())).floats(), channelIndicesNormalized(),
        {0.0, 1e-6});
}

TEST(LRNLayer, SixteenBitTensors)
{
    // Channel c holds c, exact in both types; the results are rounded once, to within half a unit in the last place.
    for (DataType type : {DataType::kHALF, DataType::kBF16})
    {
        SCOPED_TRACE(kiln::dataTypeName(type));
        HostTensor const y = normalize(kiln::test::fromFloats({1, 5, 2, 2}, channelIndices(), type));
        EXPECT_EQ(y.type, type);
        double const halfUlp = type == DataType::kHALF ? 0.5 / 1024 : 0.5 / 128;
        expectClose(y.floats(), channelIndicesNormalized(), {0.0, halfUlp});
    }
}

TEST(LRNLayer, RunsAtFp16Precision)
{
    LayerHarness h;
    h.config->setFlag(BuilderFlag::kFP16);
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{4, {1, 5, 2, 2}});
    h.output(h.network->addLRN(*x, 3, 1.0F, 1.0F, 0.1F), "y");
    ASSERT_TRUE(h.build());
    std::vector<float> const input = channelIndices();
    std::vector<float> y(input.size());
    ASSERT_TRUE(h.run({{"x", input.data()}}, {{"y", y.data()}}));
    expectClose(y, channelIndicesNormalized(), {0.0, 1e-3});
}

TEST(LRNLayer, DynamicBatchAndHeight)
{
    // [-1, 5, -1, 2], run at [2, 5, 1, 2]: the second batch holds the first's values times -1, its results likewise.
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{4, {-1, 5, -1, 2}});
    h.setProfile("x", Dims{4, {1, 5, 1, 2}}, Dims{4, {2, 5, 1, 2}}, Dims{4, {4, 5, 3, 2}});
    ILRNLayer* layer = h.network->addLRN(*x, 3, 1.0F, 1.0F, 0.1F);
    h.output(layer, "y");
    ASSERT_TRUE(h.build());
    ASSERT_TRUE(h.context->setInputShape("x", Dims{4, {2, 5, 1, 2}}));
    std::vector<float> input;
    std::vector<float> expected;
    std::vector<float> const normalized = channelIndicesNormalized();
    for (float sign : {1.0F, -1.0F})
    {
        for (int c = 0; c < 5; ++c)
        {
            input.insert(input.end(), 2, sign * static_cast<float>(c));
            expected.insert(expected.end(), 2, sign * normalized.at(4 * static_cast<size_t>(c)));
        }
    }
    std::vector<float> y(input.size());
    ASSERT_TRUE(h.run({{"x", input.data()}}, {{"y", y.data()}}));
    expectClose(y, expected, {0.0, 1e-6});
}

TEST(LRNLayer, PlanKeepsTheParameters)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{4, {1, 8, 3, 3}});
    ILRNLayer* layer = h.network->addLRN(*x, 3, 1.0F, 1.0F, 0.1F);
    ASSERT_NE(layer, nullptr) << h.logger.errors();
    layer->setWindowSize(7);
    layer->setAlpha(-2.5e-4F);
    layer->setBeta(0.625F);
    layer->setK(2.0F);
    h.output(layer, "y");
    ASSERT_TRUE(h.build());
    kiln::test::expectRoundTrip(h);
    std::vector<kiln::network::LRNParams> const kept = kiln::test::paramsInPlan<kiln::network::LRNParams>(h);
    ASSERT_EQ(kept.size(), 1U);
    EXPECT_EQ(kept[0].window, 7);
    EXPECT_EQ(kept[0].alpha, -2.5e-4F);
    EXPECT_EQ(kept[0].beta, 0.625F);
    EXPECT_EQ(kept[0].k, 2.0F);
}

TEST(LRNLayer, GettersGiveWhatAddLrnAndTheSettersSet)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kHALF, Dims{4, {2, 6, 4, 5}});
    ILRNLayer* layer = h.network->addLRN(*x, 5, 1.0e-4F, 0.75F, 2.0F);
    ASSERT_NE(layer, nullptr) << h.logger.errors();
    EXPECT_EQ(layer->getType(), LayerType::kLRN);
    EXPECT_EQ(layer->getWindowSize(), 5);
    EXPECT_EQ(layer->getAlpha(), 1.0e-4F);
    EXPECT_EQ(layer->getBeta(), 0.75F);
    EXPECT_EQ(layer->getK(), 2.0F);
    EXPECT_EQ(layer->getOutput(0)->getType(), DataType::kHALF);
    Dims const out = layer->getOutput(0)->getDimensions();
    EXPECT_EQ(std::vector<int64_t>(out.d, out.d + out.nbDims), (std::vector<int64_t>{2, 6, 4, 5}));
    // The ends of TensorRT's ranges are accepted.
    layer->setWindowSize(1);
    EXPECT_EQ(layer->getWindowSize(), 1);
    layer->setWindowSize(15);
    EXPECT_EQ(layer->getWindowSize(), 15);
    layer->setAlpha(-1.0e20F);
    EXPECT_EQ(layer->getAlpha(), -1.0e20F);
    layer->setBeta(0.01F);
    EXPECT_EQ(layer->getBeta(), 0.01F);
    layer->setBeta(1.0e5F);
    EXPECT_EQ(layer->getBeta(), 1.0e5F);
    layer->setK(1.0e-5F);
    EXPECT_EQ(layer->getK(), 1.0e-5F);
    layer->setK(1.0e10F);
    EXPECT_EQ(layer->getK(), 1.0e10F);
    EXPECT_TRUE(h.logger.errors().empty()) << h.logger.errors();
}

TEST(LRNLayer, SettersRefuseValuesOutsideTensorRtsRanges)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{4, {1, 6, 4, 5}});
    ILRNLayer* layer = h.network->addLRN(*x, 5, 1.0e-4F, 0.75F, 2.0F);
    ASSERT_NE(layer, nullptr) << h.logger.errors();
    layer->setName("norm1");
    float const nan = std::numeric_limits<float>::quiet_NaN();
    for (int64_t window : {4, 0, -1, 17})
    {
        layer->setWindowSize(window);
    }
    layer->setAlpha(2.0e20F);
    layer->setAlpha(nan);
    layer->setBeta(0.005F);
    layer->setBeta(2.0e5F);
    layer->setK(0.0F);
    layer->setK(-1.0F);
    layer->setK(nan);
    EXPECT_EQ(layer->getWindowSize(), 5);
    EXPECT_EQ(layer->getAlpha(), 1.0e-4F);
    EXPECT_EQ(layer->getBeta(), 0.75F);
    EXPECT_EQ(layer->getK(), 2.0F);
    size_t errors = 0;
    for (auto const& [severity, text] : h.logger.messages)
    {
        errors += severity == ILogger::Severity::kERROR ? 1 : 0;
    }
    EXPECT_EQ(errors, 11U) << h.logger.errors();
    EXPECT_TRUE(
        errorMentions(h, "ILRNLayer::setWindowSize: layer \"norm1\": the window must be odd and in [1, 15], not 4"))
        << h.logger.errors();
    EXPECT_TRUE(errorMentions(h, "ILRNLayer::setAlpha: layer \"norm1\": the alpha must lie in [-1e+20, 1e+20], not"))
        << h.logger.errors();
    EXPECT_TRUE(errorMentions(h, "ILRNLayer::setBeta: layer \"norm1\": the beta must lie in [0.01, 100000], not 0.005"))
        << h.logger.errors();
    EXPECT_TRUE(errorMentions(h, "ILRNLayer::setK: layer \"norm1\": the k must lie in [1e-05, 1e+10], not 0"))
        << h.logger.errors();
    // The layer still builds with the values it kept.
    h.output(layer, "y");
    EXPECT_TRUE(h.build());
}

TEST(LRNLayer, AddLrnRefusesParametersOutsideTensorRtsRanges)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{4, {1, 6, 4, 5}});
    EXPECT_EQ(h.network->addLRN(*x, 2, 1.0e-4F, 0.75F, 1.0F), nullptr);
    EXPECT_TRUE(errorMentions(h, "INetworkDefinition::addLRN: the window must be odd and in [1, 15], not 2"))
        << h.logger.errors();
    EXPECT_EQ(h.network->addLRN(*x, 5, 1.0e21F, 0.75F, 1.0F), nullptr);
    EXPECT_TRUE(errorMentions(h, "INetworkDefinition::addLRN: the alpha must lie")) << h.logger.errors();
    EXPECT_EQ(h.network->addLRN(*x, 5, 1.0e-4F, 0.0F, 1.0F), nullptr);
    EXPECT_TRUE(errorMentions(h, "INetworkDefinition::addLRN: the beta must lie")) << h.logger.errors();
    EXPECT_EQ(h.network->addLRN(*x, 5, 1.0e-4F, 0.75F, 0.0F), nullptr);
    EXPECT_TRUE(errorMentions(h, "INetworkDefinition::addLRN: the k must lie")) << h.logger.errors();
    EXPECT_EQ(h.network->getNbLayers(), 0);
}

TEST(LRNLayer, ShapeAndTypeErrors)
{
    LayerHarness h;
    ITensor* flat = h.network->addInput("flat", DataType::kFLOAT, Dims{2, {6, 4}});
    EXPECT_EQ(h.network->addLRN(*flat, 3, 1.0F, 0.75F, 1.0F), nullptr);
    EXPECT_TRUE(errorMentions(h, "INetworkDefinition::addLRN: layer \"(Unnamed Layer*")) << h.logger.errors();
    EXPECT_TRUE(errorMentions(
        h, "the LRN input must have rank 3 or more (its channels are the third axis from the end), not 2"))
        << h.logger.errors();
    ITensor* ints = h.network->addInput("ints", DataType::kINT32, Dims{4, {1, 6, 4, 5}});
    EXPECT_EQ(h.network->addLRN(*ints, 3, 1.0F, 0.75F, 1.0F), nullptr);
    EXPECT_TRUE(errorMentions(h, "the LRN input must be FLOAT, HALF or BF16, not INT32")) << h.logger.errors();
}

} // namespace
