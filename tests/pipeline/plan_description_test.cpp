// describePlan, what `kiln inspect` prints: a tensor's extents are printed as expressions of the input extents, and
// one that would print too long is summarized by its operations. The expression table shares its nodes, so an
// extent whose operands repeat prints exponentially longer than it is stored (ViT-B/16's output extent, through its
// blocks' reshapes, once printed as 400 MB).
#include "../layers/layer_harness.h"
#include "runtime/plan_description.h"

#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

namespace
{

using namespace nvinfer1;
using kiln::test::LayerHarness;

//! The harness's plan as `kiln inspect` prints it.
std::string describe(LayerHarness const& h)
{
    std::string text;
    std::string error;
    EXPECT_TRUE(kiln::describePlan(h.plan->data(), h.plan->size(), "test.plan", text, error)) << error;
    return text;
}

//! An INT64 constant: a shape tensor.
ITensor& shapeConstant(INetworkDefinition& network, std::vector<int64_t> const& values)
{
    Weights const weights{DataType::kINT64, values.data(), static_cast<int64_t>(values.size())};
    return *network.addConstant(Dims{1, {static_cast<int64_t>(values.size())}}, weights)->getOutput(0);
}

//! y = x [n, 4] reshaped `rounds` times to [(n + n) floordiv 2, 4], each round's n its input's first extent: the
//! same shape, an extent whose printed form grows tenfold each round (Reshape's rules for 0 and -1 name the new
//! extent three times).
struct RepeatedReshape
{
    LayerHarness h;
    ITensor* x{h.network->addInput("x", DataType::kFLOAT, Dims{2, {-1, 4}})};
    std::vector<int64_t> const two{2};
    std::vector<int64_t> const four{4};
    std::vector<int64_t> const first{0};

    explicit RepeatedReshape(int rounds)
    {
        INetworkDefinition& network = *h.network;
        ITensor* t = x;
        IShuffleLayer* last = nullptr;
        for (int round = 0; round < rounds; ++round)
        {
            ITensor* shape = network.addShape(*t)->getOutput(0);
            ITensor* n = network.addGather(*shape, shapeConstant(network, first), 0)->getOutput(0);
            ITensor* sum = network.addElementWise(*n, *n, ElementWiseOperation::kSUM)->getOutput(0);
            ITensor* half = network.addElementWise(*sum, shapeConstant(network, two), ElementWiseOperation::kFLOOR_DIV)
                                ->getOutput(0);
            ITensor* parts[] = {half, &shapeConstant(network, four)};
            IShuffleLayer* reshape = network.addShuffle(*t);
            reshape->setInput(1, *network.addConcatenation(parts, 2)->getOutput(0));
            t = reshape->getOutput(0);
            last = reshape;
        }
        h.output(last, "y");
        h.setProfile("x", Dims{2, {1, 4}}, Dims{2, {2, 4}}, Dims{2, {8, 4}});
    }
};

TEST(PlanDescription, PrintsShortExtentsWhole)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{2, {-1, 4}});
    ITensor* twice[] = {x, x};
    h.output(h.network->addConcatenation(twice, 2), "y");
    h.setProfile("x", Dims{2, {1, 4}}, Dims{2, {2, 4}}, Dims{2, {8, 4}});
    ASSERT_TRUE(h.build());
    std::string const text = describe(h);
    EXPECT_TRUE(std::regex_search(text, std::regex(R"(input +x +FP32 +\[x\.d0, 4\])"))) << text;
    EXPECT_TRUE(std::regex_search(text, std::regex(R"(output +y +FP32 +\[\(x\.d0 [+*] (x\.d0|2)\), 4\])"))) << text;
}

TEST(PlanDescription, SummarizesExtentsThatPrintTooLong)
{
    RepeatedReshape net(40); // printed whole, the extent would take more than 2^40 characters
    ASSERT_TRUE(net.h.build());
    std::string const text = describe(net.h);
    EXPECT_LT(text.size(), size_t{64} << 10);
    EXPECT_TRUE(std::regex_search(text, std::regex(R"(output +y +FP32 +\[<an expression of \d+ operations>, 4\])")))
        << text.substr(0, 4000);
    EXPECT_TRUE(std::regex_search(text, std::regex(R"(input +x +FP32 +\[x\.d0, 4\])")));

    // The extent is still the input's: the plan runs.
    EXPECT_TRUE(net.h.context->setInputShape("x", Dims{2, {3, 4}}));
    Dims const y = net.h.context->getTensorShape("y");
    EXPECT_EQ(y.nbDims, 2);
    EXPECT_EQ(y.d[0], 3);
    EXPECT_EQ(y.d[1], 4);
}

} // namespace
