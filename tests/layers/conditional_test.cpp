// IIfConditional on the CPU backend: the branch taken changes between runs of one context; only the taken branch
// runs (a gather out of range in the other one does not fail the run); branches of different extents give a
// data-dependent output; a condition computed from shapes; nested conditionals; the boundary layers' API; plans keep
// the guards (round trip); and the errors of a malformed conditional.
#include "host_tensor.h"
#include "recording_output_allocator.h"
#include "round_trip.h"

#include <cstring>

namespace
{

using namespace nvinfer1;
using kiln::test::errorMentions;
using kiln::test::LayerHarness;
using kiln::test::RecordingOutputAllocator;

Dims dims1(int64_t n)
{
    return Dims{1, {n}};
}

ITensor* scaled(LayerHarness& h, ITensor& x, std::vector<float> const& factor)
{
    ITensor* constant = h.network->addConstant(dims1(1), kiln::test::floatWeights(factor))->getOutput(0);
    return h.network->addElementWise(x, *constant, ElementWiseOperation::kPROD)->getOutput(0);
}

std::vector<float> runWith(LayerHarness& h, bool condition, std::vector<float> const& x)
{
    std::vector<float> y(x.size(), -1.0F);
    h.run({{"cond", &condition}, {"x", x.data()}}, {{"y", y.data()}});
    return y;
}

TEST(IfConditional, TakesTheBranchTheConditionSaysAtEachRun)
{
    LayerHarness h;
    ITensor* condition = h.network->addInput("cond", DataType::kBOOL, Dims{0, {}});
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, dims1(3));
    IIfConditional* conditional = h.network->addIfConditional();
    ASSERT_NE(conditional->setCondition(*condition), nullptr) << h.logger.errors();
    IIfConditionalInputLayer* input = conditional->addInput(*x);
    ASSERT_NE(input, nullptr) << h.logger.errors();
    ITensor* branchInput = input->getOutput(0);
    ITensor* squared = h.network->addElementWise(*branchInput, *branchInput, ElementWiseOperation::kPROD)->getOutput(0);
    ITensor* doubled = scaled(h, *x, {2.0F});
    IIfConditionalOutputLayer* output = conditional->addOutput(*squared, *doubled);
    h.output(output, "y");
    ASSERT_TRUE(h.build());
    kiln::test::expectRoundTrip(h);
    std::vector<float> const values{1.0F, -2.0F, 3.0F};
    EXPECT_EQ(runWith(h, true, values), (std::vector<float>{1.0F, 4.0F, 9.0F}));
    EXPECT_EQ(runWith(h, false, values), (std::vector<float>{2.0F, -4.0F, 6.0F}));
    EXPECT_EQ(runWith(h, true, values), (std::vector<float>{1.0F, 4.0F, 9.0F}));
}

TEST(IfConditional, OnlyTheTakenBranchRuns)
{
    // true: x[index] (a gather, which fails on an index out of range); false: x[0:1].
    LayerHarness h;
    ITensor* condition = h.network->addInput("cond", DataType::kBOOL, Dims{0, {}});
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, dims1(4));
    ITensor* index = h.network->addInput("index", DataType::kINT32, dims1(1));
    IIfConditional* conditional = h.network->addIfConditional();
    conditional->setCondition(*condition);
    ITensor* gathered = h.network->addGather(*x, *index, 0)->getOutput(0);
    ITensor* first = h.network->addSlice(*x, dims1(0), dims1(1), dims1(1))->getOutput(0);
    h.output(conditional->addOutput(*gathered, *first), "y");
    ASSERT_TRUE(h.build());
    std::vector<float> const values{5.0F, 6.0F, 7.0F, 8.0F};
    float y = 0.0F;
    int32_t outOfRange = 100;
    bool taken = false;
    EXPECT_TRUE(h.run({{"cond", &taken}, {"x", values.data()}, {"index", &outOfRange}}, {{"y", &y}}));
    EXPECT_EQ(y, 5.0F);
    int32_t inRange = 2;
    taken = true;
    EXPECT_TRUE(h.run({{"cond", &taken}, {"x", values.data()}, {"index", &inRange}}, {{"y", &y}}));
    EXPECT_EQ(y, 7.0F);
    EXPECT_FALSE(h.context->enqueueV3(nullptr) && h.context->setTensorAddress("index", &outOfRange)
        && h.context->enqueueV3(nullptr));
    EXPECT_TRUE(errorMentions(h, "out of range")) << h.logger.errors();
}

