// ILoop on the CPU backend: running sums over an iterator with every kind of loop output; a while loop whose trip
// count comes from the data, changing between runs; a reverse iterator over an inner axis; a trip count and an
// output length computed from an input's shape; slices read and stacked in place or copied; nested loops;
// recurrences that read one another (a swap); the boundary layers' API; plans that keep the loops (round trip); and
// the errors of malformed loops.
#include "host_tensor.h"
#include "plan/plan_format.h"
#include "round_trip.h"

namespace
{

using namespace nvinfer1;
using kiln::test::errorMentions;
using kiln::test::LayerHarness;

Dims dims1(int64_t n)
{
    return Dims{1, {n}};
}

Dims dims2(int64_t a, int64_t b)
{
    return Dims{2, {a, b}};
}

ITensor* scalarInt(LayerHarness& h, int32_t const& value)
{
    return h.network->addConstant(Dims{0, {}}, Weights{DataType::kINT32, &value, 1})->getOutput(0);
}

ITensor* zeros(LayerHarness& h, std::vector<float> const& storage)
{
    auto const n = static_cast<int64_t>(storage.size());
    return h.network->addConstant(dims1(n), kiln::test::floatWeights(storage))->getOutput(0);
}

ITensor* sum(LayerHarness& h, ITensor& a, ITensor& b)
{
    return h.network->addElementWise(a, b, ElementWiseOperation::kSUM)->getOutput(0);
}

TEST(Loop, RunningSumsOverAnIteratorWithEveryOutputKind)
{
    // x [4, 3]: rows r0..r3; s_i = r0 + ... + r_i.
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, dims2(4, 3));
    static int32_t const kTrips = 4;
    static std::vector<float> const kZeros(3, 0.0F);
    ILoop* loop = h.network->addLoop();
    ASSERT_NE(loop, nullptr) << h.logger.errors();
    loop->setName("running sum");
    EXPECT_STREQ(loop->getName(), "running sum");
    ITripLimitLayer* limit = loop->addTripLimit(*scalarInt(h, kTrips), TripLimit::kCOUNT);
    ASSERT_NE(limit, nullptr) << h.logger.errors();
    EXPECT_EQ(limit->getTripLimit(), TripLimit::kCOUNT);
    EXPECT_EQ(limit->getLoop(), loop);
    IIteratorLayer* row = loop->addIterator(*x);
    ASSERT_NE(row, nullptr) << h.logger.errors();
    EXPECT_EQ(row->getOutput(0)->getDimensions().nbDims, 1);
    IRecurrenceLayer* total = loop->addRecurrence(*zeros(h, kZeros));
    ASSERT_NE(total, nullptr) << h.logger.errors();
    EXPECT_EQ(total->getNbInputs(), 1);
    EXPECT_EQ(total->getNbOutputs(), 1);
    ITensor* next = sum(h, *total->getOutput(0), *row->getOutput(0));
    total->setInput(1, *next);
    EXPECT_EQ(total->getNbInputs(), 2);
    EXPECT_EQ(total->getInput(1), next);
    ILoopOutputLayer* last = loop->addLoopOutput(*next, LoopOutput::kLAST_VALUE);
    ILoopOutputLayer* stacked = loop->addLoopOutput(*next, LoopOutput::kCONCATENATE, 0);
    ILoopOutputLayer* reversed = loop->addLoopOutput(*next, LoopOutput::kREVERSE, 1);
    ASSERT_TRUE(last && stacked && reversed) << h.logger.errors();
    stacked->setInput(1, *scalarInt(h, kTrips));
    reversed->setInput(1, *scalarInt(h, kTrips));
    EXPECT_EQ(stacked->getLoopOutput(), LoopOutput::kCONCATENATE);
    EXPECT_EQ(reversed->getAxis(), 1);
    EXPECT_EQ(stacked->getOutput(0)->getDimensions().d[0], 4);
    EXPECT_EQ(reversed->getOutput(0)->getDimensions().d[1], 4);
    h.output(last, "last");
    h.output(stacked, "stacked");
    h.output(reversed, "reversed");
    ASSERT_TRUE(h.build());
    kiln::test::expectRoundTrip(h);
    std::vector<float> const values{1, 2, 3, 10, 20, 30, 100, 200, 300, 1000, 2000, 3000};
    std::vector<float> lastValue(3);
    std::vector<float> stackedValues(12);
    std::vector<float> reversedValues(12);
    ASSERT_TRUE(h.run({{"x", values.data()}},
        {{"last", lastValue.data()}, {"stacked", stackedValues.data()}, {"reversed", reversedValues.data()}}));
    EXPECT_EQ(lastValue, (std::vector<float>{1111, 2222, 3333}));
    EXPECT_EQ(stackedValues, (std::vector<float>{1, 2, 3, 11, 22, 33, 111, 222, 333, 1111, 2222, 3333}));
    // [3, 4]: column j holds s_(3 - j).
    EXPECT_EQ(reversedValues, (std::vector<float>{1111, 111, 11, 1, 2222, 222, 22, 2, 3333, 333, 33, 3}));
}

