// kFP16, kBF16 and precision constraints for built-in layers on the CPU backend: a layer
// running in FP16 reads its inputs rounded to half and stores its outputs in half, while
// network inputs and outputs keep their declared types. The expected values are worked
// out by hand from FP16's spacing: 2^-10 just above 1, 2 between 2048 and 4096.
#include "../layers/layer_harness.h"
#include "network/layers/constant.h"
#include "plan/plan_format.h"
#include "plan/plan_graph.h"

#include <gtest/gtest.h>

namespace
{

using namespace nvinfer1;
using kiln::test::LayerHarness;

//! x (4) -> x + 1 -> (x + 1) - 2048 -> y: the intermediate sum shows the precision it was stored in.
struct AddChain
{
    LayerHarness h;
    ITensor* x{h.network->addInput("x", DataType::kFLOAT, Dims{1, {4}})};
    std::vector<float> oneValues{1, 1, 1, 1};
    std::vector<float> shiftValues{2048, 2048, 2048, 2048};
    ILayer* one{h.network->addConstant(Dims{1, {4}}, kiln::test::floatWeights(oneValues))};
    ILayer* shift{h.network->addConstant(Dims{1, {4}}, kiln::test::floatWeights(shiftValues))};
    ILayer* plusOne{h.network->addElementWise(*x, *one->getOutput(0), ElementWiseOperation::kSUM)};
    ILayer* minusShift{
        h.network->addElementWise(*plusOne->getOutput(0), *shift->getOutput(0), ElementWiseOperation::kSUB)};

    AddChain()
    {
        plusOne->setName("plusOne");
        minusShift->setName("minusShift");
        h.output(minusShift, "y");
    }

    std::vector<float> run(std::vector<float> input)
    {
        std::vector<float> y(4);
        if (!h.build() || !h.run({{"x", input.data()}}, {{"y", y.data()}}))
        {
            return {};
        }
        return y;
    }
};

TEST(Precision, Fp32ByDefault)
{
    AddChain chain;
    EXPECT_EQ(chain.run({2048, 2047, 0, 1}), (std::vector<float>{1, 0, -2047, -2046}));
}

TEST(Precision, Fp16StoresIntermediateTensorsInHalf)
{
    AddChain chain;
    chain.h.config->setFlag(BuilderFlag::kFP16);
    // 2048 + 1 = 2049 lies halfway between the halves 2048 and 2050 and rounds to the even 2048.
    // 2047 + 1 = 2048 and -2047, -2046 are exact in half.
    EXPECT_EQ(chain.run({2048, 2047, 0, 1}), (std::vector<float>{0, 0, -2047, -2046}));
    EXPECT_EQ(chain.h.engine->getTensorDataType("x"), DataType::kFLOAT);
    EXPECT_EQ(chain.h.engine->getTensorDataType("y"), DataType::kFLOAT);
}

TEST(Precision, Fp16LayersReadFp32InputsRoundedToHalf)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{1, {4}});
    h.output(h.network->addActivation(*x, ActivationType::kRELU), "y");
    h.config->setFlag(BuilderFlag::kFP16);
    ASSERT_TRUE(h.build());
    std::vector<float> in{1.0001F, 0.1F, -3.0F, 65519.0F}, out(4);
    ASSERT_TRUE(h.run({{"x", in.data()}}, {{"y", out.data()}}));
    // Half's neighbours of 1.0001 are 1 and 1 + 2^-10; of 0.1, 0.0999755859375 (0x2E66). 65519 rounds to
    // 65504, the largest half.
    EXPECT_EQ(out, (std::vector<float>{1.0F, 0.0999755859375F, 0.0F, 65504.0F}));
}

TEST(Precision, Fp16LayersKeepTheirWeightsInHalf)
{
    for (bool fp16 : {false, true})
    {
        LayerHarness h;
        ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{4, {1, 1, 1, 1}});
        std::vector<float> const kernel{1.0001F};
        h.output(h.network->addConvolutionNd(*x, 1, Dims{2, {1, 1}}, kiln::test::floatWeights(kernel), Weights{}), "y");
        if (fp16)
        {
            h.config->setFlag(BuilderFlag::kFP16);
        }
        ASSERT_TRUE(h.build());
        std::vector<float> in{1.0F}, out(1);
        ASSERT_TRUE(h.run({{"x", in.data()}}, {{"y", out.data()}}));
        // In FP16 the weight 1.0001 is stored as the half 1 (TensorRT's FP16 kernels read half weights).
        EXPECT_EQ(out[0], fp16 ? 1.0F : 1.0001F);
    }
}

