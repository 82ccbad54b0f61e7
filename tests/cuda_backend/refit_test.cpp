// Refit on the CUDA backend: a refittable engine (BuilderFlag::kREFIT) of a convolution, a scale (batch norm), a ReLU
// and a sum with a constant, FP32 and FP16, takes new weights by name; the context made before the refit uploads them
// before its next run and then gives what the CPU reference gives for a network built with the new weights.
#include "backend_comparison.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace
{

using namespace nvinfer1;
using namespace kiln::test;

constexpr int64_t kChannels = 16;
Dims const kImage{4, {2, kChannels, 9, 9}};

using WeightSet = std::map<std::string, std::vector<float>>;

WeightSet weightSet(float phase)
{
    return {{"conv.weight", weightsOf(kChannels * kChannels * 9, phase)},
        {"conv.bias", weightsOf(kChannels, phase + 1.0F)}, {"bn.shift", weightsOf(kChannels, phase + 2.0F)},
        {"bn.scale", weightsOf(kChannels, phase + 3.0F)}, {"offset", weightsOf(kChannels, phase + 4.0F)}};
}

Weights weightsFrom(std::vector<float> const& values)
{
    return Weights{DataType::kFLOAT, values.data(), static_cast<int64_t>(values.size())};
}

//! The network with `weights`, which must outlive the build; each weight is named after its key.
NetworkMaker block(std::shared_ptr<WeightSet const> const& weights)
{
    return [weights](INetworkDefinition& network) {
        WeightSet const& w = *weights;
        ITensor& x = *network.addInput("x", DataType::kFLOAT, kImage);
        IConvolutionLayer* conv = network.addConvolutionNd(
            x, kChannels, Dims{2, {3, 3}}, weightsFrom(w.at("conv.weight")), weightsFrom(w.at("conv.bias")));
        conv->setPaddingNd(Dims{2, {1, 1}});
        IScaleLayer* bn = network.addScale(*conv->getOutput(0), ScaleMode::kCHANNEL, weightsFrom(w.at("bn.shift")),
            weightsFrom(w.at("bn.scale")), Weights{DataType::kFLOAT, nullptr, 0});
        ITensor& activated = relu(network, *bn->getOutput(0), "relu");
        IConstantLayer* offset = network.addConstant(Dims{4, {1, kChannels, 1, 1}}, weightsFrom(w.at("offset")));
        ITensor& y = add(network, activated, *offset->getOutput(0), "sum");
        y.setName("y");
        network.markOutput(y);
        for (auto const& [name, values] : w)
        {
            EXPECT_TRUE(network.setWeightsName(weightsFrom(values), name.c_str()));
        }
    };
}

class CudaRefit : public ::testing::TestWithParam<bool>
{
};

TEST_P(CudaRefit, TheContextComputesWithTheNewWeightsAfterARefit)
{
    SKIP_WITHOUT_GPU();
    bool const fp16 = GetParam();
    auto const before = std::make_shared<WeightSet const>(weightSet(0.3F));
    auto const after = std::make_shared<WeightSet const>(weightSet(0.9F));
    std::vector<float> const input = spread(2 * kChannels * 9 * 9, -1.0F, 1.0F);
    std::map<std::string, HostTensor> const inputs{{"x", fromFloats(shapeOf(kImage), input)}};

    RecordingLogger logger;
    std::unique_ptr<IHostMemory> const plan = buildPlan(logger, kiln::Backend::kCUDA, block(before), fp16,
        [](IBuilderConfig& config) { config.setFlag(BuilderFlag::kREFIT); });
    ASSERT_NE(plan, nullptr);
    std::unique_ptr<IRuntime> runtime{createInferRuntime(logger)};
    std::unique_ptr<ICudaEngine> engine{runtime->deserializeCudaEngine(plan->data(), plan->size())};
    ASSERT_NE(engine, nullptr) << logger.errors();
    std::unique_ptr<IExecutionContext> context{engine->createExecutionContext()};
    DeviceCopy const x(inputs.at("x").bytes);
    size_t const outputBytes = input.size() * sizeof(float);
    DeviceCopy const y{std::vector<uint8_t>(outputBytes)};
    ASSERT_TRUE(context->setTensorAddress("x", x.data));
    ASSERT_TRUE(context->setTensorAddress("y", y.data));
    auto runContext = [&] {
        EXPECT_TRUE(context->enqueueV3(nullptr)) << logger.errors();
        EXPECT_EQ(cudaStreamSynchronize(nullptr), cudaSuccess);
        return fromBytes(shapeOf(kImage), y.read(outputBytes), DataType::kFLOAT);
    };
    Tolerance const tolerance = fp16 ? Tolerance{3e-2, 2e-2} : Tolerance{1e-4, 1e-4};
    auto const expectedBefore = runOn(kiln::Backend::kCPU, block(before), inputs, fp16);
    expectClose(runContext(), expectedBefore.at("y"), tolerance, "before the refit");

    std::unique_ptr<IRefitter> refitter{createInferRefitter(*engine, logger)};
    ASSERT_NE(refitter, nullptr) << logger.errors();
    EXPECT_EQ(refitter->getWeightsPrototype("conv.weight").type, fp16 ? DataType::kHALF : DataType::kFLOAT);
    for (auto const& [name, values] : *after)
    {
        ASSERT_TRUE(refitter->setNamedWeights(name.c_str(), weightsFrom(values))) << logger.errors();
    }
    ASSERT_TRUE(refitter->refitCudaEngineAsync(nullptr));
    auto const expectedAfter = runOn(kiln::Backend::kCPU, block(after), inputs, fp16);
    expectClose(runContext(), expectedAfter.at("y"), tolerance, "after the refit");
}

INSTANTIATE_TEST_SUITE_P(Precisions, CudaRefit, ::testing::Bool(), [](::testing::TestParamInfo<bool> const& param) {
    return param.param ? std::string("FP16") : std::string("FP32");
});

} // namespace