//! The types the harness's plan stores the first output of its layers of kind `type` in, layer after layer.
std::vector<DataType> planOutputTypes(LayerHarness const& h, LayerType type)
{
    kiln::plan::PlanModel model;
    std::string error;
    EXPECT_TRUE(kiln::plan::readPlan(h.plan->data(), h.plan->size(), model, error)) << error;
    std::vector<DataType> types;
    for (kiln::plan::LayerRecord const& record : model.layers)
    {
        if (record.type == type)
        {
            types.push_back(model.tensors[static_cast<size_t>(record.outputs.at(0))].type);
        }
    }
    return types;
}

//! A kFP16 build of s = initial + r0 + ... + r3 over the rows r of x [4, 3] (or of x + x with `doubled`), its last
//! value the output "last".
struct Fp16RunningSum
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, dims2(4, 3));
    ILoop* loop = h.network->addLoop();

    void build(ITensor& initial, bool doubled)
    {
        static int32_t const kTrips = 4;
        loop->addTripLimit(*scalarInt(h, kTrips), TripLimit::kCOUNT);
        IRecurrenceLayer* total = loop->addRecurrence(initial);
        ITensor* rows = doubled ? sum(h, *x, *x) : x;
        ITensor* next = sum(h, *total->getOutput(0), *loop->addIterator(*rows)->getOutput(0));
        total->setInput(1, *next);
        h.output(loop->addLoopOutput(*next, LoopOutput::kLAST_VALUE), "last");
        h.config->setFlag(BuilderFlag::kFP16);
        ASSERT_TRUE(h.build()) << h.logger.errors();
        kiln::test::expectRoundTrip(h);
    }

    std::vector<float> run(std::map<std::string, void const*> inputs)
    {
        std::vector<float> const values{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
        inputs.emplace("x", values.data());
        std::vector<float> last(3);
        EXPECT_TRUE(h.run(inputs, {{"last", last.data()}}));
        return last;
    }
};

TEST(Loop, AnFp16BuildIteratesAComputedTensorInItsType)
{
    // The rows of x + x, which kFP16 computes and stores in HALF: the iterator's slices stay HALF (read in place, not
    // converted to the network's FLOAT each iteration). s = 2 * (r0 + ... + r3), exact in FP16.
    Fp16RunningSum sums;
    static std::vector<float> const kZeros(3, 0.0F);
    sums.build(*zeros(sums.h, kZeros), true);
    EXPECT_EQ(planOutputTypes(sums.h, LayerType::kITERATOR), (std::vector<DataType>{DataType::kHALF}));
    EXPECT_EQ(sums.run({}), (std::vector<float>{44, 52, 60}));
}