//! The plan's constant layer writing tensor `name` and that tensor, read back from `plan`.
std::pair<kiln::plan::LayerRecord, kiln::plan::TensorRecord> constantOfPlan(IHostMemory const& plan, char const* name)
{
    kiln::plan::PlanModel model;
    std::string error;
    EXPECT_TRUE(kiln::plan::readPlan(plan.data(), plan.size(), model, error)) << error;
    for (kiln::plan::LayerRecord& layer : model.layers)
    {
        if (layer.type == LayerType::kCONSTANT && model.tensors[layer.outputs.at(0)].name == name)
        {
            return {std::move(layer), model.tensors[layer.outputs[0]]};
        }
    }
    ADD_FAILURE() << "no constant writes " << name;
    return {};
}

//! Weights [3, 2]: rows {1.0001, 0.1}, {-3, 2049} and {5, 6}, none of them exact in half but -3, 5 and 6.
std::vector<float> const kTable{1.0001F, 0.1F, -3.0F, 2049.0F, 5.0F, 6.0F};

TEST(Precision, Fp16ConstantsAreStoredInHalfWhenTheirReadersComputeInHalf)
{
    // An embedding table that an FP16 gather reads: the plan stores it in half, once, rather than the runtime
    // converting the whole table at every inference. Rows 1 and 0 come out as half rounds them: 2049 to the even
    // 2048, 1.0001 to 1, 0.1 to 0.0999755859375.
    LayerHarness h;
    ITensor* ids = h.network->addInput("ids", DataType::kINT32, Dims{1, {2}});
    IConstantLayer* table = h.network->addConstant(Dims{2, {3, 2}}, kiln::test::floatWeights(kTable));
    table->getOutput(0)->setName("table");
    h.output(h.network->addGather(*table->getOutput(0), *ids, 0), "y");
    h.config->setFlag(BuilderFlag::kFP16);
    ASSERT_TRUE(h.build());
    std::vector<int32_t> const rows{1, 0};
    std::vector<float> out(4);
    ASSERT_TRUE(h.run({{"ids", rows.data()}}, {{"y", out.data()}}));
    EXPECT_EQ(out, (std::vector<float>{-3.0F, 2048.0F, 1.0F, 0.0999755859375F}));
    auto const [constant, tensor] = constantOfPlan(*h.plan, "table");
    EXPECT_EQ(tensor.type, DataType::kHALF);
    auto const* params = kiln::plan::paramsOf<kiln::network::ConstantParams>(constant);
    ASSERT_NE(params, nullptr);
    EXPECT_EQ(params->weights.type(), DataType::kHALF);
}

TEST(Precision, AConstantReadInTwoPrecisionsKeepsItsType)
{
    // One reader computes in FP32 (an obeyed constraint), the other in FP16: the constant stays FP32, and each
    // reader sees it in its own precision (1.0001 + 0 in FP32, rounded to 1 in FP16).
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{2, {3, 2}});
    IConstantLayer* table = h.network->addConstant(Dims{2, {3, 2}}, kiln::test::floatWeights(kTable));
    table->getOutput(0)->setName("table");
    ILayer* exact = h.network->addElementWise(*x, *table->getOutput(0), ElementWiseOperation::kSUM);
    exact->setPrecision(DataType::kFLOAT);
    ILayer* rounded = h.network->addElementWise(*x, *table->getOutput(0), ElementWiseOperation::kSUM);
    h.output(exact, "exact");
    h.output(rounded, "rounded");
    h.config->setFlag(BuilderFlag::kFP16);
    h.config->setFlag(BuilderFlag::kOBEY_PRECISION_CONSTRAINTS);
    ASSERT_TRUE(h.build());
    std::vector<float> const zeros(6, 0.0F);
    std::vector<float> exactOut(6), roundedOut(6);
    ASSERT_TRUE(h.run({{"x", zeros.data()}}, {{"exact", exactOut.data()}, {"rounded", roundedOut.data()}}));
    EXPECT_EQ(exactOut, kTable);
    EXPECT_EQ(roundedOut, (std::vector<float>{1.0F, 0.0999755859375F, -3.0F, 2048.0F, 5.0F, 6.0F}));
    EXPECT_EQ(constantOfPlan(*h.plan, "table").second.type, DataType::kFLOAT);
}

TEST(Precision, DataMovementLayersConvertAtTheNetworkOutput)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{2, {2, 2}});
    IShuffleLayer* transpose = h.network->addShuffle(*x);
    transpose->setFirstTranspose(Permutation{{1, 0}});
    h.output(transpose, "y");
    h.config->setFlag(BuilderFlag::kFP16);
    ASSERT_TRUE(h.build());
    std::vector<float> in{1.0001F, 2.0F, 3.0F, 0.1F}, out(4);
    ASSERT_TRUE(h.run({{"x", in.data()}}, {{"y", out.data()}}));
    EXPECT_EQ(out, (std::vector<float>{1.0F, 3.0F, 2.0F, 0.0999755859375F}));
}

