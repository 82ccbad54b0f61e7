// IReverseSequenceLayer end to end on the CPU backend: ONNX's two examples (batch axis 1 with sequence axis 0, and
// the reverse), a rank-3 input with an axis between and after the two, zero and full lengths, every type the layer
// moves (INT32 and INT64 lengths), FP16 precision, empty inputs, the axes kept by the plan, the setters' defaults,
// each shape-inference error, and the run-time errors of the lengths. Expected values are worked out by hand.
#include "host_tensor.h"
#include "network/layers/reverse_sequence.h"
#include "plan/plan_format.h"
#include "round_trip.h"

#include <algorithm>
#include <cstdint>

namespace
{

using namespace nvinfer1;
using kiln::test::errorMentions;
using kiln::test::HostTensor;
using kiln::test::LayerHarness;

struct Axes
{
    int32_t batch{1};
    int32_t sequence{0};
};

//! Reverses `input` with `lengths` (INT32 or INT64) along `axes` through a built and reloaded plan, and returns the
//! output; an empty tensor (with a test failure) when anything fails.
HostTensor reverse(HostTensor const& input, HostTensor const& lengths, Axes axes)
{
    LayerHarness h;
    auto dims = [](kiln::Shape const& shape) {
        Dims d{static_cast<int32_t>(shape.size()), {}};
        std::copy(shape.begin(), shape.end(), d.d);
        return d;
    };
    ITensor* x = h.network->addInput("x", input.type, dims(input.shape));
    ITensor* lens = h.network->addInput("lens", lengths.type, dims(lengths.shape));
    IReverseSequenceLayer* layer = h.network->addReverseSequence(*x, *lens);
    EXPECT_NE(layer, nullptr) << h.logger.errors();
    if (layer == nullptr)
    {
        return {};
    }
    layer->setBatchAxis(axes.batch);
    layer->setSequenceAxis(axes.sequence);
    h.output(layer, "y");
    if (!h.build())
    {
        return {};
    }
    kiln::test::expectRoundTrip(h);
    EXPECT_EQ(h.engine->getTensorDataType("y"), input.type);
    EXPECT_EQ(h.shapeOf("y"), input.shape);
    HostTensor y = kiln::test::zeros(input.shape, input.type);
    // Empty tensors still need an address: point them at a byte that nothing may touch.
    uint8_t unused = 0;
    auto address = [&unused](HostTensor const& t) -> void const* { return t.bytes.empty() ? &unused : t.bytes.data(); };
    h.run({{"x", address(input)}, {"lens", address(lengths)}}, {{"y", const_cast<void*>(address(y))}});
    return y;
}

HostTensor int64Lengths(std::vector<int64_t> const& values)
{
    return kiln::test::fromInts({static_cast<int64_t>(values.size())}, values, DataType::kINT64);
}

HostTensor int32Lengths(std::vector<int64_t> const& values)
{
    return kiln::test::fromInts({static_cast<int64_t>(values.size())}, values, DataType::kINT32);
}

//! 0, 1, 2, ... in `shape`, as FP32.
HostTensor counting(kiln::Shape const& shape)
{
    std::vector<float> values(static_cast<size_t>(kiln::volume(shape)));
    for (size_t i = 0; i < values.size(); ++i)
    {
        values[i] = static_cast<float>(i);
    }
    return kiln::test::fromFloats(shape, values);
}

TEST(ReverseSequenceLayer, OnnxExampleWithTheDefaultAxes)
{
    // Batch axis 1 (columns), sequence axis 0 (rows): column b has its first lens[b] rows reversed.
    HostTensor const x = kiln::test::fromFloats({4, 4}, {0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15});
    HostTensor const y = reverse(x, int64Lengths({4, 3, 2, 1}), Axes{});
    EXPECT_EQ(y.floats(), (std::vector<float>{3, 6, 9, 12, 2, 5, 8, 13, 1, 4, 10, 14, 0, 7, 11, 15}));
}

TEST(ReverseSequenceLayer, OnnxExampleWithBatchAxisZero)
{
    // Batch axis 0 (rows), sequence axis 1 (columns): row b has its first lens[b] columns reversed.
    HostTensor const y = reverse(counting({4, 4}), int32Lengths({1, 2, 3, 4}), Axes{0, 1});
    EXPECT_EQ(y.floats(), (std::vector<float>{0, 1, 2, 3, 5, 4, 6, 7, 10, 9, 8, 11, 15, 14, 13, 12}));
}

TEST(ReverseSequenceLayer, RankThreeWithAnAxisBetweenAndAfter)
{
    // [batch 2, sequence 3, inner 2]: batch 0 reverses rows {0, 1} ([0 1] [2 3]), batch 1 all three rows.
    HostTensor const inner = reverse(counting({2, 3, 2}), int64Lengths({2, 3}), Axes{0, 1});
    EXPECT_EQ(inner.floats(), (std::vector<float>{2, 3, 0, 1, 4, 5, 10, 11, 8, 9, 6, 7}));
    // [sequence 3, middle 2, batch 2], element (t, k, b) = 4t + 2k + b: batch 0 reverses all of t, batch 1 only its
    // first (a length of 1 changes nothing).
    HostTensor const outer = reverse(counting({3, 2, 2}), int64Lengths({3, 1}), Axes{2, 0});
    EXPECT_EQ(outer.floats(), (std::vector<float>{8, 1, 10, 3, 4, 5, 6, 7, 0, 9, 2, 11}));
}

TEST(ReverseSequenceLayer, ZeroLengthsCopyAndFullLengthsReverseEverything)
{
    HostTensor const x = counting({2, 3});
    EXPECT_EQ(reverse(x, int64Lengths({0, 0}), Axes{0, 1}).floats(), x.floats());
    EXPECT_EQ(reverse(x, int64Lengths({3, 3}), Axes{0, 1}).floats(), (std::vector<float>{2, 1, 0, 5, 4, 3}));
    // Mixed: batch 0 untouched, batch 1 reversed whole.
    EXPECT_EQ(reverse(x, int32Lengths({0, 3}), Axes{0, 1}).floats(), (std::vector<float>{0, 1, 2, 5, 4, 3}));
}

TEST(ReverseSequenceLayer, MovesEveryByteAddressableType)
{
    // Rows of [2, 3] with batch axis 0: lengths {3, 2} give row 0 reversed and row 1's first two swapped.
    for (DataType type : {DataType::kINT8, DataType::kUINT8, DataType::kINT32, DataType::kINT64})
    {
        SCOPED_TRACE(kiln::dataTypeName(type));
        bool const isSigned = type != DataType::kUINT8;
        std::vector<int64_t> const input{isSigned ? -7 : 7, 12, 100, 3, isSigned ? -1 : 1, 42};
        std::vector<int64_t> const expected{100, 12, isSigned ? -7 : 7, isSigned ? -1 : 1, 3, 42};
        HostTensor const y = reverse(kiln::test::fromInts({2, 3}, input, type), int64Lengths({3, 2}), Axes{0, 1});
        EXPECT_EQ(y.ints(), expected);
    }
    HostTensor const flags = kiln::test::fromInts({2, 3}, {1, 0, 0, 0, 1, 1}, DataType::kBOOL);
    EXPECT_EQ(reverse(flags, int64Lengths({3, 2}), Axes{0, 1}).ints(), (std::vector<int64_t>{0, 0, 1, 1, 0, 1}));
    for (DataType type : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16})
    {
        SCOPED_TRACE(kiln::dataTypeName(type));
        HostTensor const x = kiln::test::fromFloats({2, 3}, {0.5F, -1.25F, 3, 8, -0.75F, 2}, type);
        HostTensor const y = reverse(x, int32Lengths({3, 2}), Axes{0, 1});
        EXPECT_EQ(y.floats(), (std::vector<float>{3, -1.25F, 0.5F, -0.75F, 8, 2}));
    }
}

