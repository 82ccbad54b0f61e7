// The fast path's IsNaN/IsInf (float_flags.cpp) and Select (select.cpp) on the guard transformers' exports put after
// each softmax, where(isnan(p), 0, p): the same bytes as the reference kernels at any thread count, on data holding
// NaN and infinities, over more elements than one thread takes alone; and a select whose inputs broadcast other than
// as one element left to the reference.
#include "layer_helpers.h"
#include "one_layer.h"

namespace kiln::test
{
namespace
{

using nvinfer1::UnaryOperation;

std::vector<float> const kZero{0.0F};

//! a -> flags = test(a) -> select(flags, 0, a) -> "output"; `elseShape` other than a's makes the select broadcast.
NetworkMaker guardOf(UnaryOperation test, Shape const& shape, Shape const& elseShape)
{
    return [=](INetworkDefinition& network) {
        ITensor* a = network.addInput("a", DataType::kFLOAT, dimsOf(shape));
        ITensor* b = elseShape == shape ? a : network.addInput("b", DataType::kFLOAT, dimsOf(elseShape));
        IUnaryLayer* flags = network.addUnary(*a, test);
        flags->setName("flags");
        ITensor& zero = constantOf(network, Shape(shape.size(), 1), kZero, "zero");
        ISelectLayer* guard = network.addSelect(*flags->getOutput(0), zero, *b);
        guard->setName("guard");
        guard->getOutput(0)->setName("output");
        network.markOutput(*guard->getOutput(0));
    };
}

//! Random values with NaN, infinities and zeros of both signs every 7th element.
Tensors guardInputs(Shape const& shape, Shape const& elseShape)
{
    Tensors inputs = randomInputs({shape, elseShape}, 7, 3.0F);
    std::vector<float> values = inputs.at("a").floats();
    float const special[] = {std::nanf(""), INFINITY, -INFINITY, -0.0F, 0.0F, -std::nanf("")};
    for (size_t i = 0; i < values.size(); i += 7)
    {
        values[i] = special[(i / 7) % std::size(special)];
    }
    inputs["a"] = fromFloats(shape, values);
    if (elseShape == shape)
    {
        inputs.erase("b");
    }
    return inputs;
}

void expectSameBytesAsTheReference(UnaryOperation test, Shape const& shape, Shape const& elseShape, bool fast)
{
    NetworkMaker const maker = guardOf(test, shape, elseShape);
    Tensors const inputs = guardInputs(shape, elseShape);
    std::vector<uint8_t> const fastPlan = buildCpuPlan(maker, CpuKernels::kFAST);
    std::vector<uint8_t> const referencePlan = buildCpuPlan(maker, CpuKernels::kREFERENCE);
    std::map<std::string, bool> const layers = fastPathLayers(fastPlan);
    EXPECT_TRUE(layers.at("flags"));
    EXPECT_EQ(layers.at("guard"), fast);
    std::vector<Tensors> const expected = runCpuPlan(referencePlan, {inputs});
    ASSERT_EQ(expected.size(), 1U);
    for (int32_t threads : {1, 2, 0})
    {
        std::vector<Tensors> const actual = runCpuPlan(fastPlan, {inputs}, threads);
        ASSERT_EQ(actual.size(), 1U);
        EXPECT_EQ(actual[0].at("output").bytes, expected[0].at("output").bytes) << threads << " threads";
    }
}

TEST(FastNanGuard, IsNanThenSelectGiveTheReferencesBytes)
{
    // 73,728 elements: more than one thread takes alone.
    for (Shape const& shape : {Shape{2, 4, 96, 96}, Shape{3, 5}})
    {
        expectSameBytesAsTheReference(UnaryOperation::kISNAN, shape, shape, true);
        expectSameBytesAsTheReference(UnaryOperation::kISINF, shape, shape, true);
    }
}

TEST(FastNanGuard, ASelectThatBroadcastsStaysOnTheReference)
{
    expectSameBytesAsTheReference(UnaryOperation::kISNAN, Shape{2, 4, 6, 6}, Shape{2, 1, 6, 6}, false);
}

} // namespace
} // namespace kiln::test