TEST(Loop, AnFp16BuildCarriesTheRecurrenceInHalf)
{
    // The body's sum computes in HALF and its next value is stored HALF, so the recurrence carries HALF: its initial
    // FLOAT constant converts once, before the first iteration. Sums up to 30 are exact in FP16.
    Fp16RunningSum sums;
    static std::vector<float> const kStart{0.5F, -1, 2};
    sums.build(*zeros(sums.h, kStart), false);
    EXPECT_EQ(planOutputTypes(sums.h, LayerType::kRECURRENCE), (std::vector<DataType>{DataType::kHALF}));
    EXPECT_EQ(planOutputTypes(sums.h, LayerType::kITERATOR), (std::vector<DataType>{DataType::kFLOAT}));
    // The loop's output is the network's, so it keeps its FLOAT.
    EXPECT_EQ(planOutputTypes(sums.h, LayerType::kLOOP_OUTPUT), (std::vector<DataType>{DataType::kFLOAT}));
    EXPECT_EQ(sums.run({}), (std::vector<float>{22.5F, 25, 32}));
}

TEST(Loop, AnFp16BuildComputesTheInitialValueInHalf)
{
    // The initial value computed by a layer that kFP16 lets compute in HALF (an LSTM's initial state from its
    // inputs) is stored HALF, the type the recurrence carries. s = (h0 + h0) + r0 + ... + r3, exact in FP16.
    Fp16RunningSum sums;
    ITensor* h0 = sums.h.network->addInput("h0", DataType::kFLOAT, dims1(3));
    ILayer* twice = sums.h.network->addElementWise(*h0, *h0, ElementWiseOperation::kSUM);
    sums.build(*twice->getOutput(0), false);
    EXPECT_EQ(planOutputTypes(sums.h, LayerType::kELEMENTWISE).front(), DataType::kHALF);
    EXPECT_EQ(planOutputTypes(sums.h, LayerType::kRECURRENCE), (std::vector<DataType>{DataType::kHALF}));
    std::vector<float> const initial{0.5F, -1, 2};
    EXPECT_EQ(sums.run({{"h0", initial.data()}}), (std::vector<float>{23, 24, 34}));
}

TEST(Loop, WhileLoopRunsAsManyTimesAsTheDataSays)
{
    // i = 0; p = 1; while (i < n) { i += 1; p *= 2; } gives 2^n. n is a run-time input.
    LayerHarness h;
    ITensor* n = h.network->addInput("n", DataType::kINT32, Dims{0, {}});
    static int32_t const kZero = 0;
    static int32_t const kOne = 1;
    static float const kOneF = 1.0F;
    static float const kTwo = 2.0F;
    ILoop* loop = h.network->addLoop();
    IRecurrenceLayer* counter = loop->addRecurrence(*scalarInt(h, kZero));
    IRecurrenceLayer* power
        = loop->addRecurrence(*h.network->addConstant(Dims{0, {}}, Weights{DataType::kFLOAT, &kOneF, 1})->getOutput(0));
    ITensor* below = h.network->addElementWise(*counter->getOutput(0), *n, ElementWiseOperation::kLESS)->getOutput(0);
    ASSERT_NE(loop->addTripLimit(*below, TripLimit::kWHILE), nullptr) << h.logger.errors();
    EXPECT_EQ(loop->addTripLimit(*below, TripLimit::kWHILE), nullptr);
    EXPECT_TRUE(errorMentions(h, "already has a kWHILE trip limit")) << h.logger.errors();
    counter->setInput(1, *sum(h, *counter->getOutput(0), *scalarInt(h, kOne)));
    ITensor* two = h.network->addConstant(Dims{0, {}}, Weights{DataType::kFLOAT, &kTwo, 1})->getOutput(0);
    ITensor* doubled = h.network->addElementWise(*power->getOutput(0), *two, ElementWiseOperation::kPROD)->getOutput(0);
    power->setInput(1, *doubled);
    h.output(loop->addLoopOutput(*power->getOutput(0), LoopOutput::kLAST_VALUE), "before");
    h.output(loop->addLoopOutput(*doubled, LoopOutput::kLAST_VALUE), "after");
    ASSERT_TRUE(h.build());
    kiln::test::expectRoundTrip(h);
    for (int32_t trips : {3, 0, 5, 1})
    {
        SCOPED_TRACE(trips);
        float before = -1.0F;
        float after = -1.0F;
        ASSERT_TRUE(h.run({{"n", &trips}}, {{"before", &before}, {"after", &after}}));
        // The last iteration's values: p before it doubled, and after; zeros when no iteration ran.
        EXPECT_EQ(after, trips == 0 ? 0.0F : static_cast<float>(1 << trips));
        EXPECT_EQ(before, trips == 0 ? 0.0F : static_cast<float>(1 << (trips - 1)));
    }
}

