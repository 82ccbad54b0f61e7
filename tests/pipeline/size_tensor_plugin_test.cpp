// Size tensors of IPluginV3 plugins (IExprBuilder::declareSizeTensor): a plugin whose output extent is
// data-dependent builds, its values output gets the extent from the plugin's 0-D size-tensor output once it has run,
// later layers use it (a shape computed from it, and the size tensor itself as an output), and the count changes
// between runs of one context. A count above the declared upper bound, and a size tensor declared at an output that
// is not 0-D INT32/INT64, are errors that name what is wrong. Expected values are worked out by hand.
#include "../layers/layer_harness.h"
#include "positive_select_plugin.h"
#include "recording_output_allocator.h"

#include <gtest/gtest.h>

#include <cstring>

namespace
{

using namespace nvinfer1;
using kiln::test::LayerHarness;
using kiln::test::PositiveSelectSettings;
using kiln::test::RecordingOutputAllocator;

//! x (FP32 [-1]) -> PositiveSelect -> "values" (data-dependent), "count" (its 0-D size tensor) and "doubled", the
//! values' extent times 2 computed by layers from the size tensor.
struct SelectNetwork
{
    LayerHarness h;
    IPluginV3Layer* layer{nullptr};

    SelectNetwork()
    {
        kiln::test::PositiveSelectCreator::registerOnce();
        ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{1, {-1}});
        h.setProfile("x", Dims{1, {1}}, Dims{1, {4}}, Dims{1, {16}});
        kiln::test::PositiveSelectPlugin plugin;
        layer = h.network->addPluginV3(&x, 1, nullptr, 0, plugin);
        if (layer == nullptr)
        {
            return;
        }
        h.output(layer, "values", 0);
        h.output(layer, "count", 1);
        ITensor* count = layer->getOutput(1);
        ITensor* twoTensor = h.network->addConstant(Dims{0, {}}, weights)->getOutput(0);
        h.output(h.network->addElementWise(*count, *twoTensor, ElementWiseOperation::kPROD), "doubled");
    }

    int32_t const two{2};
    Weights const weights{DataType::kINT32, &two, 1};
};

TEST(SizeTensorPlugin, DataDependentExtentFromThePluginsSizeTensor)
{
    SelectNetwork net;
    ASSERT_NE(net.layer, nullptr) << net.h.logger.errors();
    EXPECT_EQ(net.layer->getOutput(0)->getDimensions().d[0], -1);
    EXPECT_TRUE(net.layer->getOutput(1)->isShapeTensor());
    ASSERT_TRUE(net.h.build());
    EXPECT_EQ(net.h.engine->getTensorShape("values").d[0], -1);
    RecordingOutputAllocator values;
    ASSERT_TRUE(net.h.context->setOutputAllocator("values", &values));
    struct Case
    {
        std::vector<float> x;
        std::vector<float> kept;
    };
    for (Case const& c : {Case{{1, -2, 3, 0}, {1, 3}}, Case{{-1, -1}, {}},
             Case{{5, 4, 3, 2, 1, 0.5F, 9, 8, 7, 6, 1, 2, 3, 4, 5, 6},
                 {5, 4, 3, 2, 1, 0.5F, 9, 8, 7, 6, 1, 2, 3, 4, 5, 6}}})
    {
        auto const n = static_cast<int64_t>(c.x.size());
        auto const kept = static_cast<int32_t>(c.kept.size());
        ASSERT_TRUE(net.h.context->setInputShape("x", Dims{1, {n}}));
        EXPECT_EQ(net.h.shapeOf("values"), (std::vector<int64_t>{-1}));
        int32_t count = -1;
        int32_t doubled = -1;
        ASSERT_TRUE(net.h.run({{"x", c.x.data()}}, {{"count", &count}, {"doubled", &doubled}}));
        EXPECT_EQ(count, kept);
        EXPECT_EQ(doubled, 2 * kept);
        EXPECT_EQ(net.h.shapeOf("values"), (std::vector<int64_t>{kept}));
        EXPECT_EQ(values.sizes.back(), static_cast<uint64_t>(kept) * 4);
        EXPECT_EQ(values.shapes.back(), (std::vector<int64_t>{kept}));
        std::vector<float> got(c.kept.size());
        std::memcpy(got.data(), values.memory(), got.size() * sizeof(float));
        EXPECT_EQ(got, c.kept);
    }
}

TEST(SizeTensorPlugin, CountAboveTheUpperBoundIsAnError)
{
    SelectNetwork net;
    ASSERT_TRUE(net.h.build());
    RecordingOutputAllocator values;
    ASSERT_TRUE(net.h.context->setOutputAllocator("values", &values));
    ASSERT_TRUE(net.h.context->setInputShape("x", Dims{1, {2}}));
    std::vector<float> const x{1, 2};
    int32_t count = 0;
    int32_t doubled = 0;
    net.h.context->setTensorAddress("x", const_cast<float*>(x.data()));
    net.h.context->setTensorAddress("count", &count);
    net.h.context->setTensorAddress("doubled", &doubled);
    PositiveSelectSettings::extraCount = 5;
    bool const ran = net.h.context->enqueueV3(nullptr);
    PositiveSelectSettings::reset();
    EXPECT_FALSE(ran);
    EXPECT_NE(net.h.logger.errors().find("the size tensor \"count\" holds 7, outside [0, 2]"), std::string::npos)
        << net.h.logger.errors();
    EXPECT_TRUE(values.sizes.empty());
}

TEST(SizeTensorPlugin, SizeTensorMustBeAZeroDimensionalIntegerOutput)
{
    PositiveSelectSettings::sizeOutputIndex = 0; // the FP32 values output itself
    SelectNetwork net;
    PositiveSelectSettings::reset();
    EXPECT_EQ(net.layer, nullptr);
    EXPECT_NE(net.h.logger.errors().find("a size tensor is declared at output 0, which must be a 0-D INT32 or INT64"),
        std::string::npos)
        << net.h.logger.errors();
}

} // namespace
