// The builder's choice between cuDNN's graph engines and Kiln's kernels for INT8 convolutions
// (backend/cuda/passes/quantized_convolution_tuning.h) without a GPU, through a stand-in timer: the timed choice lands
// in the plan and names the layer's tactic, layers of one configuration are timed once, the timing cache answers a
// later build, and layers no graph takes (a stem of 3 channels) or that cannot be timed keep Kiln's kernels. The
// engines themselves run on the GPU in quantized_convolution_test.cpp.
#include "backend/cuda/passes/quantized_convolution_tuning.h"
#include "backend/cuda/tactic_names.h"
#include "backend/timing_cache.h"
#include "backend_comparison.h"
#include "core/quantization.h"
#include "network/fused/quantized_convolution.h"
#include "plan/plan_graph.h"

#include <deque>
#include <stdexcept>
#include <string>
#include <vector>

namespace
{

using namespace nvinfer1;
using namespace kiln::test;
using kiln::cuda::AlgorithmChoice;
using kiln::network::kQuantizedConvolutionLayerType;

//! Answers `answer` in 0.5 ms, recording the input shapes it is asked to time; throws where `fails`.
class StandInTimer final : public kiln::cuda::QuantizedConvolutionAlgorithmTimer
{
public:
    Result fastest(kiln::network::QuantizedConvolutionParams const&, kiln::Shape const& input) override
    {
        timed.push_back(input);
        if (fails)
        {
            throw std::runtime_error("no GPU memory for the operands");
        }
        return Result{answer, 0.5F};
    }
    AlgorithmChoice answer = AlgorithmChoice::graphEngine(2);
    bool fails{false};
    std::vector<kiln::Shape> timed;
};

float const kScale = 0.02F;

ITensor& quantizedPair(INetworkDefinition& network, ITensor& input)
{
    ITensor* scale = network.addConstant(Dims{}, Weights{DataType::kFLOAT, &kScale, 1})->getOutput(0);
    ITensor* q = network.addQuantize(input, *scale, DataType::kINT8)->getOutput(0);
    return *network.addDequantize(*q, *scale, DataType::kFLOAT)->getOutput(0);
}

//! DQ -> 3x3 convolution of `maps` maps -> ReLU -> Q/DQ, on `input`; filters of INT8 values times 0.01 exactly (each
//! map's largest magnitude 127 steps, as max calibration gives), kept alive for the build.
ITensor& quantizedConvolution(INetworkDefinition& network, ITensor& input, int32_t maps)
{
    static std::deque<std::vector<float>> kept;
    int64_t const channels = input.getDimensions().d[1];
    int64_t const perMap = channels * 9;
    std::vector<float>& filters = kept.emplace_back();
    for (int64_t i = 0; i < maps * perMap; ++i)
    {
        int const q = i % perMap == 0 ? 127 : static_cast<int>(i % 255) - 127;
        filters.push_back(kiln::dequantizeInt8(static_cast<int8_t>(q), 0.01F));
    }
    IConvolutionLayer* convolution = network.addConvolutionNd(quantizedPair(network, input), maps, DimsHW{3, 3},
        Weights{DataType::kFLOAT, filters.data(), static_cast<int64_t>(filters.size())}, Weights{});
    convolution->setPaddingNd(DimsHW{1, 1});
    return quantizedPair(
        network, *network.addActivation(*convolution->getOutput(0), ActivationType::kRELU)->getOutput(0));
}

//! A stem of 3 channels into 32 maps (no graph takes 3 channels), then two convolutions of 32 channels into 32.
void threeConvolutions(INetworkDefinition& network)
{
    ITensor* x = network.addInput("x", DataType::kFLOAT, Dims{4, {2, 3, 12, 12}});
    ITensor* y = &quantizedConvolution(network, *x, 32);
    y = &quantizedConvolution(network, *y, 32);
    y = &quantizedConvolution(network, *y, 32);
    y->setName("y");
    network.markOutput(*y);
}

//! A stem, then a 3x3 max pooling of stride 2 between Q/DQ pairs of one scale (ResNet's), which the build moves onto
//! INT8 (writing a tensor it adds), then a convolution of 32 channels reading it.
void pooledConvolution(INetworkDefinition& network)
{
    ITensor* x = network.addInput("x", DataType::kFLOAT, Dims{4, {2, 3, 12, 12}});
    ITensor* y = &quantizedConvolution(network, *x, 32);
    IPoolingLayer* pool = network.addPoolingNd(*y, PoolingType::kMAX, DimsHW{3, 3});
    pool->setStrideNd(DimsHW{2, 2});
    pool->setPaddingNd(DimsHW{1, 1});
    y = &quantizedConvolution(network, *pool->getOutput(0), 32);
    y->setName("y");
    network.markOutput(*y);
}

std::vector<kiln::plan::LayerRecord const*> convolutionsOf(kiln::plan::PlanModel const& model)
{
    return layersOfType(model, kQuantizedConvolutionLayerType);
}

bool tune(kiln::plan::PlanModel& model, kiln::cuda::QuantizedConvolutionTuning const& tuning, std::string& error)
{
    return kiln::cuda::tuneQuantizedConvolutions(
        model, [&](int32_t t) { return kiln::plan::constantDims(model, t).value(); },
        static_cast<int32_t>(model.tensors.size()), tuning, error);
}

TEST(CudaQuantizedConvolutionTuning, TheTimedChoiceLandsInThePlanAndOneConfigurationIsTimedOnce)
{
    for (AlgorithmChoice const answer : {AlgorithmChoice::graphEngine(2), AlgorithmChoice::kilnKernel()})
    {
        kiln::plan::PlanModel model = cudaPlanOf(threeConvolutions);
        auto const convolutions = convolutionsOf(model);
        ASSERT_EQ(convolutions.size(), 3U);
        ASSERT_EQ(firstInputFormat(model, *convolutions[1]), TensorFormat::kHWC);
        kiln::backend::TimingCache cache("stand-in GPU");
        StandInTimer timer;
        timer.answer = answer;
        std::string error;
        ASSERT_TRUE(tune(model, kiln::cuda::QuantizedConvolutionTuning{cache, &timer, "stand-in GPU", false}, error))
            << error;
        ASSERT_EQ(timer.timed.size(), 1U); // the two of 32 channels share one timing; the stem is not asked
        EXPECT_EQ(timer.timed[0], (kiln::Shape{2, 32, 12, 12}));
        EXPECT_TRUE(convolutions[0]->backendChoice.empty());
        EXPECT_EQ(AlgorithmChoice::decode(convolutions[1]->backendChoice), answer);
        EXPECT_EQ(AlgorithmChoice::decode(convolutions[2]->backendChoice), answer);

        // A later build with the cache and no GPU takes the cached choice.
        kiln::plan::PlanModel rebuilt = cudaPlanOf(threeConvolutions);
        ASSERT_TRUE(tune(rebuilt, kiln::cuda::QuantizedConvolutionTuning{cache, nullptr, "stand-in GPU", true}, error))
            << error;
        EXPECT_EQ(AlgorithmChoice::decode(convolutionsOf(rebuilt)[2]->backendChoice), answer);
    }
}

TEST(CudaQuantizedConvolutionTuning, AConvolutionReadingATensorAPassAddedIsTimedAtItsShape)
{
    kiln::plan::PlanModel model = cudaPlanOf(pooledConvolution);
    auto const convolutions = convolutionsOf(model);
    ASSERT_EQ(convolutions.size(), 2U);
    // The pooling moved onto INT8 writes a tensor the pass added after the network's: shaped as the FP32 pooling's.
    int32_t const pooled = convolutions[1]->inputs.at(0);
    ASSERT_EQ(model.tensors[static_cast<size_t>(pooled)].type, DataType::kINT8);
    int32_t const networkTensors = pooled; // what the builder evaluated: the tensors before it
    kiln::backend::TimingCache cache("stand-in GPU");
    StandInTimer timer;
    std::string error;
    ASSERT_TRUE(kiln::cuda::tuneQuantizedConvolutions(
        model, [&](int32_t t) { return kiln::plan::constantDims(model, t).value(); }, networkTensors,
        kiln::cuda::QuantizedConvolutionTuning{cache, &timer, "stand-in GPU", false}, error))
        << error;
    ASSERT_EQ(timer.timed.size(), 1U);
    EXPECT_EQ(timer.timed[0], (kiln::Shape{2, 32, 6, 6})); // the pooled shape
    EXPECT_EQ(AlgorithmChoice::decode(convolutions[1]->backendChoice), timer.answer);
}

TEST(CudaQuantizedConvolutionTuning, EachChoiceNamesTheLayersTactic)
{
    kiln::plan::PlanModel const model = cudaPlanOf(threeConvolutions);
    kiln::plan::LayerRecord layer = *convolutionsOf(model).at(1);
    layer.backendChoice.clear(); // untimed (a build on a GPU has timed it)
    EXPECT_EQ(kiln::cuda::tacticName(layer), "Kiln's INT8 kernels");
    layer.backendChoice = AlgorithmChoice::graphEngine(1).encode();
    EXPECT_EQ(kiln::cuda::tacticName(layer).rfind("cuDNN graph engine of rank 1 (INT8", 0), 0U)
        << kiln::cuda::tacticName(layer);
}

TEST(CudaQuantizedConvolutionTuning, WhatCannotBeTimedKeepsKilnsKernels)
{
    kiln::backend::TimingCache cache("stand-in GPU");
    std::string error;
    kiln::plan::PlanModel model = cudaPlanOf(threeConvolutions);
    StandInTimer failing;
    failing.fails = true;
    ASSERT_TRUE(tune(model, kiln::cuda::QuantizedConvolutionTuning{cache, &failing, "stand-in GPU", false}, error))
        << error;
    EXPECT_EQ(failing.timed.size(), 2U); // a failure is not cached: each layer asks
    for (kiln::plan::LayerRecord const* convolution : convolutionsOf(model))
    {
        EXPECT_TRUE(convolution->backendChoice.empty()) << convolution->name;
    }

    // A cached tactic that is no INT8 convolution's choice (a product's): Kiln's kernels, not that tactic.
    StandInTimer productLike;
    productLike.answer = AlgorithmChoice::gemm(1);
    ASSERT_TRUE(tune(model, kiln::cuda::QuantizedConvolutionTuning{cache, &productLike, "stand-in GPU", false}, error))
        << error;
    for (kiln::plan::LayerRecord const* convolution : convolutionsOf(model))
    {
        EXPECT_TRUE(convolution->backendChoice.empty()) << convolution->name;
    }

    // Under kERROR_ON_TIMING_CACHE_MISS a configuration the cache lacks names the layer.
    kiln::backend::TimingCache empty("stand-in GPU");
    kiln::plan::PlanModel again = cudaPlanOf(threeConvolutions);
    EXPECT_FALSE(tune(again, kiln::cuda::QuantizedConvolutionTuning{empty, &productLike, "stand-in GPU", true}, error));
    EXPECT_NE(error.find("layer \"" + convolutionsOf(again).at(1)->name + "\""), std::string::npos) << error;
}

} // namespace