TEST(Loop, ReverseIteratorOverAnInnerAxis)
{
    // x [2, 3]: columns from the last, stacked along axis 1: the columns reversed.
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, dims2(2, 3));
    static int32_t const kTrips = 3;
    ILoop* loop = h.network->addLoop();
    loop->addTripLimit(*scalarInt(h, kTrips), TripLimit::kCOUNT);
    IIteratorLayer* column = loop->addIterator(*x, 1, true);
    ASSERT_NE(column, nullptr) << h.logger.errors();
    EXPECT_TRUE(column->getReverse());
    EXPECT_EQ(column->getAxis(), 1);
    ITensor* negated = h.network->addUnary(*column->getOutput(0), UnaryOperation::kNEG)->getOutput(0);
    ILoopOutputLayer* out = loop->addLoopOutput(*negated, LoopOutput::kCONCATENATE, 1);
    out->setInput(1, *scalarInt(h, kTrips));
    h.output(out, "y");
    ASSERT_TRUE(h.build());
    std::vector<float> const values{1, 2, 3, 4, 5, 6};
    std::vector<float> y(6);
    ASSERT_TRUE(h.run({{"x", values.data()}}, {{"y", y.data()}}));
    EXPECT_EQ(y, (std::vector<float>{-3, -2, -1, -6, -5, -4}));
}

TEST(Loop, TripCountAndLengthFromAnInputsShape)
{
    // x [n, 2] with n in [1, 5]: the loop runs n times and stacks n rows, each row doubled.
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, dims2(-1, 2));
    h.setProfile("x", dims2(1, 2), dims2(3, 2), dims2(5, 2));
    static int32_t const kFirst = 0;
    ITensor* shape = h.network->addShape(*x)->getOutput(0);
    ITensor* index = h.network->addConstant(Dims{0, {}}, Weights{DataType::kINT32, &kFirst, 1})->getOutput(0);
    ITensor* rows = h.network->addGather(*shape, *index, 0)->getOutput(0);
    ILoop* loop = h.network->addLoop();
    ASSERT_NE(loop->addTripLimit(*rows, TripLimit::kCOUNT), nullptr) << h.logger.errors();
    ITensor* row = loop->addIterator(*x)->getOutput(0);
    ITensor* doubled = sum(h, *row, *row);
    ILoopOutputLayer* out = loop->addLoopOutput(*doubled, LoopOutput::kCONCATENATE);
    out->setInput(1, *rows);
    h.output(out, "y");
    ASSERT_TRUE(h.build());
    kiln::test::expectRoundTrip(h);
    for (int64_t n : {3, 1, 5})
    {
        SCOPED_TRACE(n);
        std::vector<float> values(static_cast<size_t>(2 * n));
        std::vector<float> expected(values.size());
        for (size_t i = 0; i < values.size(); ++i)
        {
            values[i] = static_cast<float>(i) - 2.5F;
            expected[i] = 2.0F * values[i];
        }
        ASSERT_TRUE(h.context->setInputShape("x", dims2(n, 2)));
        std::vector<float> y(values.size());
        ASSERT_TRUE(h.run({{"x", values.data()}}, {{"y", y.data()}}));
        EXPECT_EQ(h.shapeOf("y"), (std::vector<int64_t>{n, 2}));
        EXPECT_EQ(y, expected);
    }
}