TEST(ReverseSequenceLayer, RunsAtFp16Precision)
{
    // With kFP16 the layer reads its FP32 input rounded to half; these values are exact in it.
    LayerHarness h;
    h.config->setFlag(BuilderFlag::kFP16);
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{2, {3, 2}});
    ITensor* lens = h.network->addInput("lens", DataType::kINT32, Dims{1, {2}});
    IReverseSequenceLayer* layer = h.network->addReverseSequence(*x, *lens);
    ASSERT_NE(layer, nullptr) << h.logger.errors();
    h.output(layer, "y");
    ASSERT_TRUE(h.build());
    std::vector<float> const input{0.5F, 10, 1.5F, 20, 2.5F, 30};
    std::vector<int32_t> const lengths{2, 3};
    std::vector<float> y(6);
    ASSERT_TRUE(h.run({{"x", input.data()}, {"lens", lengths.data()}}, {{"y", y.data()}}));
    EXPECT_EQ(y, (std::vector<float>{1.5F, 30, 0.5F, 20, 2.5F, 10}));
}

TEST(ReverseSequenceLayer, EmptyInputs)
{
    // No sequence positions: every length must be 0. No batch indices: no lengths at all.
    HostTensor const noSequence = kiln::test::zeros({0, 3});
    EXPECT_EQ(reverse(noSequence, int64Lengths({0, 0, 0}), Axes{}).shape, (kiln::Shape{0, 3}));
    HostTensor const noBatch = kiln::test::zeros({2, 0});
    EXPECT_EQ(reverse(noBatch, int64Lengths({}), Axes{}).shape, (kiln::Shape{2, 0}));
    // An empty axis other than the two: the lengths are still read, and must be valid.
    HostTensor const noInner = kiln::test::zeros({2, 3, 0});
    EXPECT_EQ(reverse(noInner, int64Lengths({2, 1}), Axes{0, 1}).shape, (kiln::Shape{2, 3, 0}));
}