TEST(IfConditional, BranchesOfDifferentExtentsGiveADataDependentOutput)
{
    // true: x, [n]; false: x twice, [2n]. Memory is planned for the larger branch.
    LayerHarness h;
    ITensor* condition = h.network->addInput("cond", DataType::kBOOL, Dims{0, {}});
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, dims1(-1));
    h.setProfile("x", dims1(1), dims1(2), dims1(4));
    IIfConditional* conditional = h.network->addIfConditional();
    conditional->setCondition(*condition);
    ITensor* both[] = {x, x};
    ITensor* twice = h.network->addConcatenation(both, 2)->getOutput(0);
    IIfConditionalOutputLayer* output = conditional->addOutput(*x, *twice);
    h.output(output, "y");
    EXPECT_EQ(output->getOutput(0)->getDimensions().d[0], -1);
    ASSERT_TRUE(h.build());
    kiln::test::expectRoundTrip(h);
    RecordingOutputAllocator allocator;
    ASSERT_TRUE(h.context->setOutputAllocator("y", &allocator));
    std::vector<float> const values{1.0F, 2.0F, 3.0F};
    ASSERT_TRUE(h.context->setInputShape("x", dims1(3)));
    EXPECT_EQ(h.context->getMaxOutputSize("y"), 6 * static_cast<int64_t>(sizeof(float)));
    for (bool taken : {false, true})
    {
        SCOPED_TRACE(taken);
        ASSERT_TRUE(h.run({{"cond", &taken}, {"x", values.data()}}, {}));
        std::vector<float> const expected = taken ? values : std::vector<float>{1.0F, 2.0F, 3.0F, 1.0F, 2.0F, 3.0F};
        EXPECT_EQ(h.shapeOf("y"), (std::vector<int64_t>{static_cast<int64_t>(expected.size())}));
        std::vector<float> y(expected.size());
        std::memcpy(y.data(), allocator.memory(), y.size() * sizeof(float));
        EXPECT_EQ(y, expected);
        EXPECT_EQ(allocator.shapes.back(), (std::vector<int64_t>{static_cast<int64_t>(expected.size())}));
    }
}

TEST(IfConditional, ConditionComputedFromShapes)
{
    // y = x * 2 if x has 2 elements, else x: the condition is known from the input shape alone.
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, dims1(-1));
    h.setProfile("x", dims1(1), dims1(2), dims1(4));
    ITensor* shape = h.network->addShape(*x)->getOutput(0);
    int64_t const zero = 0;
    int64_t const two = 2;
    ITensor* axis0 = h.network->addConstant(Dims{0, {}}, Weights{DataType::kINT64, &zero, 1})->getOutput(0);
    ITensor* extent = h.network->addGather(*shape, *axis0, 0)->getOutput(0);
    ITensor* twoConstant = h.network->addConstant(Dims{0, {}}, Weights{DataType::kINT64, &two, 1})->getOutput(0);
    ITensor* condition = h.network->addElementWise(*extent, *twoConstant, ElementWiseOperation::kEQUAL)->getOutput(0);
    IIfConditional* conditional = h.network->addIfConditional();
    ASSERT_NE(conditional->setCondition(*condition), nullptr) << h.logger.errors();
    h.output(conditional->addOutput(*scaled(h, *x, {2.0F}), *x), "y");
    ASSERT_TRUE(h.build());
    for (std::vector<float> const& values : {std::vector<float>{1.0F, 2.0F}, std::vector<float>{1.0F, 2.0F, 3.0F}})
    {
        ASSERT_TRUE(h.context->setInputShape("x", dims1(static_cast<int64_t>(values.size()))));
        std::vector<float> y(values.size());
        ASSERT_TRUE(h.run({{"x", values.data()}}, {{"y", y.data()}}));
        float const factor = values.size() == 2 ? 2.0F : 1.0F;
        for (size_t i = 0; i < values.size(); ++i)
        {
            EXPECT_EQ(y[i], values[i] * factor);
        }
    }
}

