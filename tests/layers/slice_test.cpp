// ISliceLayer end to end on the CPU backend: static and shape-tensor parameters, every SampleMode.
#include "expect_close.h"
#include "round_trip.h"

#include <numeric>

namespace
{

using namespace nvinfer1;
using kiln::test::expectClose;
using kiln::test::LayerHarness;

std::vector<float> iota(size_t count)
{
    std::vector<float> values(count);
    std::iota(values.begin(), values.end(), 0.0F);
    return values;
}

ITensor* int64Constant(LayerHarness& h, std::vector<int64_t> const& values)
{
    Weights const w{DataType::kINT64, values.data(), static_cast<int64_t>(values.size())};
    IConstantLayer* layer = h.network->addConstant(Dims{1, {static_cast<int64_t>(values.size())}}, w);
    return layer ? layer->getOutput(0) : nullptr;
}

TEST(SliceLayer, StridedAndReversed)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{2, {3, 4}}); // x[r][c] = 4r + c
    ISliceLayer* strided = h.network->addSlice(*x, Dims{2, {0, 1}}, Dims{2, {2, 2}}, Dims{2, {2, 2}});
    ASSERT_NE(strided, nullptr) << h.logger.errors();
    EXPECT_EQ(strided->getMode(), SampleMode::kSTRICT_BOUNDS);
    ISliceLayer* reversed = h.network->addSlice(*x, Dims{2, {2, 3}}, Dims{2, {1, 4}}, Dims{2, {1, -1}});
    h.output(strided, "strided");
    h.output(reversed, "reversed");
    ASSERT_TRUE(h.build());
    kiln::test::expectRoundTrip(h);
    std::vector<float> const input = iota(12);
    std::vector<float> a(4);
    std::vector<float> b(4);
    ASSERT_TRUE(h.run({{"x", input.data()}}, {{"strided", a.data()}, {"reversed", b.data()}}));
    expectClose(a, {1, 3, 9, 11}, 1e-5F);
    expectClose(b, {11, 10, 9, 8}, 1e-5F);
}

TEST(SliceLayer, SampleModes)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{1, {3}}); // 10, 20, 30
    SampleMode const modes[] = {SampleMode::kWRAP, SampleMode::kCLAMP, SampleMode::kFILL, SampleMode::kREFLECT};
    char const* const names[] = {"wrap", "clamp", "fill", "reflect"};
    for (int i = 0; i < 4; ++i)
    {
        // Added in bounds (kSTRICT_BOUNDS is checked when the layer is added), then widened to coordinates -2 .. 4.
        ISliceLayer* layer = h.network->addSlice(*x, Dims{1, {0}}, Dims{1, {3}}, Dims{1, {1}});
        ASSERT_NE(layer, nullptr) << h.logger.errors();
        layer->setMode(modes[i]);
        layer->setStart(Dims{1, {-2}});
        layer->setSize(Dims{1, {7}});
        h.output(layer, names[i]);
    }
    ASSERT_TRUE(h.build());
    kiln::test::expectRoundTrip(h);
    std::vector<float> const input{10, 20, 30};
    std::vector<std::vector<float>> out(4, std::vector<float>(7));
    ASSERT_TRUE(h.run({{"x", input.data()}},
        {{"wrap", out[0].data()}, {"clamp", out[1].data()}, {"fill", out[2].data()}, {"reflect", out[3].data()}}));
    expectClose(out[0], {20, 30, 10, 20, 30, 10, 20}, 1e-5F);
    expectClose(out[1], {10, 10, 10, 20, 30, 30, 30}, 1e-5F);
    expectClose(out[2], {0, 0, 10, 20, 30, 0, 0}, 1e-5F);
    expectClose(out[3], {30, 20, 10, 20, 30, 20, 10}, 1e-5F); // period 4: -2 -> 2, -1 -> 1, 3 -> 1, 4 -> 0
}

TEST(SliceLayer, ShapeTensorParametersAndFillValue)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{2, {2, 3}});
    // The parameter tensors are made before the slice: the CPU runtime runs layers in the order they were added.
    ITensor* start = int64Constant(h, {1, 1});
    ITensor* size = int64Constant(h, {1, 4});
    ITensor* stride = int64Constant(h, {1, 1});
    float const fill = -7.0F;
    IConstantLayer* fillLayer = h.network->addConstant(Dims{0, {}}, Weights{DataType::kFLOAT, &fill, 1});
    ISliceLayer* layer = h.network->addSlice(*x, Dims{2, {0, 0}}, Dims{2, {1, 1}}, Dims{2, {1, 1}});
    ASSERT_NE(layer, nullptr) << h.logger.errors();
    layer->setMode(SampleMode::kFILL);
    layer->setInput(1, *start);
    layer->setInput(2, *size);
    layer->setInput(3, *stride);
    layer->setInput(4, *fillLayer->getOutput(0));
    h.output(layer, "y");
    EXPECT_EQ(layer->getOutput(0)->getDimensions().d[1], 4);
    ASSERT_TRUE(h.build());
    kiln::test::expectRoundTrip(h);
    std::vector<float> const input{0, 1, 2, 3, 4, 5};
    std::vector<float> y(4);
    ASSERT_TRUE(h.run({{"x", input.data()}}, {{"y", y.data()}}));
    expectClose(y, {4, 5, -7, -7}, 1e-5F);
}