TEST(ReverseSequenceLayer, PlanKeepsTheAxes)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{3, {2, 3, 4}});
    ITensor* lens = h.network->addInput("lens", DataType::kINT64, Dims{1, {4}});
    IReverseSequenceLayer* layer = h.network->addReverseSequence(*x, *lens);
    ASSERT_NE(layer, nullptr) << h.logger.errors();
    layer->setBatchAxis(2);
    layer->setSequenceAxis(1);
    h.output(layer, "y");
    ASSERT_TRUE(h.build());
    kiln::test::expectRoundTrip(h);
    kiln::plan::PlanModel model;
    std::string error;
    ASSERT_TRUE(kiln::plan::readPlan(h.plan->data(), h.plan->size(), model, error)) << error;
    int32_t found = 0;
    for (kiln::plan::LayerRecord const& record : model.layers)
    {
        if (record.type == LayerType::kREVERSE_SEQUENCE)
        {
            auto const& params = static_cast<kiln::network::ReverseSequenceParams const&>(*record.params);
            EXPECT_EQ(params.batchAxis, 2);
            EXPECT_EQ(params.sequenceAxis, 1);
            ++found;
        }
    }
    EXPECT_EQ(found, 1);
}

TEST(ReverseSequenceLayer, DefaultsAndSetters)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kINT8, Dims{3, {5, 4, 6}});
    ITensor* lens = h.network->addInput("lens", DataType::kINT32, Dims{1, {4}});
    IReverseSequenceLayer* layer = h.network->addReverseSequence(*x, *lens);
    ASSERT_NE(layer, nullptr) << h.logger.errors();
    EXPECT_EQ(layer->getType(), LayerType::kREVERSE_SEQUENCE);
    EXPECT_EQ(layer->getBatchAxis(), 1);
    EXPECT_EQ(layer->getSequenceAxis(), 0);
    EXPECT_EQ(layer->getNbInputs(), 2);
    EXPECT_EQ(layer->getOutput(0)->getType(), DataType::kINT8);
    Dims const out = layer->getOutput(0)->getDimensions();
    EXPECT_EQ(std::vector<int64_t>(out.d, out.d + out.nbDims), (std::vector<int64_t>{5, 4, 6}));
    // Swapping the defaults passes through batch 0 = sequence 0: the setters keep it, inference sees only the end.
    layer->setBatchAxis(0);
    EXPECT_EQ(layer->getBatchAxis(), 0);
    layer->setSequenceAxis(2);
    EXPECT_EQ(layer->getSequenceAxis(), 2);
    EXPECT_EQ(layer->getOutput(0)->getDimensions().nbDims, 3) << h.logger.errors();
    EXPECT_TRUE(h.logger.errors().empty()) << h.logger.errors();
}