TEST(IfConditional, NestedConditionals)
{
    // y = outer ? (inner ? 2x : 3x) : 4x
    LayerHarness h;
    ITensor* outerCondition = h.network->addInput("outer", DataType::kBOOL, Dims{0, {}});
    ITensor* innerCondition = h.network->addInput("inner", DataType::kBOOL, Dims{0, {}});
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, dims1(2));
    IIfConditional* outer = h.network->addIfConditional();
    outer->setCondition(*outerCondition);
    IIfConditional* inner = h.network->addIfConditional();
    inner->setCondition(*innerCondition);
    ITensor* innerResult = inner->addOutput(*scaled(h, *x, {2.0F}), *scaled(h, *x, {3.0F}))->getOutput(0);
    h.output(outer->addOutput(*innerResult, *scaled(h, *x, {4.0F})), "y");
    ASSERT_TRUE(h.build());
    kiln::test::expectRoundTrip(h);
    std::vector<float> const values{1.0F, -1.0F};
    for (bool outerTaken : {false, true})
    {
        for (bool innerTaken : {false, true})
        {
            std::vector<float> y(2);
            ASSERT_TRUE(
                h.run({{"outer", &outerTaken}, {"inner", &innerTaken}, {"x", values.data()}}, {{"y", y.data()}}));
            float const factor = outerTaken ? (innerTaken ? 2.0F : 3.0F) : 4.0F;
            EXPECT_EQ(y, (std::vector<float>{factor, -factor})) << outerTaken << innerTaken;
        }
    }
}

TEST(IfConditional, BoundaryLayersAsTensorRTShowsThem)
{
    LayerHarness h;
    ITensor* condition = h.network->addInput("cond", DataType::kBOOL, Dims{0, {}});
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, dims1(2));
    IIfConditional* conditional = h.network->addIfConditional();
    conditional->setName("choice");
    EXPECT_STREQ(conditional->getName(), "choice");
    IIfConditionalInputLayer* input = conditional->addInput(*x);
    // The condition may come after the outputs.
    IIfConditionalOutputLayer* output = conditional->addOutput(*input->getOutput(0), *x);
    IConditionLayer* conditionLayer = conditional->setCondition(*condition);
    ASSERT_NE(conditionLayer, nullptr) << h.logger.errors();
    EXPECT_EQ(conditionLayer->getType(), LayerType::kCONDITION);
    EXPECT_EQ(conditionLayer->getNbOutputs(), 0);
    EXPECT_EQ(conditionLayer->getConditional(), conditional);
    EXPECT_EQ(input->getType(), LayerType::kCONDITIONAL_INPUT);
    EXPECT_EQ(input->getConditional(), conditional);
    EXPECT_EQ(output->getType(), LayerType::kCONDITIONAL_OUTPUT);
    EXPECT_EQ(output->getNbInputs(), 2);
    EXPECT_EQ(output->getNbOutputs(), 1);
    EXPECT_EQ(output->getInput(1), x);
    EXPECT_EQ(output->getConditional(), conditional);
    EXPECT_EQ(output->getOutput(0)->getDimensions().d[0], 2); // equal extents stay known
    h.output(output, "y");
    ASSERT_TRUE(h.build());
    std::vector<float> const values{3.0F, 4.0F};
    EXPECT_EQ(runWith(h, true, values), values);
}

TEST(IfConditional, MalformedConditionalsAreRefused)
{
    LayerHarness h;
    ITensor* notBool = h.network->addInput("f", DataType::kFLOAT, Dims{0, {}});
    ITensor* vector = h.network->addInput("v", DataType::kBOOL, dims1(2));
    ITensor* condition = h.network->addInput("cond", DataType::kBOOL, Dims{0, {}});
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, dims1(2));
    ITensor* ints = h.network->addInput("i", DataType::kINT32, dims1(2));
    ITensor* matrix = h.network->addInput("m", DataType::kFLOAT, Dims{2, {1, 2}});
    IIfConditional* conditional = h.network->addIfConditional();
    EXPECT_EQ(conditional->setCondition(*notBool), nullptr);
    EXPECT_TRUE(errorMentions(h, "must be a 0-D BOOL tensor, not FLOAT of rank 0")) << h.logger.errors();
    EXPECT_EQ(conditional->setCondition(*vector), nullptr);
    EXPECT_TRUE(errorMentions(h, "BOOL of rank 1")) << h.logger.errors();
    EXPECT_EQ(conditional->addOutput(*x, *ints), nullptr);
    EXPECT_TRUE(errorMentions(h, "must have one type, not FLOAT (true) and INT32 (false)")) << h.logger.errors();
    EXPECT_EQ(conditional->addOutput(*x, *matrix), nullptr);
    EXPECT_TRUE(errorMentions(h, "must have one rank, not 1 (true) and 2 (false)")) << h.logger.errors();
    h.output(conditional->addOutput(*x, *x), "y");
    h.expectBuildToFail("the conditional has no condition: call IIfConditional::setCondition");
    ASSERT_NE(conditional->setCondition(*condition), nullptr);
    EXPECT_EQ(conditional->setCondition(*condition), nullptr);
    EXPECT_TRUE(errorMentions(h, "already has its condition")) << h.logger.errors();
}

} // namespace
