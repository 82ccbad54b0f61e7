// INonZeroLayer end to end on the CPU backend, and the run-time machinery of data-dependent shapes it relies on:
// positions worked out by hand over several ranks and every input type (-0.0 zero, NaN non-zero), all-zero and
// all-non-zero inputs, INT32 indices, the extent unknown (-1) before a run and known after, the output allocator
// asked for the exact size and told the shape, getMaxOutputSize, a missing allocator named, the count changing
// between runs of one context (with the input shape changing too) for a gather by the indices and a shape computed
// from them, the setters, and the layer's errors.
#include "host_tensor.h"
#include "recording_output_allocator.h"
#include "round_trip.h"

#include <cmath>
#include <cstring>
#include <cstdint>
#include <limits>

namespace
{

using namespace nvinfer1;
using kiln::test::errorMentions;
using kiln::test::HostTensor;
using kiln::test::LayerHarness;
using kiln::test::RecordingOutputAllocator;

Dims dimsOf(kiln::Shape const& shape)
{
    Dims d{static_cast<int32_t>(shape.size()), {}};
    std::copy(shape.begin(), shape.end(), d.d);
    return d;
}

//! The output "y" of a built harness, read from the allocator that received it.
HostTensor received(LayerHarness& h, RecordingOutputAllocator const& allocator, DataType type)
{
    HostTensor y = kiln::test::zeros(h.shapeOf("y"), type);
    if (!y.bytes.empty())
    {
        std::memcpy(y.bytes.data(), allocator.memory(), y.bytes.size());
    }
    return y;
}

//! NonZero of `input` through a built and reloaded plan: the [rank, count] positions (as int64 values), with the
//! allocator's record checked.
HostTensor nonZero(HostTensor const& input, DataType indicesType = DataType::kINT64)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", input.type, dimsOf(input.shape));
    INonZeroLayer* layer = h.network->addNonZero(*x);
    EXPECT_NE(layer, nullptr) << h.logger.errors();
    if (layer == nullptr)
    {
        return {};
    }
    EXPECT_TRUE(layer->setIndicesType(indicesType));
    h.output(layer, "y");
    if (!h.build())
    {
        return {};
    }
    kiln::test::expectRoundTrip(h);
    auto const rank = static_cast<int64_t>(input.shape.size());
    EXPECT_EQ(h.shapeOf("y"), (std::vector<int64_t>{rank, -1})); // before the run
    EXPECT_EQ(h.context->getMaxOutputSize("y"),
        rank * kiln::volume(input.shape) * static_cast<int64_t>(kiln::elementSize(indicesType)));
    RecordingOutputAllocator allocator;
    EXPECT_TRUE(h.context->setOutputAllocator("y", &allocator));
    EXPECT_EQ(h.context->getOutputAllocator("y"), &allocator);
    uint8_t unused = 0;
    h.run({{"x", input.bytes.empty() ? &unused : input.bytes.data()}}, {});
    HostTensor const y = received(h, allocator, indicesType);
    int64_t const count = h.shapeOf("y").at(1);
    auto const bytes = static_cast<uint64_t>(rank * count) * kiln::elementSize(indicesType);
    EXPECT_EQ(allocator.sizes, (std::vector<uint64_t>{bytes}));
    EXPECT_EQ(allocator.shapes, (std::vector<std::vector<int64_t>>{{rank, count}}));
    EXPECT_EQ(allocator.notifiedNames, (std::vector<std::string>{"y"}));
    return y;
}

TEST(NonZeroLayer, PositionsOfAMatrixAsColumns)
{
    // Non-zero at (0,0), (0,2), (1,1): rows of the result are the row indices, then the column indices.
    HostTensor const y = nonZero(kiln::test::fromFloats({2, 3}, {1, 0, 2, 0, -3, 0}));
    EXPECT_EQ(y.shape, (kiln::Shape{2, 3}));
    EXPECT_EQ(y.ints(), (std::vector<int64_t>{0, 0, 1, 0, 2, 1}));
}

TEST(NonZeroLayer, NegativeZeroIsZeroAndNanIsNot)
{
    float const nan = std::numeric_limits<float>::quiet_NaN();
    for (DataType type : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16})
    {
        SCOPED_TRACE(kiln::dataTypeName(type));
        HostTensor const y = nonZero(kiln::test::fromFloats({5}, {-0.0F, nan, 0.0F, -2.5F, 0.0F}, type));
        EXPECT_EQ(y.ints(), (std::vector<int64_t>{1, 3}));
    }
}

