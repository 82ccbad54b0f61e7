// A convolution's algorithm choice as the plan and the timing cache keep it: every source round-trips through both
// encodings, and bytes or tactics that name no source are refused (a plan) or left to cuDNN's heuristics (a cache).
#include "backend/cuda/tuning/algorithm_choice.h"
#include "serial/byte_io.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace
{

using kiln::cuda::AlgorithmChoice;

std::vector<AlgorithmChoice> everySource()
{
    return {AlgorithmChoice::perCall(6), AlgorithmChoice::graphEngine(3), AlgorithmChoice::kilnKernel(),
        AlgorithmChoice::depthwiseKernel(), AlgorithmChoice::depthwiseKernel(4), AlgorithmChoice::gemm(),
        AlgorithmChoice::gemm(7, 16)};
}

TEST(AlgorithmChoice, ADepthwiseChoiceHoldsItsStripAndReadsAsBeforeWithout)
{
    EXPECT_EQ(AlgorithmChoice::depthwiseKernel().index, 1) << "plans written before strips";
    for (int32_t const strip : {0, 1, 2, 4})
    {
        AlgorithmChoice const choice = AlgorithmChoice::depthwiseKernel(strip);
        EXPECT_TRUE(choice.isDepthwiseKernel()) << strip;
        EXPECT_EQ(choice.depthwiseStrip(), strip);
    }
    EXPECT_FALSE(AlgorithmChoice::kilnKernel().isDepthwiseKernel()) << "the small-channel kernel";
    EXPECT_FALSE(AlgorithmChoice::perCall(1).isDepthwiseKernel()) << "a cuDNN algorithm of the same index";
}

TEST(AlgorithmChoice, EverySourceRoundTripsThroughThePlanAndTheTimingCache)
{
    for (AlgorithmChoice const& choice : everySource())
    {
        SCOPED_TRACE("source " + std::to_string(static_cast<int>(choice.source)));
        EXPECT_EQ(AlgorithmChoice::decode(choice.encode()), choice);
        EXPECT_EQ(AlgorithmChoice::fromTactic(choice.tactic()), choice);
    }
    EXPECT_TRUE(AlgorithmChoice{}.encode().empty()) << "the heuristics' choice is no bytes at all";
    EXPECT_EQ(AlgorithmChoice::decode({}), AlgorithmChoice{});
}

TEST(AlgorithmChoice, AProductsChoiceHoldsItsRankAndHowManyPartsItsKIsSplitInto)
{
    AlgorithmChoice const whole = AlgorithmChoice::gemm(3);
    EXPECT_EQ(whole.gemmRank(), 3);
    EXPECT_EQ(whole.gemmSplits(), 1);
    AlgorithmChoice const split = AlgorithmChoice::gemm(3, 6);
    EXPECT_EQ(split.gemmRank(), 3);
    EXPECT_EQ(split.gemmSplits(), 6);
    EXPECT_FALSE(split == whole);
    AlgorithmChoice const decoded = AlgorithmChoice::fromTactic(split.tactic());
    EXPECT_EQ(decoded.gemmRank(), 3);
    EXPECT_EQ(decoded.gemmSplits(), 6);
}

TEST(AlgorithmChoice, ASourceNoKilnWroteIsMalformedInAPlanAndIgnoredInACache)
{
    kiln::serial::ByteWriter writer;
    writer.write(int32_t{5}); // one past kGEMM
    writer.write(int32_t{0});
    std::vector<uint8_t> const bytes = writer.take();
    try
    {
        AlgorithmChoice::decode(bytes);
        FAIL() << "source 5 decoded";
    }
    catch (std::runtime_error const& error)
    {
        EXPECT_NE(std::string(error.what()).find("malformed"), std::string::npos) << error.what();
    }
    EXPECT_EQ(AlgorithmChoice::fromTactic((uint64_t{5} << 32) | 0U), AlgorithmChoice{});
    EXPECT_EQ(AlgorithmChoice::fromTactic((uint64_t{4} << 32) | 0xFFFFFFFFU), AlgorithmChoice{}) << "index -1";
}

} // namespace
