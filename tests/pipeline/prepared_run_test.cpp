// The execution context prepares each layer's views once and only rewrites what changed between runs. These
// tests change, between runs of one context, what a prepared path could miss: the input shapes, the tensors'
// addresses (setTensorAddress and executeV2), the optimization profile, and an output allocator's memory, and check
// every run's output against values computed here from the definition.
#include "../layers/layer_harness.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace
{

using namespace nvinfer1;
using kiln::test::LayerHarness;

//! y = transpose(relu(x) + x) for x of shape [n, 4]: y is [4, n]. Its shape follows the input's, and each layer
//! reads what the one before wrote, so a stale shape or address in any view shows in y.
struct ReluSumTranspose
{
    LayerHarness h;

    explicit ReluSumTranspose(bool dynamic = true)
    {
        ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims2{dynamic ? -1 : 3, 4});
        IActivationLayer* relu = h.network->addActivation(*x, ActivationType::kRELU);
        IElementWiseLayer* sum = h.network->addElementWise(*relu->getOutput(0), *x, ElementWiseOperation::kSUM);
        IShuffleLayer* transpose = h.network->addShuffle(*sum->getOutput(0));
        transpose->setFirstTranspose(Permutation{{1, 0}});
        h.output(transpose, "y");
    }
};

//! What ReluSumTranspose computes, from its definition.
std::vector<float> expectedY(std::vector<float> const& x, int64_t rows)
{
    std::vector<float> y(x.size());
    for (int64_t r = 0; r < rows; ++r)
    {
        for (int64_t c = 0; c < 4; ++c)
        {
            float const v = x[r * 4 + c];
            y[c * rows + r] = std::max(v, 0.0F) + v;
        }
    }
    return y;
}

//! n rows of 4 values, differing between calls with different `seed`s and with negative ones.
std::vector<float> inputOf(int64_t rows, float seed)
{
    std::vector<float> x(static_cast<size_t>(rows * 4));
    for (size_t i = 0; i < x.size(); ++i)
    {
        x[i] = seed + static_cast<float>(i) * (i % 3 == 0 ? -0.5F : 0.25F);
    }
    return x;
}

TEST(PreparedRun, InputShapesChangingBetweenRunsOfOneContext)
{
    ReluSumTranspose net;
    net.h.setProfile("x", Dims2{1, 4}, Dims2{3, 4}, Dims2{6, 4});
    ASSERT_TRUE(net.h.build());
    // Up, down, back to a shape seen before, and the same shape twice.
    for (int64_t rows : {2, 6, 1, 6, 6, 3})
    {
        SCOPED_TRACE("rows " + std::to_string(rows));
        ASSERT_TRUE(net.h.context->setInputShape("x", Dims2{rows, 4}));
        std::vector<float> const x = inputOf(rows, static_cast<float>(rows));
        std::vector<float> y(x.size(), -100.0F);
        ASSERT_TRUE(net.h.run({{"x", x.data()}}, {{"y", y.data()}}));
        EXPECT_EQ(net.h.shapeOf("y"), (std::vector<int64_t>{4, rows}));
        EXPECT_EQ(y, expectedY(x, rows));
    }
}