TEST(Precision, Bf16KeepsEightBitsOfMantissa)
{
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{1, {3}});
    h.output(h.network->addActivation(*x, ActivationType::kRELU), "y");
    h.config->setFlag(BuilderFlag::kBF16);
    ASSERT_TRUE(h.build());
    std::vector<float> in{1.01F, 1.0001F, 3.0e38F}, out(3);
    ASSERT_TRUE(h.run({{"x", in.data()}}, {{"y", out.data()}}));
    // BF16's spacing just above 1 is 2^-7: 1.01 rounds to 1.0078125. Its range is FP32's: 3e38 stays finite
    // (rounded to 2.99e38's neighbour 3.0023e38 or below), where FP16 would overflow.
    EXPECT_EQ(out[0], 1.0078125F);
    EXPECT_EQ(out[1], 1.0F);
    EXPECT_NEAR(out[2], 3.0e38F, 3.0e38F / 256);
}

TEST(Precision, ObeyedFp32ConstraintKeepsALayerInFp32)
{
    AddChain chain;
    chain.h.config->setFlag(BuilderFlag::kFP16);
    chain.h.config->setFlag(BuilderFlag::kOBEY_PRECISION_CONSTRAINTS);
    chain.plusOne->setPrecision(DataType::kFLOAT);
    chain.minusShift->setPrecision(DataType::kFLOAT);
    EXPECT_EQ(chain.run({2048, 2047, 0, 1}), (std::vector<float>{1, 0, -2047, -2046}));
}

TEST(Precision, PreferredFp32ConstraintKeepsALayerInFp32)
{
    AddChain chain;
    chain.h.config->setFlag(BuilderFlag::kFP16);
    chain.h.config->setFlag(BuilderFlag::kPREFER_PRECISION_CONSTRAINTS);
    chain.plusOne->setPrecision(DataType::kFLOAT);
    chain.minusShift->setPrecision(DataType::kFLOAT);
    EXPECT_EQ(chain.run({2048, 2047, 0, 1}), (std::vector<float>{1, 0, -2047, -2046}));
}

TEST(Precision, Fp16ConstraintWithoutFp16FlagIsObeyed)
{
    AddChain chain;
    chain.h.config->setFlag(BuilderFlag::kOBEY_PRECISION_CONSTRAINTS);
    chain.plusOne->setPrecision(DataType::kHALF);
    // Only plusOne runs in half: its sum 2049 is stored as 2048; minusShift reads it in FP32.
    EXPECT_EQ(chain.run({2048, 2047, 0, 1}), (std::vector<float>{0, 0, -2047, -2046}));
}

TEST(Precision, ConstraintsWithoutTheirFlagAreIgnoredWithAWarning)
{
    AddChain chain;
    chain.h.config->setFlag(BuilderFlag::kFP16);
    chain.plusOne->setPrecision(DataType::kFLOAT);
    EXPECT_EQ(chain.run({2048, 2047, 0, 1}), (std::vector<float>{0, 0, -2047, -2046}));
    EXPECT_NE(chain.h.logger.warnings().find("1 layer(s) ask for a precision with ILayer::setPrecision, which is "
                                             "ignored because neither kOBEY_PRECISION_CONSTRAINTS nor "
                                             "kPREFER_PRECISION_CONSTRAINTS is set"),
        std::string::npos)
        << chain.h.logger.warnings();
}

TEST(Precision, AnImpossibleObeyedConstraintFailsNamingTheLayer)
{
    AddChain chain;
    chain.h.config->setFlag(BuilderFlag::kOBEY_PRECISION_CONSTRAINTS);
    chain.plusOne->setPrecision(DataType::kINT8);
    chain.h.expectBuildToFail("layer \"plusOne\" must compute in INT8 (kOBEY_PRECISION_CONSTRAINTS)");
}

TEST(Precision, AnImpossiblePreferredConstraintFallsBackWithAWarning)
{
    AddChain chain;
    chain.h.config->setFlag(BuilderFlag::kPREFER_PRECISION_CONSTRAINTS);
    chain.plusOne->setPrecision(DataType::kINT8);
    EXPECT_EQ(chain.run({2048, 2047, 0, 1}), (std::vector<float>{1, 0, -2047, -2046}));
    EXPECT_NE(chain.h.logger.warnings().find("layer \"plusOne\" prefers INT8"), std::string::npos)
        << chain.h.logger.warnings();
}

TEST(Precision, StronglyTypedNetworksRejectTheFp16Flag)
{
    LayerHarness h;
    h.network.reset(
        h.builder->createNetworkV2(1U << static_cast<uint32_t>(NetworkDefinitionCreationFlag::kSTRONGLY_TYPED)));
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{1, {4}});
    h.output(h.network->addActivation(*x, ActivationType::kRELU), "y");
    h.config->setFlag(BuilderFlag::kFP16);
    h.expectBuildToFail("the network is strongly typed");
}

} // namespace