TEST(ReverseSequenceLayer, AxesSetAfterAddDecideWhichExtentTheLengthsMatch)
{
    // Two lengths for an input [2, 3]: they match axis 0, not the default batch axis 1, and the layer must still be
    // added (TensorRT's applications set the axes afterwards). Swapping the axes passes through batch 0 = sequence 0;
    // a layer added meanwhile is not refused.
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{2, {2, 3}});
    ITensor* lens = h.network->addInput("lens", DataType::kINT64, Dims{1, {2}});
    IReverseSequenceLayer* layer = h.network->addReverseSequence(*x, *lens);
    ASSERT_NE(layer, nullptr) << h.logger.errors();
    layer->setBatchAxis(0);
    IActivationLayer* relu = h.network->addActivation(*layer->getOutput(0), ActivationType::kRELU);
    ASSERT_NE(relu, nullptr) << h.logger.errors();
    layer->setSequenceAxis(1);
    h.output(relu, "y");
    ASSERT_TRUE(h.build());
    std::vector<float> const input{0, 1, 2, 3, 4, 5};
    std::vector<int64_t> const lengths{3, 2};
    std::vector<float> y(6);
    ASSERT_TRUE(h.run({{"x", input.data()}, {"lens", lengths.data()}}, {{"y", y.data()}}));
    EXPECT_EQ(y, (std::vector<float>{2, 1, 0, 4, 3, 5}));
}

TEST(ReverseSequenceLayer, ShapeInferenceErrors)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{2, {2, 3}});
    ITensor* lens = h.network->addInput("lens", DataType::kINT32, Dims{1, {3}});
    ITensor* vector = h.network->addInput("vector", DataType::kFLOAT, Dims{1, {3}});
    EXPECT_EQ(h.network->addReverseSequence(*vector, *lens), nullptr);
    EXPECT_TRUE(errorMentions(h, "INetworkDefinition::addReverseSequence: layer \"(Unnamed Layer*"))
        << h.logger.errors();
    EXPECT_TRUE(errorMentions(h, "the reverse sequence input (input 0) must have rank 2 or more, not 1"))
        << h.logger.errors();
    ITensor* floatLens = h.network->addInput("floatLens", DataType::kFLOAT, Dims{1, {3}});
    EXPECT_EQ(h.network->addReverseSequence(*x, *floatLens), nullptr);
    EXPECT_TRUE(errorMentions(h, "the reverse sequence lengths (input 1) must be INT32 or INT64, not FLOAT"))
        << h.logger.errors();
    ITensor* matrixLens = h.network->addInput("matrixLens", DataType::kINT64, Dims{2, {3, 1}});
    EXPECT_EQ(h.network->addReverseSequence(*x, *matrixLens), nullptr);
    EXPECT_TRUE(errorMentions(h, "the reverse sequence lengths (input 1) must be 1-D [batch], not of rank 2"))
        << h.logger.errors();
    ITensor* nibbles = h.network->addInput("nibbles", DataType::kINT4, Dims{2, {2, 3}});
    ASSERT_NE(nibbles, nullptr) << h.logger.errors();
    EXPECT_EQ(h.network->addReverseSequence(*nibbles, *lens), nullptr);
    EXPECT_TRUE(errorMentions(h, "the reverse sequence input (input 0) cannot be INT4 (not byte-addressable)"))
        << h.logger.errors();
}

