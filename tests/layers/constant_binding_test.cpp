// On the CPU backend a constant layer's output is its weights themselves (backend::Implementation::bindsConstants):
// no activation memory, no copy per run. A constant the application reads (a network output), or one stored in
// another type, is still written as a layer output.
#include "layer_harness.h"
#include "plan/plan_format.h"

#include <gtest/gtest.h>

namespace kiln::test
{
namespace
{

using namespace nvinfer1;

//! The plan's record of tensor `name`.
plan::TensorRecord tensorOf(nvinfer1::IHostMemory const& blob, std::string const& name)
{
    plan::PlanModel model;
    std::string error;
    EXPECT_TRUE(plan::readPlan(blob.data(), blob.size(), model, error)) << error;
    for (plan::TensorRecord const& tensor : model.tensors)
    {
        if (tensor.name == name)
        {
            return tensor;
        }
    }
    ADD_FAILURE() << "no tensor " << name;
    return {};
}

TEST(ConstantBinding, ReadersReadTheWeightsOnEveryRun)
{
    LayerHarness h;
    std::vector<float> const weights{1.0F, -2.0F, 3.5F, 0.25F, 10.0F, -7.0F};
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{2, {2, 3}});
    IConstantLayer* constant = h.network->addConstant(Dims{2, {2, 3}}, floatWeights(weights));
    constant->getOutput(0)->setName("weights");
    // Two readers of the one constant.
    IElementWiseLayer* sum = h.network->addElementWise(*x, *constant->getOutput(0), ElementWiseOperation::kSUM);
    IElementWiseLayer* product
        = h.network->addElementWise(*sum->getOutput(0), *constant->getOutput(0), ElementWiseOperation::kPROD);
    h.output(product, "y");
    ASSERT_TRUE(h.build());
    EXPECT_EQ(tensorOf(*h.plan, "weights").arenaOffset, -1) << "a bound constant takes no activation memory";
    for (float shift : {0.0F, 1.0F})
    {
        std::vector<float> const input{shift, shift, shift, shift, shift, shift};
        std::vector<float> y(6);
        ASSERT_TRUE(h.run({{"x", input.data()}}, {{"y", y.data()}}));
        for (size_t i = 0; i < y.size(); ++i)
        {
            EXPECT_FLOAT_EQ(y[i], (shift + weights[i]) * weights[i]) << "run with x = " << shift << ", element " << i;
        }
    }
}

TEST(ConstantBinding, AConstantNetworkOutputIsCopiedToTheApplication)
{
    LayerHarness h;
    std::vector<float> const weights{4.0F, 5.0F};
    IConstantLayer* constant = h.network->addConstant(Dims{1, {2}}, floatWeights(weights));
    h.output(constant, "c");
    ASSERT_TRUE(h.build());
    std::vector<float> c(2, 0.0F);
    ASSERT_TRUE(h.run({}, {{"c", c.data()}}));
    EXPECT_EQ(c, weights);
}

} // namespace
} // namespace kiln::test