TEST(Loop, AlignedSlicesAreReadAndWrittenInPlaceOthersCopied)
{
    // x [4, n]: s_0 = r_0 and s_t = s_(t-1) + r_t over every row, stacked in order and in reverse. With n = 64 each
    // row is 256 bytes: the iterator reads it where it lies and the sum is written into one stacked output's row (the
    // other copies it from there); with n = 3 rows are copied both ways. The runs alternate, so each starts where the
    // other left.
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, dims2(4, -1));
    h.setProfile("x", dims2(4, 1), dims2(4, 64), dims2(4, 64));
    static int32_t const kFirst = 0;
    static int32_t const kTrips = 4;
    ITensor* first = h.network->addGather(*x, *scalarInt(h, kFirst), 0)->getOutput(0);
    ILoop* loop = h.network->addLoop();
    loop->addTripLimit(*scalarInt(h, kTrips), TripLimit::kCOUNT);
    ITensor* row = loop->addIterator(*x)->getOutput(0);
    IRecurrenceLayer* total = loop->addRecurrence(*first);
    ITensor* next = sum(h, *total->getOutput(0), *row);
    total->setInput(1, *next);
    ILoopOutputLayer* stacked = loop->addLoopOutput(*next, LoopOutput::kCONCATENATE);
    stacked->setInput(1, *scalarInt(h, kTrips));
    h.output(stacked, "stacked");
    ILoopOutputLayer* reversed = loop->addLoopOutput(*next, LoopOutput::kREVERSE);
    reversed->setInput(1, *scalarInt(h, kTrips));
    h.output(reversed, "reversed");
    h.output(loop->addLoopOutput(*next, LoopOutput::kLAST_VALUE), "last");
    ASSERT_TRUE(h.build());
    for (int64_t n : {64, 3, 64, 3})
    {
        SCOPED_TRACE(n);
        std::vector<float> values(static_cast<size_t>(4 * n));
        for (size_t i = 0; i < values.size(); ++i)
        {
            values[i] = static_cast<float>((i * 7 + static_cast<size_t>(n)) % 13) - 6.0F;
        }
        std::vector<float> const given = values;
        std::vector<float> expected(values.size());
        for (int64_t j = 0; j < n; ++j)
        {
            float running = values[static_cast<size_t>(j)];
            for (int64_t t = 0; t < 4; ++t)
            {
                running += values[static_cast<size_t>(t * n + j)];
                expected[static_cast<size_t>(t * n + j)] = running;
            }
        }
        ASSERT_TRUE(h.context->setInputShape("x", dims2(4, n)));
        std::vector<float> reversedExpected;
        for (int64_t t = 3; t >= 0; --t)
        {
            reversedExpected.insert(reversedExpected.end(), expected.begin() + t * n, expected.begin() + (t + 1) * n);
        }
        std::vector<float> stackedValues(values.size());
        std::vector<float> reversedValues(values.size());
        std::vector<float> lastValues(static_cast<size_t>(n));
        ASSERT_TRUE(h.run({{"x", values.data()}},
            {{"stacked", stackedValues.data()}, {"reversed", reversedValues.data()}, {"last", lastValues.data()}}));
        EXPECT_EQ(stackedValues, expected);
        EXPECT_EQ(reversedValues, reversedExpected);
        EXPECT_EQ(lastValues, std::vector<float>(expected.end() - n, expected.end()));
        EXPECT_EQ(values, given); // the iterated input is read, never written
    }
}

