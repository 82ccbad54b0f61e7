// Slice parameters known at build time (builder/fixed_slice_parameters.h): a slice whose start and stride come from
// constant tensors, as the ONNX parser gives every Slice and Split its bounds, reads them as parameters in the plan
// (no tensor inputs, the constants gone) and computes what the network says, checked against values worked out by
// hand.
#include "../layers/layer_harness.h"
#include "network/layers/slice.h"
#include "plan/plan_format.h"
#include "plan/plan_graph.h"

#include <gtest/gtest.h>

#include <numeric>
#include <string>
#include <vector>

namespace
{

using namespace nvinfer1;
using kiln::test::LayerHarness;

TEST(FixedSliceParameters, StartAndStrideFromConstantsBecomeParameters)
{
    // y[b][r][c] = x[b][1 + r][4 + 2c] over x [2, 3, 12] holding 0, 1, 2, ...
    LayerHarness h;
    ITensor* x = h.network->addInput("x", DataType::kFLOAT, Dims{3, {2, 3, 12}});
    static int32_t const start[3]{0, 1, 4};
    static int32_t const stride[3]{1, 1, 2};
    ITensor* starts = h.network->addConstant(Dims{1, {3}}, Weights{DataType::kINT32, start, 3})->getOutput(0);
    ITensor* strides = h.network->addConstant(Dims{1, {3}}, Weights{DataType::kINT32, stride, 3})->getOutput(0);
    ISliceLayer* slice = h.network->addSlice(*x, Dims{3, {0, 0, 0}}, Dims{3, {2, 2, 4}}, Dims{3, {1, 1, 1}});
    slice->setName("slice");
    slice->setInput(1, *starts);
    slice->setInput(3, *strides);
    h.output(slice, "y");
    ASSERT_TRUE(h.build());

    kiln::plan::PlanModel model;
    std::string error;
    ASSERT_TRUE(kiln::plan::readPlan(h.plan->data(), h.plan->size(), model, error)) << error;
    ASSERT_EQ(model.layers.size(), 1U); // the two constants are no longer read, and gone
    kiln::plan::LayerRecord const& record = model.layers[0];
    auto const* params = kiln::plan::paramsOf<kiln::network::SliceParams>(record);
    ASSERT_NE(params, nullptr);
    ASSERT_EQ(record.inputs.size(), 4U);
    EXPECT_EQ(record.inputs[1], -1);
    EXPECT_EQ(record.inputs[3], -1);
    EXPECT_EQ(
        std::vector<int64_t>(params->start.d, params->start.d + params->start.nbDims), (std::vector<int64_t>{0, 1, 4}));
    EXPECT_EQ(std::vector<int64_t>(params->stride.d, params->stride.d + params->stride.nbDims),
        (std::vector<int64_t>{1, 1, 2}));

    std::vector<float> xs(2 * 3 * 12);
    std::iota(xs.begin(), xs.end(), 0.0F);
    std::vector<float> y(2 * 2 * 4, 0.0F);
    ASSERT_TRUE(h.run({{"x", xs.data()}}, {{"y", y.data()}}));
    EXPECT_EQ(y, (std::vector<float>{16, 18, 20, 22, 28, 30, 32, 34, 52, 54, 56, 58, 64, 66, 68, 70}));
}

} // namespace
