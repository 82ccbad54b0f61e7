// IExecutionContext's profiler: every layer's time is reported once per run, by name and
// in execution order, either by enqueueV3 itself or by an explicit reportToProfiler.
#include "../layers/layer_harness.h"

#include <kiln/CpuBackend.h>

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace
{

using namespace nvinfer1;
using kiln::test::LayerHarness;

//! Written as TensorRT 8 and 10 applications write it: reportLayerTime is noexcept.
class RecordingProfiler final : public IProfiler
{
public:
    void reportLayerTime(char const* layerName, float ms) noexcept override
    {
        reports.emplace_back(layerName, ms);
    }
    std::vector<std::pair<std::string, float>> reports;
};

//! Written as TensorRT 7 applications wrote it: const char*, and no noexcept.
class Trt7StyleProfiler : public nvinfer1::IProfiler
{
public:
    void reportLayerTime(const char* layerName, float) override
    {
        names.push_back(layerName);
    }
    std::vector<std::string> names;
};

//! Throws from reportLayerTime, which a profiler without noexcept may do.
class ThrowingProfiler final : public IProfiler
{
public:
    void reportLayerTime(char const*, float) override
    {
        throw std::runtime_error("the profile store is full");
    }
};

//! x -> relu ("first") -> abs ("second") -> y.
struct TwoLayers
{
    LayerHarness h;
    std::vector<float> x{-1, 2}, y{0, 0};

    TwoLayers()
    {
        // On the reference kernels: the fast path would run the two as one fused layer, "first + second".
        kiln::setCpuKernels(*h.config, kiln::CpuKernels::kREFERENCE);
        ITensor* input = h.network->addInput("x", DataType::kFLOAT, Dims{1, {2}});
        ILayer* first = h.network->addActivation(*input, ActivationType::kRELU);
        first->setName("first");
        ILayer* second = h.network->addUnary(*first->getOutput(0), UnaryOperation::kABS);
        second->setName("second");
        h.output(second, "y");
    }
    bool run()
    {
        return h.run({{"x", x.data()}}, {{"y", y.data()}});
    }
};

std::vector<std::string> namesOf(RecordingProfiler const& profiler)
{
    std::vector<std::string> names;
    for (auto const& [name, ms] : profiler.reports)
    {
        EXPECT_GE(ms, 0.0F) << name;
        names.push_back(name);
    }
    return names;
}

TEST(Profiler, EachRunReportsEveryLayerInOrder)
{
    TwoLayers net;
    ASSERT_TRUE(net.h.build());
    RecordingProfiler profiler;
    net.h.context->setProfiler(&profiler);
    EXPECT_EQ(net.h.context->getProfiler(), &profiler);
    EXPECT_TRUE(net.h.context->getEnqueueEmitsProfile());
    ASSERT_TRUE(net.run());
    ASSERT_TRUE(net.run());
    EXPECT_EQ(namesOf(profiler), (std::vector<std::string>{"first", "second", "first", "second"}));
    EXPECT_EQ(net.y, (std::vector<float>{0, 2}));
}

TEST(Profiler, WithoutEmittingOnlyReportToProfilerReports)
{
    TwoLayers net;
    ASSERT_TRUE(net.h.build());
    RecordingProfiler profiler;
    net.h.context->setProfiler(&profiler);
    net.h.context->setEnqueueEmitsProfile(false);
    ASSERT_TRUE(net.run());
    EXPECT_TRUE(profiler.reports.empty());
    EXPECT_TRUE(net.h.context->reportToProfiler());
    EXPECT_EQ(namesOf(profiler), (std::vector<std::string>{"first", "second"}));
}

TEST(Profiler, TensorRT7StyleProfilersWithoutNoexceptAreCalled)
{
    TwoLayers net;
    ASSERT_TRUE(net.h.build());
    Trt7StyleProfiler profiler;
    net.h.context->setProfiler(&profiler);
    ASSERT_TRUE(net.run());
    EXPECT_EQ(profiler.names, (std::vector<std::string>{"first", "second"}));
}

TEST(Profiler, AnExceptionFromTheProfilerIsAnErrorNamingTheLayerAndTheRunStillSucceeds)
{
    TwoLayers net;
    ASSERT_TRUE(net.h.build());
    ThrowingProfiler profiler;
    net.h.context->setProfiler(&profiler);
    ASSERT_TRUE(net.run()) << net.h.logger.errors();
    EXPECT_EQ(net.y, (std::vector<float>{0, 2}));
    std::string const errors = net.h.logger.errors();
    EXPECT_NE(errors.find("reportLayerTime for layer \"first\""), std::string::npos) << errors;
    EXPECT_NE(errors.find("the profile store is full"), std::string::npos) << errors;
    net.h.context->setEnqueueEmitsProfile(false);
    ASSERT_TRUE(net.run());
    EXPECT_FALSE(net.h.context->reportToProfiler());
}

TEST(Profiler, ReportToProfilerWithoutAProfilerFails)
{
    TwoLayers net;
    ASSERT_TRUE(net.h.build());
    ASSERT_TRUE(net.run());
    EXPECT_FALSE(net.h.context->reportToProfiler());
}

} // namespace
