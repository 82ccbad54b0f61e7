// The CUDA backend's Fill layer against the CPU reference: kLINSPACE into every output type with static values and
// with the shape, alpha and beta from tensors; kRANDOM_UNIFORM and kRANDOM_NORMAL, which draw from the generator
// the two backends share (counter_random.h), so the GPU must give the CPU's very numbers (uniform: bit for bit;
// normal: through log and cos, whose last bit may differ, so to float rounding), and still the distribution asked.
#include "backend_comparison.h"

#include <algorithm>
#include <numeric>
#include <string>
#include <utility>
#include <vector>
#include <tuple>

namespace
{

using namespace nvinfer1;
using namespace kiln::test;

void markOutput(INetworkDefinition& network, ILayer* layer)
{
    ASSERT_NE(layer, nullptr);
    layer->getOutput(0)->setName("y");
    network.markOutput(*layer->getOutput(0));
}

NetworkMaker staticFill(Dims const& dims, FillOperation operation, DataType type, double alpha, double beta)
{
    return [=](INetworkDefinition& network) {
        IFillLayer* fill = network.addFill(dims, operation, type);
        ASSERT_NE(fill, nullptr);
        fill->setAlpha(alpha);
        fill->setBeta(beta);
        markOutput(network, fill);
    };
}

//! A random fill whose bounds are the network inputs "alpha" and "beta" (0-D FLOAT).
NetworkMaker randomFillOfInputs(Dims const& dims, FillOperation operation)
{
    return [=](INetworkDefinition& network) {
        IFillLayer* fill = network.addFill(dims, operation, DataType::kFLOAT);
        ASSERT_NE(fill, nullptr);
        fill->setInput(1, *network.addInput("alpha", DataType::kFLOAT, Dims{0, {}}));
        fill->setInput(2, *network.addInput("beta", DataType::kFLOAT, Dims{0, {}}));
        markOutput(network, fill);
    };
}

std::map<std::string, HostTensor> bounds(float alpha, float beta)
{
    return {{"alpha", fromFloats({}, {alpha})}, {"beta", fromFloats({}, {beta})}};
}

//! Both backends' output "y", which must be of one type and size.
std::pair<HostTensor, HostTensor> gpuAndCpu(
    NetworkMaker const& maker, std::map<std::string, HostTensor> const& inputs, bool fp16)
{
    auto gpu = runOn(kiln::Backend::kCUDA, maker, inputs, fp16);
    auto cpu = runOn(kiln::Backend::kCPU, maker, inputs, fp16);
    EXPECT_EQ(gpu.count("y"), 1U);
    EXPECT_EQ(cpu.count("y"), 1U);
    return {gpu["y"], cpu["y"]};
}

void expectSameBytes(HostTensor const& gpu, HostTensor const& cpu, std::string const& what)
{
    ASSERT_EQ(gpu.type, cpu.type) << what;
    ASSERT_EQ(gpu.bytes.size(), cpu.bytes.size()) << what;
    size_t const bytes = kiln::elementSize(gpu.type);
    for (size_t i = 0; i < gpu.bytes.size(); i += bytes)
    {
        ASSERT_TRUE(std::equal(gpu.bytes.begin() + i, gpu.bytes.begin() + i + bytes, cpu.bytes.begin() + i))
            << what << " element " << i / bytes;
    }
}

//! Mean and standard deviation.
std::pair<double, double> moments(std::vector<float> const& values)
{
    double const mean = std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
    double squares = 0.0;
    for (float v : values)
    {
        squares += (v - mean) * (v - mean);
    }
    return {mean, std::sqrt(squares / static_cast<double>(values.size()))};
}

TEST(CudaBackendFill, StaticLinspaceIntoEveryOutputType)
{
    SKIP_WITHOUT_GPU();
    auto const linspace = FillOperation::kLINSPACE;
    // Odd lengths, deltas with long binary expansions, values crossing zero.
    expectBackendsAgree(staticFill(Dims{1, {37}}, linspace, DataType::kFLOAT, -3.5, 0.37), {}, false, "float");
    expectBackendsAgree(staticFill(Dims{1, {37}}, linspace, DataType::kFLOAT, -3.5, 0.37), {}, true, "float fp16");
    expectBackendsAgree(staticFill(Dims{1, {301}}, linspace, DataType::kHALF, 100.0, -0.731), {}, false, "half");
    expectBackendsAgree(staticFill(Dims{1, {29}}, linspace, DataType::kINT32, 5.9, -3.2), {}, false, "int32 truncates");
    expectBackendsAgree(staticFill(Dims{1, {29}}, linspace, DataType::kINT64, -1e10, 7777777.0), {}, false, "int64");
    expectBackendsAgree(staticFill(Dims{0, {}}, linspace, DataType::kFLOAT, 7.25, 1.0), {}, false, "0-D is alpha");
    expectBackendsAgree(staticFill(Dims{1, {0}}, linspace, DataType::kFLOAT, 1.0, 1.0), {}, false, "empty");
}

TEST(CudaBackendFill, LinspaceShapeAlphaAndDeltasFromTensors)
{
    SKIP_WITHOUT_GPU();
    // Shape from a shape layer, alpha and the deltas from network inputs: values the GPU reads when it runs.
    auto fromInputs = [](INetworkDefinition& network) {
        ITensor* like = network.addInput("like", DataType::kFLOAT, Dims{3, {3, 5, 7}});
        IFillLayer* fill = network.addFill(Dims{1, {1}}, FillOperation::kLINSPACE, DataType::kFLOAT);
        fill->setInput(0, *network.addShape(*like)->getOutput(0));
        fill->setInput(1, *network.addInput("alpha", DataType::kFLOAT, Dims{0, {}}));
        fill->setInput(2, *network.addInput("beta", DataType::kFLOAT, Dims{1, {3}}));
        markOutput(network, fill);
    };
    std::map<std::string, HostTensor> const inputs{{"like", fromFloats({3, 5, 7}, spread(105, 0.0F, 1.0F))},
        {"alpha", fromFloats({}, {-2.5F})}, {"beta", fromFloats({3}, {1.25F, -0.5F, 0.125F})}};
    expectBackendsAgree(fromInputs, inputs, false, "float inputs");
    expectBackendsAgree(fromInputs, inputs, true, "float inputs fp16");

    // INT32 alpha and deltas (truncated by nothing) into an INT32 output of odd extents.
    auto integers = [](INetworkDefinition& network) {
        IFillLayer* fill = network.addFill(Dims{2, {9, 13}}, FillOperation::kLINSPACE, DataType::kINT32);
        fill->setInput(1, *network.addInput("alpha", DataType::kINT32, Dims{0, {}}));
        fill->setInput(2, *network.addInput("beta", DataType::kINT32, Dims{1, {2}}));
        markOutput(network, fill);
    };
    expectBackendsAgree(integers,
        {{"alpha", fromElements<int32_t>({}, {-7})}, {"beta", fromElements<int32_t>({2}, {100, -3})}}, false,
        "int32 inputs");

    // A static alpha with deltas from a tensor (Kiln takes the mix; TensorRT wants both or neither).
    auto mixed = [](INetworkDefinition& network) {
        IFillLayer* fill = network.addFill(Dims{3, {4, 1, 6}}, FillOperation::kLINSPACE, DataType::kFLOAT);
        fill->setAlpha(0.3);
        fill->setInput(2, *network.addInput("beta", DataType::kFLOAT, Dims{1, {3}}));
        markOutput(network, fill);
    };
    expectBackendsAgree(
        mixed, {{"beta", fromFloats({3}, {-1.5F, 9.0F, 0.1F})}}, false, "static alpha, deltas from an input");
}

// Without a GPU: the CUDA builder's passes ask layers the types and formats of their slots, and a Fill's shape input
// may be absent; they must not ask it of that slot (the layout timing did, and the build failed with "slot 0 of layer
// ... holds no tensor of the plan").
TEST(CudaBackendFill, BuildsWithoutItsShapeInput)
{
    auto linspaceOfInputs = [](INetworkDefinition& network) {
        IFillLayer* fill = network.addFill(Dims{2, {4, 6}}, FillOperation::kLINSPACE, DataType::kFLOAT);
        fill->setInput(1, *network.addInput("alpha", DataType::kFLOAT, Dims{0, {}}));
        fill->setInput(2, *network.addInput("beta", DataType::kFLOAT, Dims{1, {2}}));
        markOutput(network, fill);
    };
    std::vector<std::pair<std::string, NetworkMaker>> const networks{{"linspace", linspaceOfInputs},
        {"uniform", randomFillOfInputs(Dims{2, {4, 6}}, FillOperation::kRANDOM_UNIFORM)},
        {"normal", randomFillOfInputs(Dims{2, {4, 6}}, FillOperation::kRANDOM_NORMAL)}};
    for (auto const& [name, maker] : networks)
    {
        for (bool fp16 : {false, true})
        {
            kiln::plan::PlanModel const plan = cudaPlanOf(maker, fp16);
            auto const fill = std::find_if(plan.layers.begin(), plan.layers.end(),
                [](kiln::plan::LayerRecord const& layer) { return layer.type == LayerType::kFILL; });
            ASSERT_NE(fill, plan.layers.end()) << name << (fp16 ? " FP16" : "");
            ASSERT_EQ(fill->inputs.size(), 3U) << name;
            EXPECT_EQ(fill->inputs[0], -1) << name;
            EXPECT_GE(fill->inputs[1], 0) << name;
            EXPECT_GE(fill->inputs[2], 0) << name;
        }
    }
}

TEST(CudaBackendFill, RandomUniformIsTheCpuSequenceBitForBit)
{
    SKIP_WITHOUT_GPU();
    auto const uniform = FillOperation::kRANDOM_UNIFORM;
    struct Case
    {
        std::string name;
        NetworkMaker maker;
        std::map<std::string, HostTensor> inputs;
        bool fp16;
        float low;
        float high;
    };
    std::vector<Case> const cases{
        {"static float", staticFill(Dims{1, {4001}}, uniform, DataType::kFLOAT, -2.0, 3.0), {}, false, -2.0F, 3.0F},
        {"static fp16", staticFill(Dims{1, {4001}}, uniform, DataType::kFLOAT, -2.0, 3.0), {}, true, -2.0F, 3.0F},
        {"half output", staticFill(Dims{2, {3, 1337}}, uniform, DataType::kHALF, 0.0, 1.0), {}, false, 0.0F, 1.0F},
        {"bounds from inputs", randomFillOfInputs(Dims{2, {41, 100}}, uniform), bounds(10.0F, 11.0F), false, 10.0F,
            11.0F},
        {"empty range", staticFill(Dims{1, {17}}, uniform, DataType::kFLOAT, 0.5, 0.5), {}, false, 0.5F, 0.5F}};
    for (Case const& c : cases)
    {
        auto const [gpu, cpu] = gpuAndCpu(c.maker, c.inputs, c.fp16);
        expectSameBytes(gpu, cpu, c.name);
        if (gpu.type != DataType::kFLOAT)
        {
            continue;
        }
        std::vector<float> const values = gpu.floats();
        for (float v : values)
        {
            ASSERT_GE(v, c.low) << c.name;
            ASSERT_LE(v, c.high) << c.name;
        }
        // A uniform distribution's mean and deviation (width / sqrt(12)); over 4000 draws the mean's own deviation
        // is 1.3% of the width, and the sequence is fixed, so the bounds hold every run.
        auto const [mean, deviation] = moments(values);
        double const width = c.high - c.low;
        EXPECT_NEAR(mean, (c.low + c.high) / 2.0, 0.05 * width + 1e-6) << c.name;
        EXPECT_NEAR(deviation, width / std::sqrt(12.0), 0.03 * width + 1e-6) << c.name;
    }
}

TEST(CudaBackendFill, RandomNormalIsTheCpuSequence)
{
    SKIP_WITHOUT_GPU();
    auto const normal = FillOperation::kRANDOM_NORMAL;
    struct Case
    {
        std::string name;
        NetworkMaker maker;
        std::map<std::string, HostTensor> inputs;
        bool fp16;
        double mean;
        double deviation;
    };
    std::vector<Case> const cases{
        {"static float", staticFill(Dims{2, {50, 81}}, normal, DataType::kFLOAT, 5.0, 2.0), {}, false, 5.0, 2.0},
        {"static fp16", staticFill(Dims{2, {50, 81}}, normal, DataType::kFLOAT, 5.0, 2.0), {}, true, 5.0, 2.0},
        {"half output", staticFill(Dims{3, {7, 11, 13}}, normal, DataType::kHALF, -1.0, 0.5), {}, false, -1.0, 0.5},
        {"bounds from inputs", randomFillOfInputs(Dims{1, {4099}}, normal), bounds(-3.0F, 0.25F), false, -3.0, 0.25},
        {"zero deviation", staticFill(Dims{1, {9}}, normal, DataType::kFLOAT, 1.5, 0.0), {}, false, 1.5, 0.0}};
    for (Case const& c : cases)
    {
        auto const [gpu, cpu] = gpuAndCpu(c.maker, c.inputs, c.fp16);
        if (gpu.type != DataType::kFLOAT || c.fp16)
        {
            // Rounded to 16 bits, a last-bit difference in log or cos would only show on a rounding tie.
            expectSameBytes(gpu, cpu, c.name);
            continue;
        }
        expectSameOutput(gpu, cpu, {1e-6, 1e-6}, c.name);
        auto const [mean, deviation] = moments(gpu.floats());
        // About 4000 draws: the sample mean's deviation is 1.6% of the deviation asked.
        EXPECT_NEAR(mean, c.mean, 0.08 * c.deviation + 1e-6) << c.name;
        EXPECT_NEAR(deviation, c.deviation, 0.05 * c.deviation + 1e-6) << c.name;
    }
}

TEST(CudaBackendFill, RandomBoundsFromInputsThatTheCpuRefusesGiveNaN)
{
    SKIP_WITHOUT_GPU();
    // The CPU fails the run; the GPU reads the bounds only on the device, so it marks the whole output instead.
    for (auto const& [operation, alpha, beta] :
        {std::tuple{FillOperation::kRANDOM_UNIFORM, 3.0F, 1.0F}, std::tuple{FillOperation::kRANDOM_NORMAL, 0.0F, -1.0F},
            std::tuple{FillOperation::kRANDOM_UNIFORM, 0.0F, INFINITY}})
    {
        auto gpu = runOn(kiln::Backend::kCUDA, randomFillOfInputs(Dims{1, {300}}, operation), bounds(alpha, beta));
        ASSERT_EQ(gpu.count("y"), 1U);
        for (float v : gpu["y"].floats())
        {
            ASSERT_TRUE(std::isnan(v)) << "alpha " << alpha << " beta " << beta;
        }
    }
}

TEST(CudaBackendFill, StaticUniformBoundsInTheWrongOrderFailWhenRun)
{
    SKIP_WITHOUT_GPU();
    // As on the CPU: shape inference lets [4, 1] through (setAlpha comes before setBeta), the run refuses it.
    kiln::test::RecordingLogger logger;
    std::unique_ptr<IBuilder> builder(createInferBuilder(logger));
    std::unique_ptr<INetworkDefinition> network(builder->createNetworkV2(0));
    staticFill(Dims{1, {3}}, FillOperation::kRANDOM_UNIFORM, DataType::kFLOAT, 4.0, 1.0)(*network);
    std::unique_ptr<IBuilderConfig> config(builder->createBuilderConfig());
    kiln::setBackend(*config, kiln::Backend::kCUDA);
    std::unique_ptr<IHostMemory> plan(builder->buildSerializedNetwork(*network, *config));
    ASSERT_NE(plan, nullptr) << logger.errors();
    std::unique_ptr<IRuntime> runtime(createInferRuntime(logger));
    std::unique_ptr<ICudaEngine> engine(runtime->deserializeCudaEngine(plan->data(), plan->size()));
    ASSERT_NE(engine, nullptr) << logger.errors();
    std::unique_ptr<IExecutionContext> context(engine->createExecutionContext());
    void* y = nullptr;
    ASSERT_EQ(cudaMalloc(&y, 3 * sizeof(float)), cudaSuccess);
    EXPECT_TRUE(context->setTensorAddress("y", y));
    EXPECT_FALSE(context->enqueueV3(nullptr));
    EXPECT_NE(
        logger.errors().find("the minimum alpha (4.000000) exceeds the maximum beta (1.000000)"), std::string::npos)
        << logger.errors();
    cudaFree(y);
}

} // namespace
