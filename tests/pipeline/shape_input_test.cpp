// Shape-tensor network inputs: an INT32 input whose values decide a reshape. Its values are bounded per
// profile (IOptimizationProfile::setShapeValues) and read from host memory at every run, as TensorRT's shape
// tensors are; an integer input that no shape depends on stays an ordinary input.
#include "../layers/layer_harness.h"

#include <gtest/gtest.h>

#include <numeric>
#include <string>

namespace
{

using namespace nvinfer1;
using kiln::test::LayerHarness;

//! y = reshape(x [2, 6], s), with s a 2-value INT32 input.
struct ReshapeByInput
{
    LayerHarness h;
    ITensor* x{h.network->addInput("x", DataType::kFLOAT, Dims{2, {2, 6}})};
    ITensor* s{h.network->addInput("s", DataType::kINT32, Dims{1, {2}})};

    explicit ReshapeByInput(bool giveShapeValues = true, std::vector<int32_t> min = {1, 1},
        std::vector<int32_t> opt = {3, 4}, std::vector<int32_t> max = {12, 12})
    {
        IShuffleLayer* reshape = h.network->addShuffle(*x);
        reshape->setName("reshape");
        reshape->setInput(1, *s);
        h.output(reshape, "y");
        if (giveShapeValues)
        {
            h.profile = h.builder->createOptimizationProfile();
            h.profile->setShapeValues("s", OptProfileSelector::kMIN, min.data(), 2);
            h.profile->setShapeValues("s", OptProfileSelector::kOPT, opt.data(), 2);
            h.profile->setShapeValues("s", OptProfileSelector::kMAX, max.data(), 2);
        }
    }
};

TEST(ShapeInputs, ValuesFromHostMemoryDecideTheShapeAtEveryRun)
{
    ReshapeByInput net;
    ASSERT_TRUE(net.h.build());
    EXPECT_TRUE(net.h.engine->isShapeInferenceIO("s"));
    EXPECT_FALSE(net.h.engine->isShapeInferenceIO("x"));

    std::vector<float> x(12);
    std::iota(x.begin(), x.end(), 0.0F);
    std::vector<float> y(12, -1.0F);
    int32_t shape[] = {3, 4};
    ASSERT_TRUE(net.h.context->setInputTensorAddress("s", shape));
    EXPECT_EQ(net.h.shapeOf("y"), (std::vector<int64_t>{3, 4}));
    ASSERT_TRUE(net.h.run({{"x", x.data()}}, {{"y", y.data()}}));
    EXPECT_EQ(y, x);

    // New values in the same memory: the next run and the shapes follow them.
    shape[0] = 6;
    shape[1] = 2;
    EXPECT_EQ(net.h.shapeOf("y"), (std::vector<int64_t>{6, 2}));
    std::fill(y.begin(), y.end(), -1.0F);
    ASSERT_TRUE(net.h.context->enqueueV3(nullptr)) << net.h.logger.errors();
    EXPECT_EQ(y, x);
}

TEST(ShapeInputs, Int64BoundsOfSetShapeValuesV2BuildAsInt32OnesDo)
{
    ReshapeByInput net(false);
    IOptimizationProfile* profile = net.h.builder->createOptimizationProfile();
    int64_t const min[] = {1, 1};
    int64_t const opt[] = {3, 4};
    int64_t const max[] = {12, 12};
    ASSERT_TRUE(profile->setShapeValuesV2("s", OptProfileSelector::kMIN, min, 2));
    ASSERT_TRUE(profile->setShapeValuesV2("s", OptProfileSelector::kOPT, opt, 2));
    ASSERT_TRUE(profile->setShapeValuesV2("s", OptProfileSelector::kMAX, max, 2));
    ASSERT_NE(profile->getShapeValuesV2("s", OptProfileSelector::kOPT), nullptr);
    EXPECT_EQ(profile->getShapeValuesV2("s", OptProfileSelector::kOPT)[1], 4);
    EXPECT_EQ(profile->getShapeValues("s", OptProfileSelector::kMAX)[0], 12); // the same bounds, as int32
    EXPECT_EQ(profile->getNbShapeValues("s"), 2);

    // A bound beyond 32 bits is refused and leaves the profile as it was.
    int64_t const huge[] = {int64_t{1} << 40, 1};
    EXPECT_FALSE(profile->setShapeValuesV2("s", OptProfileSelector::kMAX, huge, 2));
    EXPECT_NE(net.h.logger.errors().find("IOptimizationProfile::setShapeValuesV2"), std::string::npos);
    EXPECT_EQ(profile->getShapeValuesV2("s", OptProfileSelector::kMAX)[0], 12);

    net.h.profile = profile;
    ASSERT_TRUE(net.h.build());
    std::vector<float> x(12);
    std::iota(x.begin(), x.end(), 0.0F);
    std::vector<float> y(12, -1.0F);
    int32_t shape[] = {4, 3};
    ASSERT_TRUE(net.h.context->setInputTensorAddress("s", shape));
    ASSERT_TRUE(net.h.run({{"x", x.data()}}, {{"y", y.data()}}));
    EXPECT_EQ(net.h.shapeOf("y"), (std::vector<int64_t>{4, 3}));
    EXPECT_EQ(y, x);

    // setShapeValues replaces them: there are no int64 values any more.
    int32_t const narrow[] = {1, 1};
    ASSERT_TRUE(profile->setShapeValues("s", OptProfileSelector::kMIN, narrow, 2));
    EXPECT_EQ(profile->getShapeValuesV2("s", OptProfileSelector::kOPT), nullptr);
}

TEST(ShapeInputs, ZeroAndMinusOneKeepTheirReshapeMeaningAtRunTime)
{
    // 0 copies the input's extent and -1 takes what the volume leaves, though neither is known when building.
    ReshapeByInput net(true, {-1, -1}, {0, -1}, {12, 12});
    ASSERT_TRUE(net.h.build());
    std::vector<float> x(12);
    std::iota(x.begin(), x.end(), 0.0F);
    std::vector<float> y(12, -1.0F);
    int32_t shape[] = {0, -1};
    ASSERT_TRUE(net.h.context->setInputTensorAddress("s", shape));
    ASSERT_TRUE(net.h.run({{"x", x.data()}}, {{"y", y.data()}}));
    EXPECT_EQ(net.h.shapeOf("y"), (std::vector<int64_t>{2, 6}));
    EXPECT_EQ(y, x);
    shape[0] = -1;
    shape[1] = 3;
    ASSERT_TRUE(net.h.context->enqueueV3(nullptr)) << net.h.logger.errors();
    EXPECT_EQ(net.h.shapeOf("y"), (std::vector<int64_t>{4, 3}));
}

TEST(ShapeInputs, AProfileWithoutTheValuesNamesTheInput)
{
    ReshapeByInput net(false);
    net.h.expectBuildToFail("the shapes depend on the values of \"s\": give them for every profile with "
                            "IOptimizationProfile::setShapeValues");
}

TEST(ShapeInputs, RunningWithoutTheirHostMemoryNamesTheInput)
{
    ReshapeByInput net;
    ASSERT_TRUE(net.h.build());
    std::vector<float> x(12), y(12);
    ASSERT_TRUE(net.h.context->setTensorAddress("x", x.data()));
    ASSERT_TRUE(net.h.context->setTensorAddress("y", y.data()));
    EXPECT_FALSE(net.h.context->enqueueV3(nullptr));
    EXPECT_NE(net.h.logger.errors().find("\"s\" is a shape tensor: give the host memory holding its values"),
        std::string::npos)
        << net.h.logger.errors();
}

TEST(ShapeInputs, AnIntegerInputNoShapeDependsOnStaysOrdinary)
{
    LayerHarness h;
    ITensor* data = h.network->addInput("data", DataType::kFLOAT, Dims{1, {4}});
    ITensor* indices = h.network->addInput("indices", DataType::kINT32, Dims{1, {2}});
    h.output(h.network->addGather(*data, *indices, 0), "y");
    ASSERT_TRUE(h.build()); // no setShapeValues needed
    EXPECT_FALSE(h.engine->isShapeInferenceIO("indices"));
    std::vector<float> const values{10, 11, 12, 13};
    std::vector<int32_t> const picks{3, 1};
    std::vector<float> y(2);
    ASSERT_TRUE(h.run({{"data", values.data()}, {"indices", picks.data()}}, {{"y", y.data()}}));
    EXPECT_EQ(y, (std::vector<float>{13, 11}));
}

} // namespace