//! A network whose reverse sequence layer gets `axes` after it is added, expected to fail to build with `message`.
void expectAxesRefused(Axes axes, char const* message)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{2, {2, 3}});
    ITensor* lens = h.network->addInput("lens", DataType::kINT32, Dims{1, {3}});
    IReverseSequenceLayer* layer = h.network->addReverseSequence(*x, *lens);
    ASSERT_NE(layer, nullptr) << h.logger.errors();
    layer->setBatchAxis(axes.batch);
    layer->setSequenceAxis(axes.sequence);
    EXPECT_EQ(layer->getBatchAxis(), axes.batch);
    EXPECT_EQ(layer->getSequenceAxis(), axes.sequence);
    h.output(layer, "y");
    kiln::setBackend(*h.config, kiln::Backend::kCPU);
    h.expectBuildToFail(message);
}

TEST(ReverseSequenceLayer, AxisErrorsFailTheBuild)
{
    expectAxesRefused(Axes{2, 0}, "the reverse sequence batch axis 2 is out of range [0, 2) for an input of rank 2");
    expectAxesRefused(
        Axes{1, -1}, "the reverse sequence sequence axis -1 is out of range [0, 2) for an input of rank 2");
    expectAxesRefused(Axes{0, 0}, "the reverse sequence batch axis and sequence axis are both 0; they must differ");
    // Three lengths for an input [2, 3] whose batch axis is set to 0.
    expectAxesRefused(
        Axes{0, 1}, "the reverse sequence lengths (input 1) hold 3 values, but the batch axis 0 has extent 2");
}

//! Builds a reverse sequence of an FP32 input [2, 3] with the default axes (three lengths) and INT64 lengths of
//! dims `lengthDims` (-1: a count given at run time), runs it with `lengths`, and expects the run to fail with
//! `message`.
void expectRunToFail(Dims const& lengthDims, std::vector<int64_t> const& lengths, char const* message)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{2, {2, 3}});
    ITensor* lens = h.network->addInput("lens", DataType::kINT64, lengthDims);
    IReverseSequenceLayer* layer = h.network->addReverseSequence(*x, *lens);
    ASSERT_NE(layer, nullptr) << h.logger.errors();
    h.output(layer, "y");
    if (lengthDims.d[0] < 0)
    {
        h.setProfile("lens", Dims{1, {1}}, Dims{1, {3}}, Dims{1, {4}});
    }
    ASSERT_TRUE(h.build());
    ASSERT_TRUE(h.context->setInputShape("lens", Dims{1, {static_cast<int64_t>(lengths.size())}}));
    std::vector<float> const input(6, 1.0F);
    std::vector<float> y(6);
    ASSERT_TRUE(h.context->setTensorAddress("x", const_cast<float*>(input.data())));
    ASSERT_TRUE(h.context->setTensorAddress("lens", const_cast<int64_t*>(lengths.data())));
    ASSERT_TRUE(h.context->setTensorAddress("y", y.data()));
    EXPECT_FALSE(h.context->enqueueV3(nullptr));
    EXPECT_TRUE(errorMentions(h, "layer \"(Unnamed Layer* 0) [ReverseSequence]\": reverseSequence: "))
        << h.logger.errors();
    EXPECT_TRUE(errorMentions(h, message)) << h.logger.errors();
}

TEST(ReverseSequenceLayer, ALengthCountKnownOnlyAtRunTimeIsCheckedByTheKernel)
{
    // The default batch axis 1 has extent 3.
    expectRunToFail(
        Dims{1, {-1}}, {1, 2}, "sequence lengths have shape [2]; expected [3], one length per index of the batch axis");
}

TEST(ReverseSequenceLayer, BadLengthsFailWhenRun)
{
    // The sequence axis (0) has extent 2.
    expectRunToFail(
        Dims{1, {3}}, {1, -1, 2}, "sequence length -1 of batch index 1 is outside [0, 2], the sequence axis' extent");
    expectRunToFail(
        Dims{1, {3}}, {1, 2, 3}, "sequence length 3 of batch index 2 is outside [0, 2], the sequence axis' extent");
}

} // namespace