TEST(SliceLayer, OnlyTheStrideFromATensorKeepsTheStaticStart)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{1, {6}});
    ITensor* stride = int64Constant(h, {2});
    // Input 3 set alone: inputs 1 and 2 stay empty, and the static start 1 and size 2 hold.
    ISliceLayer* layer = h.network->addSlice(*x, Dims{1, {1}}, Dims{1, {2}}, Dims{1, {1}});
    ASSERT_NE(layer, nullptr) << h.logger.errors();
    layer->setInput(3, *stride);
    h.output(layer, "y");
    ASSERT_TRUE(h.build());
    std::vector<float> const input = iota(6);
    std::vector<float> y(2);
    ASSERT_TRUE(h.run({{"x", input.data()}}, {{"y", y.data()}}));
    expectClose(y, {1, 3}, 1e-5F);
}

TEST(SliceLayer, RuntimeDimensionsAndShapeValues)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{3, {-1, 2, -1}});
    // Dims 1 and 2 of x, taken from its shape, reshape a second input: the slice keeps the values known.
    IShapeLayer* shape = h.network->addShape(*x);
    ISliceLayer* tail = h.network->addSlice(*shape->getOutput(0), Dims{1, {1}}, Dims{1, {2}}, Dims{1, {1}});
    ASSERT_NE(tail, nullptr) << h.logger.errors();
    EXPECT_TRUE(tail->getOutput(0)->isShapeTensor());
    ITensor* flat = h.network->addInput("flat", DataType::kFLOAT, Dims{1, {-1}});
    IShuffleLayer* reshape = h.network->addShuffle(*flat);
    reshape->setInput(1, *tail->getOutput(0));
    ASSERT_NE(reshape->getOutput(0), nullptr);
    // A static slice of an input with run-time dims: x[0][:][0].
    ISliceLayer* last = h.network->addSlice(*x, Dims{3, {0, 0, 0}}, Dims{3, {1, 2, 1}}, Dims{3, {1, 1, 1}});
    h.output(reshape, "reshaped");
    h.output(last, "last");
    h.setProfile("x", Dims{3, {1, 2, 1}}, Dims{3, {2, 2, 3}}, Dims{3, {4, 2, 5}});
    h.setProfile("flat", Dims{1, {1}}, Dims{1, {6}}, Dims{1, {10}});
    ASSERT_TRUE(h.build());
    ASSERT_TRUE(h.context->setInputShape("x", Dims{3, {3, 2, 4}}));
    ASSERT_TRUE(h.context->setInputShape("flat", Dims{1, {8}}));
    EXPECT_EQ(h.shapeOf("reshaped"), (std::vector<int64_t>{2, 4}));
    EXPECT_EQ(h.shapeOf("last"), (std::vector<int64_t>{1, 2, 1}));
    std::vector<float> input(24);
    std::iota(input.begin(), input.end(), 0.0F);
    std::vector<float> flatData(8, 1.0F);
    std::vector<float> reshaped(8);
    std::vector<float> lastOut(2);
    ASSERT_TRUE(h.run(
        {{"x", input.data()}, {"flat", flatData.data()}}, {{"reshaped", reshaped.data()}, {"last", lastOut.data()}}));
    expectClose(lastOut, {0, 4}, 1e-5F);
}

//! start + i * stride past 64 bits in a mode that samples outside the axis (where no bounds check stops it): the
//! build names it, as it does in kSTRICT_BOUNDS (ArgumentErrors). Shape-tensor strides are bounded to 32 bits by the
//! profile; the kernel's own check is tested in cpu_kernels (Slice.CoordinatesBeyond64BitsAreErrors).
TEST(SliceLayer, CoordinatesBeyond64BitsAreErrorsInEveryMode)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{1, {3}});
    ISliceLayer* layer = h.network->addSlice(*x, Dims{1, {0}}, Dims{1, {3}}, Dims{1, {1}});
    ASSERT_NE(layer, nullptr) << h.logger.errors();
    layer->setMode(SampleMode::kWRAP);
    layer->setSize(Dims{1, {5}});
    layer->setStride(Dims{1, {int64_t{1} << 61}}); // fits, but 4 * 2^61 does not
    h.output(layer, "y");
    h.expectBuildToFail(
        "its last coordinate, start 0 + (size 5 - 1) * stride 2305843009213693952, does not fit in 64 bits");
}

TEST(SliceLayer, ArgumentErrors)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{2, {2, 3}});
    EXPECT_EQ(h.network->addSlice(*x, Dims{2, {0, 0}}, Dims{2, {1, -1}}, Dims{2, {1, 1}}), nullptr);
    EXPECT_TRUE(kiln::test::errorMentions(h, "the size entry 1 is -1")) << h.logger.errors();
    EXPECT_EQ(h.network->addSlice(*x, Dims{2, {0, 2}}, Dims{2, {1, 2}}, Dims{2, {1, 1}}), nullptr);
    EXPECT_TRUE(kiln::test::errorMentions(h, "kSTRICT_BOUNDS")) << h.logger.errors();
    // A stride whose product with the size wraps around 64 bits (as a damaged plan gave one) is named, not wrapped.
    int64_t const huge = int64_t{1} << 62;
    EXPECT_EQ(h.network->addSlice(*x, Dims{2, {0, 0}}, Dims{2, {1, 3}}, Dims{2, {1, huge}}), nullptr);
    EXPECT_TRUE(kiln::test::errorMentions(h, "does not fit in 64 bits")) << h.logger.errors();
    EXPECT_EQ(h.network->addSlice(*x, Dims{1, {0}}, Dims{1, {1}}, Dims{1, {1}}), nullptr);
    EXPECT_TRUE(kiln::test::errorMentions(h, "entries but the input has rank 2")) << h.logger.errors();
}

} // namespace