TEST(PreparedRun, TensorAddressesChangingBetweenRuns)
{
    ReluSumTranspose net(false);
    ASSERT_TRUE(net.h.build());
    std::vector<float> const x1 = inputOf(3, 1.0F);
    std::vector<float> const x2 = inputOf(3, -2.0F);
    std::vector<float> y1(12, -100.0F);
    std::vector<float> y2(12, -100.0F);

    ASSERT_TRUE(net.h.run({{"x", x1.data()}}, {{"y", y1.data()}}));
    EXPECT_EQ(y1, expectedY(x1, 3));

    // Both addresses move: the new input is read and only the new output written.
    ASSERT_TRUE(net.h.run({{"x", x2.data()}}, {{"y", y2.data()}}));
    EXPECT_EQ(y2, expectedY(x2, 3));
    EXPECT_EQ(y1, expectedY(x1, 3));

    // Only the input moves back.
    ASSERT_TRUE(net.h.run({{"x", x1.data()}}, {{"y", y2.data()}}));
    EXPECT_EQ(y2, expectedY(x1, 3));

    // executeV2's bindings replace the addresses too (in I/O tensor order: x, then y).
    std::fill(y1.begin(), y1.end(), -100.0F);
    void* bindings[] = {const_cast<float*>(x2.data()), y1.data()};
    ASSERT_TRUE(net.h.context->executeV2(bindings)) << net.h.logger.errors();
    EXPECT_EQ(y1, expectedY(x2, 3));
    EXPECT_EQ(y2, expectedY(x1, 3));
}

TEST(PreparedRun, OptimizationProfileSwitchedBetweenRuns)
{
    ReluSumTranspose net;
    IOptimizationProfile* small = net.h.builder->createOptimizationProfile();
    IOptimizationProfile* large = net.h.builder->createOptimizationProfile();
    for (auto [profile, min, max] : {std::tuple{small, 1, 2}, std::tuple{large, 3, 6}})
    {
        profile->setDimensions("x", OptProfileSelector::kMIN, Dims2{min, 4});
        profile->setDimensions("x", OptProfileSelector::kOPT, Dims2{max, 4});
        profile->setDimensions("x", OptProfileSelector::kMAX, Dims2{max, 4});
        net.h.config->addOptimizationProfile(profile);
    }
    ASSERT_TRUE(net.h.build());
    ASSERT_EQ(net.h.engine->getNbOptimizationProfiles(), 2);
    for (auto [profileIndex, rows] : {std::pair{0, 2}, std::pair{1, 5}, std::pair{0, 1}, std::pair{1, 3}})
    {
        SCOPED_TRACE("profile " + std::to_string(profileIndex) + ", rows " + std::to_string(rows));
        ASSERT_TRUE(net.h.context->setOptimizationProfileAsync(profileIndex, nullptr));
        ASSERT_TRUE(net.h.context->setInputShape("x", Dims2{rows, 4}));
        std::vector<float> const x = inputOf(rows, 0.5F * static_cast<float>(rows));
        std::vector<float> y(x.size(), -100.0F);
        ASSERT_TRUE(net.h.run({{"x", x.data()}}, {{"y", y.data()}}));
        EXPECT_EQ(y, expectedY(x, rows));
    }
}

//! Gives new memory at every call and keeps what it gave before, so that a run writing to an earlier address shows.
class FreshMemoryAllocator final : public IOutputAllocator
{
public:
    void* reallocateOutputAsync(char const*, void* currentMemory, uint64_t size, uint64_t, cudaStream_t) override
    {
        currents.push_back(currentMemory);
        // Moving the outer vector keeps each block where it is.
        return blocks.emplace_back(static_cast<size_t>(size) / sizeof(float) + 1, -100.0F).data();
    }
    void notifyShape(char const*, Dims const& dims) noexcept override
    {
        shapes.emplace_back(dims.d, dims.d + dims.nbDims);
    }

    std::vector<std::vector<float>> blocks; //!< every block given, in order
    std::vector<void*> currents;            //!< the currentMemory of each call
    std::vector<std::vector<int64_t>> shapes;
};