TEST(Loop, NestedLoops)
{
    // for i in 0..2: { t = 0; for j in 0..3: t += x; acc += t } gives acc = 3 * 3 * x.
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, dims1(2));
    static int32_t const kOuter = 3;
    static int32_t const kInner = 3;
    static std::vector<float> const kZeros(2, 0.0F);
    ILoop* outer = h.network->addLoop();
    outer->addTripLimit(*scalarInt(h, kOuter), TripLimit::kCOUNT);
    IRecurrenceLayer* acc = outer->addRecurrence(*zeros(h, kZeros));
    ILoop* inner = h.network->addLoop();
    inner->addTripLimit(*scalarInt(h, kInner), TripLimit::kCOUNT);
    // The inner loop starts from the outer recurrence's value times zero, so it depends on the outer iteration.
    ITensor* zero
        = h.network->addElementWise(*acc->getOutput(0), *zeros(h, kZeros), ElementWiseOperation::kPROD)->getOutput(0);
    IRecurrenceLayer* t = inner->addRecurrence(*zero);
    ITensor* tNext = sum(h, *t->getOutput(0), *x);
    t->setInput(1, *tNext);
    ITensor* innerTotal = inner->addLoopOutput(*tNext, LoopOutput::kLAST_VALUE)->getOutput(0);
    ITensor* accNext = sum(h, *acc->getOutput(0), *innerTotal);
    acc->setInput(1, *accNext);
    h.output(outer->addLoopOutput(*accNext, LoopOutput::kLAST_VALUE), "y");
    ASSERT_TRUE(h.build());
    kiln::test::expectRoundTrip(h);
    std::vector<float> const values{1.0F, -2.0F};
    std::vector<float> y(2);
    ASSERT_TRUE(h.run({{"x", values.data()}}, {{"y", y.data()}}));
    EXPECT_EQ(y, (std::vector<float>{9.0F, -18.0F}));
}

TEST(Loop, RecurrencesThatReadOneAnotherUpdateTogether)
{
    // (a, b) = (b, a + b) four times from (0, 1): Fibonacci, (3, 5).
    LayerHarness h;
    ITensor* start = h.network->addInput("start", DataType::kFLOAT, dims1(2));
    static int32_t const kFirst = 0;
    static int32_t const kSecond = 1;
    static int32_t const kTrips = 4;
    ITensor* a0 = h.network->addGather(*start, *scalarInt(h, kFirst), 0)->getOutput(0);
    ITensor* b0 = h.network->addGather(*start, *scalarInt(h, kSecond), 0)->getOutput(0);
    ILoop* loop = h.network->addLoop();
    loop->addTripLimit(*scalarInt(h, kTrips), TripLimit::kCOUNT);
    IRecurrenceLayer* a = loop->addRecurrence(*a0);
    IRecurrenceLayer* b = loop->addRecurrence(*b0);
    a->setInput(1, *b->getOutput(0));
    b->setInput(1, *sum(h, *a->getOutput(0), *b->getOutput(0)));
    // Each value leaves the loop through a layer of its own.
    h.output(loop->addLoopOutput(*a->getOutput(0), LoopOutput::kLAST_VALUE), "a");
    h.output(loop->addLoopOutput(*b->getOutput(0), LoopOutput::kLAST_VALUE), "b");
    ASSERT_TRUE(h.build());
    std::vector<float> const values{0.0F, 1.0F};
    float aValue = 0.0F;
    float bValue = 0.0F;
    ASSERT_TRUE(h.run({{"start", values.data()}}, {{"a", &aValue}, {"b", &bValue}}));
    // The last iteration's recurrence values: (a, b) at its start, (2, 3).
    EXPECT_EQ(aValue, 2.0F);
    EXPECT_EQ(bValue, 3.0F);
}

TEST(Loop, ApiRefusesMalformedBoundaries)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, dims2(2, 3));
    ILoop* loop = h.network->addLoop();
    EXPECT_EQ(loop->addTripLimit(*x, TripLimit::kCOUNT), nullptr);
    EXPECT_TRUE(errorMentions(h, "kCOUNT trip limit must be a 0-D INT32 or INT64 tensor")) << h.logger.errors();
    static int32_t const kTrips = 2;
    EXPECT_EQ(loop->addTripLimit(*scalarInt(h, kTrips), TripLimit::kWHILE), nullptr);
    EXPECT_TRUE(errorMentions(h, "kWHILE trip limit must be a 0-D BOOL tensor")) << h.logger.errors();
    EXPECT_EQ(loop->addIterator(*x, 2), nullptr);
    EXPECT_TRUE(errorMentions(h, "iterator's axis must lie in [0, 2)")) << h.logger.errors();
    EXPECT_EQ(loop->addLoopOutput(*x, LoopOutput::kCONCATENATE, 3), nullptr);
    EXPECT_TRUE(errorMentions(h, "axis must lie in [0, 2]")) << h.logger.errors();
    EXPECT_EQ(loop->addLoopOutput(*x, static_cast<LoopOutput>(7)), nullptr);
    EXPECT_TRUE(errorMentions(h, "is no LoopOutput")) << h.logger.errors();
    EXPECT_EQ(h.network->addLoop()->addTripLimit(*scalarInt(h, kTrips), TripLimit::kCOUNT)->getNbOutputs(), 0);
}