TEST(NonZeroLayer, EveryIntegerTypeAndBool)
{
    for (DataType type : {DataType::kINT8, DataType::kUINT8, DataType::kINT32, DataType::kINT64, DataType::kBOOL})
    {
        SCOPED_TRACE(kiln::dataTypeName(type));
        HostTensor const y = nonZero(kiln::test::fromInts({2, 2}, {0, 1, 1, 0}, type));
        EXPECT_EQ(y.ints(), (std::vector<int64_t>{0, 1, 1, 0}));
    }
}

TEST(NonZeroLayer, RanksOneThreeAndFour)
{
    EXPECT_EQ(nonZero(kiln::test::fromInts({6}, {0, 7, 0, 0, 9, 1}, DataType::kINT32)).ints(),
        (std::vector<int64_t>{1, 4, 5}));
    // [2, 2, 2] with non-zero (0,1,0) and (1,1,1).
    HostTensor const three = nonZero(kiln::test::fromInts({2, 2, 2}, {0, 0, 5, 0, 0, 0, 0, 6}, DataType::kINT64));
    EXPECT_EQ(three.shape, (kiln::Shape{3, 2}));
    EXPECT_EQ(three.ints(), (std::vector<int64_t>{0, 1, 1, 1, 0, 1}));
    // [1, 2, 1, 3] with non-zero flat positions 2 and 3: (0,0,0,2) and (0,1,0,0).
    HostTensor const four = nonZero(kiln::test::fromFloats({1, 2, 1, 3}, {0, 0, 4, 4, 0, 0}));
    EXPECT_EQ(four.shape, (kiln::Shape{4, 2}));
    EXPECT_EQ(four.ints(), (std::vector<int64_t>{0, 0, 0, 1, 0, 0, 2, 0}));
}

TEST(NonZeroLayer, AllZeroGivesNoColumnsAndAllNonZeroGivesEveryPosition)
{
    HostTensor const none = nonZero(kiln::test::fromFloats({2, 3}, {0, 0, 0, 0, -0.0F, 0}));
    EXPECT_EQ(none.shape, (kiln::Shape{2, 0}));
    HostTensor const all = nonZero(kiln::test::fromFloats({2, 2}, {1, 2, 3, 4}));
    EXPECT_EQ(all.ints(), (std::vector<int64_t>{0, 0, 1, 1, 0, 1, 0, 1}));
    HostTensor const scalar = nonZero(kiln::test::fromFloats({}, {3}));
    EXPECT_EQ(scalar.shape, (kiln::Shape{0, 1}));
}

TEST(NonZeroLayer, Int32Indices)
{
    HostTensor const y = nonZero(kiln::test::fromFloats({3}, {0, 1, 1}), DataType::kINT32);
    EXPECT_EQ(y.type, DataType::kINT32);
    EXPECT_EQ(y.ints(), (std::vector<int64_t>{1, 2}));
}

TEST(NonZeroLayer, SettersAndTheSingleVisibleOutput)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{1, {4}});
    INonZeroLayer* layer = h.network->addNonZero(*x);
    ASSERT_NE(layer, nullptr);
    EXPECT_EQ(layer->getType(), LayerType::kNON_ZERO);
    EXPECT_EQ(layer->getIndicesType(), DataType::kINT64);
    EXPECT_EQ(layer->getNbOutputs(), 1);
    EXPECT_EQ(layer->getOutput(1), nullptr);
    EXPECT_EQ(layer->getOutput(0)->getType(), DataType::kINT64);
    EXPECT_EQ(layer->getOutput(0)->getDimensions().d[1], -1);
    EXPECT_FALSE(layer->setIndicesType(DataType::kFLOAT));
    EXPECT_TRUE(errorMentions(h, "INT32 or INT64, not FLOAT"));
    EXPECT_EQ(layer->getIndicesType(), DataType::kINT64);
    EXPECT_TRUE(layer->setIndicesType(DataType::kINT32));
    EXPECT_EQ(layer->getOutput(0)->getType(), DataType::kINT32);
}

TEST(NonZeroLayer, RefusesInputsItCannotRead)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFP8, Dims{1, {4}});
    EXPECT_EQ(h.network->addNonZero(*x), nullptr);
    EXPECT_TRUE(errorMentions(h, "a non-zero layer does not take FP8 input"));
}