TEST(PreparedRun, OutputAllocatorGivingNewMemoryAtEveryRun)
{
    ReluSumTranspose net;
    net.h.setProfile("x", Dims2{1, 4}, Dims2{3, 4}, Dims2{6, 4});
    ASSERT_TRUE(net.h.build());
    FreshMemoryAllocator allocator;
    ASSERT_TRUE(net.h.context->setOutputAllocator("y", &allocator));
    std::vector<std::vector<float>> inputs;
    std::vector<int64_t> const rowsOfRun{3, 3, 5, 2};
    for (size_t run = 0; run < rowsOfRun.size(); ++run)
    {
        int64_t const rows = rowsOfRun[run];
        ASSERT_TRUE(net.h.context->setInputShape("x", Dims2{rows, 4}));
        inputs.push_back(inputOf(rows, static_cast<float>(run) - 1.5F));
        ASSERT_TRUE(net.h.run({{"x", inputs.back().data()}}, {}));
        ASSERT_EQ(allocator.blocks.size(), run + 1);
        // The context offers the memory it had, and writes only the new memory.
        EXPECT_EQ(allocator.currents[run], run == 0 ? nullptr : allocator.blocks[run - 1].data());
        EXPECT_EQ(allocator.shapes.back(), (std::vector<int64_t>{4, rows}));
    }
    for (size_t run = 0; run < rowsOfRun.size(); ++run)
    {
        SCOPED_TRACE("run " + std::to_string(run));
        std::vector<float> const& block = allocator.blocks[run];
        std::vector<float> const y(block.begin(), block.begin() + static_cast<int64_t>(inputs[run].size()));
        EXPECT_EQ(y, expectedY(inputs[run], rowsOfRun[run]));
    }
}

//! y = the positions of x's non-zero values ([1, count], data-dependent): its memory comes from the allocator, and the
//! count differs between runs.
TEST(PreparedRun, DataDependentOutputInNewMemoryAtEveryRun)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{1, {6}});
    INonZeroLayer* nonZero = h.network->addNonZero(*x);
    ASSERT_NE(nonZero, nullptr);
    nonZero->setIndicesType(DataType::kINT32);
    h.output(nonZero, "y");
    ASSERT_TRUE(h.build());
    // The blocks hold floats; int32 indices fit the same bytes.
    FreshMemoryAllocator allocator;
    ASSERT_TRUE(h.context->setOutputAllocator("y", &allocator));
    std::vector<std::vector<float>> const inputs{{0, 1, 0, 2, 3, 0}, {4, 0, 0, 0, 0, 5}, {0, 0, 7, 0, 0, 0}};
    std::vector<std::vector<int32_t>> const positions{{1, 3, 4}, {0, 5}, {2}};
    for (size_t run = 0; run < inputs.size(); ++run)
    {
        ASSERT_TRUE(h.run({{"x", inputs[run].data()}}, {}));
        EXPECT_EQ(h.shapeOf("y"), (std::vector<int64_t>{1, static_cast<int64_t>(positions[run].size())}));
    }
    ASSERT_EQ(allocator.blocks.size(), inputs.size());
    for (size_t run = 0; run < inputs.size(); ++run)
    {
        SCOPED_TRACE("run " + std::to_string(run));
        auto const* indices = reinterpret_cast<int32_t const*>(allocator.blocks[run].data());
        EXPECT_EQ(std::vector<int32_t>(indices, indices + positions[run].size()), positions[run]);
    }
}

} // namespace

//! The positions of `values`' non-zero elements.
std::vector<int32_t> nonZeroPositions(std::vector<float> const& values)
{
    std::vector<int32_t> positions;
    for (size_t i = 0; i < values.size(); ++i)
    {
        if (values[i] != 0.0F)
        {
            positions.push_back(static_cast<int32_t>(i));
        }
    }
    return positions;
}