TEST(Loop, ConcatenationLengthMustBeAShapeTensor)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, dims2(2, 3));
    ITensor* n = h.network->addInput("n", DataType::kFLOAT, Dims{0, {}});
    static int32_t const kTrips = 2;
    ILoop* loop = h.network->addLoop();
    loop->addTripLimit(*scalarInt(h, kTrips), TripLimit::kCOUNT);
    ILoopOutputLayer* out = loop->addLoopOutput(*loop->addIterator(*x)->getOutput(0), LoopOutput::kCONCATENATE);
    ASSERT_NE(out, nullptr) << h.logger.errors();
    out->setInput(1, *n);
    h.network->markOutput(*out->getOutput(0));
    h.expectBuildToFail("length (input 1) must be a 0-D INT32 or INT64 shape tensor");
}

//! A loop over x [2, 3] summing its rows, with what `breakIt` removes or adds.
void buildRowSum(LayerHarness& h, int32_t const& trips, char const* breakIt)
{
    static std::vector<float> const kZeros(3, 0.0F);
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, dims2(2, 3));
    ILoop* loop = h.network->addLoop();
    if (std::string(breakIt) != "no trip limit")
    {
        loop->addTripLimit(*scalarInt(h, trips), TripLimit::kCOUNT);
    }
    ITensor* row = loop->addIterator(*x)->getOutput(0);
    IRecurrenceLayer* total = loop->addRecurrence(*zeros(h, kZeros));
    ITensor* next = sum(h, *total->getOutput(0), *row);
    if (std::string(breakIt) != "no next value")
    {
        total->setInput(1, *next);
    }
    if (std::string(breakIt) == "body output")
    {
        next->setName("inside");
        h.network->markOutput(*next);
        return;
    }
    if (std::string(breakIt) == "iterated inside")
    {
        h.output(loop->addLoopOutput(*loop->addIterator(*next)->getOutput(0), LoopOutput::kLAST_VALUE), "y");
        return;
    }
    h.output(loop->addLoopOutput(*next, LoopOutput::kLAST_VALUE), "y");
}

TEST(Loop, BuildRefusesWhatBreaksTheLoopRules)
{
    static int32_t const kTrips = 2;
    std::pair<char const*, char const*> const cases[] = {
        {"no trip limit", "has no trip limit"},
        {"no next value", "has no next value"},
        {"body output", "network output \"inside\" is computed inside a loop"},
        {"iterated inside", "the iterated tensor"},
    };
    for (auto const& [breakIt, message] : cases)
    {
        SCOPED_TRACE(breakIt);
        LayerHarness h;
        kiln::setBackend(*h.config, kiln::Backend::kCPU);
        buildRowSum(h, kTrips, breakIt);
        h.expectBuildToFail(message);
    }
}

TEST(Loop, RunRefusesAnIteratorPastItsAxis)
{
    static int32_t const kTrips = 3; // x has 2 rows
    LayerHarness h;
    buildRowSum(h, kTrips, "");
    ASSERT_TRUE(h.build());
    std::vector<float> const values(6, 1.0F);
    std::vector<float> y(3);
    h.context->setTensorAddress("x", const_cast<float*>(values.data()));
    h.context->setTensorAddress("y", y.data());
    EXPECT_FALSE(h.context->enqueueV3(nullptr));
    EXPECT_TRUE(errorMentions(h, "iteration 2 reads index 2 of axis 0, whose extent is 2")) << h.logger.errors();
}

} // namespace