TEST(NonZeroLayer, DataDependentOutputWithoutAllocatorIsNamed)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{1, {3}});
    h.output(h.network->addNonZero(*x), "positions");
    ASSERT_TRUE(h.build());
    EXPECT_EQ(h.engine->getTensorShape("positions").d[1], -1);
    std::vector<float> const data{1, 0, 1};
    std::vector<int64_t> out(6);
    h.context->setTensorAddress("x", const_cast<float*>(data.data()));
    h.context->setTensorAddress("positions", out.data());
    EXPECT_FALSE(h.context->enqueueV3(nullptr));
    EXPECT_TRUE(errorMentions(h, "the shape of output \"positions\" is data-dependent"));
    EXPECT_TRUE(errorMentions(h, "setOutputAllocator"));
    EXPECT_FALSE(h.context->setOutputAllocator("x", nullptr));
    EXPECT_EQ(h.context->getMaxOutputSize("x"), -1);
}

//! x (FP32 [-1]) -> NonZero -> reshape to [count] -> gather x by it ("picked"), and the shape of the positions
//! ("extent", INT64 [2], an ordinary output whose values depend on the count).
void addGatherByPositions(LayerHarness& h)
{
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{1, {-1}});
    h.setProfile("x", Dims{1, {1}}, Dims{1, {4}}, Dims{1, {8}});
    INonZeroLayer* positions = h.network->addNonZero(*x);
    ASSERT_NE(positions, nullptr);
    IShuffleLayer* flat = h.network->addShuffle(*positions->getOutput(0));
    flat->setReshapeDimensions(Dims{1, {-1}});
    h.output(h.network->addGather(*x, *flat->getOutput(0), 0), "picked");
    h.output(h.network->addShape(*positions->getOutput(0)), "extent");
}

TEST(NonZeroLayer, CountChangesBetweenRunsOfOneContext)
{
    LayerHarness h;
    addGatherByPositions(h);
    ASSERT_TRUE(h.build());
    kiln::test::expectRoundTrip(h);
    RecordingOutputAllocator picked;
    ASSERT_TRUE(h.context->setOutputAllocator("picked", &picked));
    struct Case
    {
        std::vector<float> x;
        std::vector<float> picked;
    };
    for (Case const& c : {Case{{0, 2, 0, 3}, {2, 3}}, Case{{5, 6, 7, 8, 9, 0, 1, 2}, {5, 6, 7, 8, 9, 1, 2}},
             Case{{0}, {}}, Case{{4, 0, 0}, {4}}})
    {
        auto const n = static_cast<int64_t>(c.x.size());
        auto const count = static_cast<int64_t>(c.picked.size());
        ASSERT_TRUE(h.context->setInputShape("x", Dims{1, {n}}));
        EXPECT_EQ(h.shapeOf("picked"), (std::vector<int64_t>{-1}));
        EXPECT_EQ(h.context->getMaxOutputSize("picked"), n * 4);
        std::vector<int64_t> extent(2, -1);
        ASSERT_TRUE(h.run({{"x", c.x.data()}}, {{"extent", extent.data()}}));
        EXPECT_EQ(extent, (std::vector<int64_t>{1, count}));
        EXPECT_EQ(h.shapeOf("picked"), (std::vector<int64_t>{count}));
        EXPECT_EQ(picked.sizes.back(), static_cast<uint64_t>(count * 4));
        EXPECT_EQ(picked.shapes.back(), (std::vector<int64_t>{count}));
        std::vector<float> values(static_cast<size_t>(count));
        std::memcpy(values.data(), picked.memory(), values.size() * sizeof(float));
        EXPECT_EQ(values, c.picked);
    }
    EXPECT_EQ(picked.sizes.size(), 4U);
}

TEST(NonZeroLayer, AllocatorServesOutputsOfKnownShapeToo)
{
    LayerHarness h;
    addGatherByPositions(h);
    ASSERT_TRUE(h.build());
    RecordingOutputAllocator picked;
    RecordingOutputAllocator extent;
    ASSERT_TRUE(h.context->setOutputAllocator("picked", &picked));
    ASSERT_TRUE(h.context->setOutputAllocator("extent", &extent));
    ASSERT_TRUE(h.context->setInputShape("x", Dims{1, {3}}));
    std::vector<float> const x{1, 0, 1};
    ASSERT_TRUE(h.run({{"x", x.data()}}, {}));
    // "extent" is known before the run: asked for 16 bytes then, told its shape [2] at the end.
    EXPECT_EQ(extent.sizes, (std::vector<uint64_t>{16}));
    EXPECT_EQ(extent.shapes, (std::vector<std::vector<int64_t>>{{2}}));
    EXPECT_EQ(static_cast<int64_t const*>(extent.memory())[1], 2);
    EXPECT_EQ(h.context->getTensorAddress("extent"), extent.memory());
    EXPECT_EQ(picked.sizes, (std::vector<uint64_t>{8}));
}

} // namespace