//! Two sizes learnt one after the other in each run: c = [positions of x's non-zeros, positions of z's] ([1, n + m])
//! depends on both, and `tail`, the last m of c, is a slice starting at n. Each run learns its sizes anew, and only
//! what depends on a size is evaluated again when the size is learnt: a shape, a slice's start or an output left from
//! the run before, or from before the size was learnt, shows in the outputs.
TEST(PreparedRun, SizesLearntOneAfterAnotherInEachRun)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{1, {6}});
    ITensor* z = h.network->addInput("z", DataType::kFLOAT, Dims{1, {6}});
    INonZeroLayer* xPositions = h.network->addNonZero(*x);
    INonZeroLayer* zPositions = h.network->addNonZero(*z);
    ASSERT_NE(xPositions, nullptr);
    ASSERT_NE(zPositions, nullptr);
    xPositions->setIndicesType(DataType::kINT32);
    zPositions->setIndicesType(DataType::kINT32);
    ITensor* both[] = {xPositions->getOutput(0), zPositions->getOutput(0)};
    IConcatenationLayer* concat = h.network->addConcatenation(both, 2);
    concat->setAxis(1);
    h.output(concat, "c");
    // start = shape(x's positions) * [0, 1] = [0, n]; size = shape(z's positions) = [1, m].
    ITensor* xShape = h.network->addShape(*xPositions->getOutput(0))->getOutput(0);
    static int64_t const kSecondAxisOnly[] = {0, 1};
    IConstantLayer* mask = h.network->addConstant(Dims{1, {2}}, Weights{DataType::kINT64, kSecondAxisOnly, 2});
    ITensor* start = h.network->addElementWise(*xShape, *mask->getOutput(0), ElementWiseOperation::kPROD)->getOutput(0);
    ITensor* size = h.network->addShape(*zPositions->getOutput(0))->getOutput(0);
    ISliceLayer* tail = h.network->addSlice(*concat->getOutput(0), Dims2{0, 0}, Dims2{1, 1}, Dims2{1, 1});
    tail->setInput(1, *start);
    tail->setInput(2, *size);
    h.output(tail, "tail");
    ASSERT_TRUE(h.build());
    FreshMemoryAllocator cAllocator;
    FreshMemoryAllocator tailAllocator;
    ASSERT_TRUE(h.context->setOutputAllocator("c", &cAllocator));
    ASSERT_TRUE(h.context->setOutputAllocator("tail", &tailAllocator));
    // n and m change apart, to zero too.
    std::vector<std::pair<std::vector<float>, std::vector<float>>> const inputs{
        {{0, 1, 0, 2, 3, 0}, {4, 0, 0, 0, 0, 5}}, {{0, 1, 0, 2, 3, 0}, {1, 1, 0, 1, 0, 1}},
        {{7, 7, 7, 7, 0, 7}, {1, 1, 0, 1, 0, 1}}, {{0, 0, 0, 0, 0, 0}, {0, 0, 9, 0, 0, 0}},
        {{1, 0, 0, 0, 0, 1}, {0, 0, 0, 0, 0, 0}}};
    for (size_t run = 0; run < inputs.size(); ++run)
    {
        SCOPED_TRACE("run " + std::to_string(run));
        auto const& [xValues, zValues] = inputs[run];
        ASSERT_TRUE(h.run({{"x", xValues.data()}, {"z", zValues.data()}}, {}));
        std::vector<int32_t> const fromX = nonZeroPositions(xValues);
        std::vector<int32_t> const fromZ = nonZeroPositions(zValues);
        std::vector<int32_t> expectedC = fromX;
        expectedC.insert(expectedC.end(), fromZ.begin(), fromZ.end());
        ASSERT_EQ(cAllocator.shapes.back(), (std::vector<int64_t>{1, static_cast<int64_t>(expectedC.size())}));
        ASSERT_EQ(tailAllocator.shapes.back(), (std::vector<int64_t>{1, static_cast<int64_t>(fromZ.size())}));
        auto const* c = reinterpret_cast<int32_t const*>(cAllocator.blocks.back().data());
        auto const* tailValues = reinterpret_cast<int32_t const*>(tailAllocator.blocks.back().data());
        EXPECT_EQ(std::vector<int32_t>(c, c + expectedC.size()), expectedC);
        EXPECT_EQ(std::vector<int32_t>(tailValues, tailValues + fromZ.size()), fromZ);
    }
}
