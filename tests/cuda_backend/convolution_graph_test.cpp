// Convolutions run through engines of cuDNN's graph API (convolution_graph.h): every engine the builder may choose
// among, forced in turn into every convolution of a plan, computes what the CPU reference computes, with the
// fused bias, residual and ReLU; in FP16 channels-last and linear, and in FP32 (no TF32).
#include "backend/cuda/libraries/cudnn/convolution_graph.h"
#include "backend/cuda/tuning/algorithm_choice.h"
#include "backend_comparison.h"
#include "serial/byte_io.h"

#include <cudnn.h>

#include <vector>

namespace
{

using namespace nvinfer1;
using namespace kiln::test;

struct Layers
{
    std::vector<float> stem = weightsOf(16 * 3 * 9, 1.0F);
    std::vector<float> stemBias = weightsOf(16, 2.0F);
    std::vector<float> block = weightsOf(16 * 16, 3.0F);
    std::vector<float> blockBias = weightsOf(16, 4.0F);
    std::vector<float> grouped = weightsOf(8 * 4 * 9, 5.0F);
    std::vector<float> tail = weightsOf(8 * 16 * 9, 6.0F);
};

Weights weights(std::vector<float> const& values)
{
    return Weights{DataType::kFLOAT, values.data(), static_cast<int64_t>(values.size())};
}

//! An RGB stem (3x3, bias, ReLU: channels padded to 8 in channels-last), a 1x1 block with bias and residual
//! (relu(conv(a) + bias + a)), a strided convolution without bias, and a grouped, dilated one with no epilogue.
NetworkMaker stemBlockTail(Layers const& layers)
{
    return [&layers](INetworkDefinition& network) {
        ITensor* x = network.addInput("x", DataType::kFLOAT, Dims{4, {2, 3, 12, 10}});
        IConvolutionLayer* stem
            = network.addConvolutionNd(*x, 16, Dims{2, {3, 3}}, weights(layers.stem), weights(layers.stemBias));
        stem->setPaddingNd(Dims{2, {1, 1}});
        ITensor* a = network.addActivation(*stem->getOutput(0), ActivationType::kRELU)->getOutput(0);
        IConvolutionLayer* block
            = network.addConvolutionNd(*a, 16, Dims{2, {1, 1}}, weights(layers.block), weights(layers.blockBias));
        ITensor* sum = network.addElementWise(*block->getOutput(0), *a, ElementWiseOperation::kSUM)->getOutput(0);
        ITensor* b = network.addActivation(*sum, ActivationType::kRELU)->getOutput(0);
        IConvolutionLayer* tail = network.addConvolutionNd(*b, 8, Dims{2, {3, 3}}, weights(layers.tail), Weights{});
        tail->setStrideNd(Dims{2, {2, 2}});
        tail->setPaddingNd(Dims{2, {1, 1}});
        IConvolutionLayer* grouped
            = network.addConvolutionNd(*tail->getOutput(0), 8, Dims{2, {3, 3}}, weights(layers.grouped), Weights{});
        grouped->setNbGroups(2);
        grouped->setDilationNd(Dims{2, {2, 2}});
        grouped->setPaddingNd(Dims{2, {2, 2}});
        grouped->getOutput(0)->setName("y");
        network.markOutput(*grouped->getOutput(0));
    };
}

void expectEveryGraphEngineAgrees(bool fp16, kiln::ConvolutionLayout layout, char const* what)
{
    Layers const layers;
    NetworkMaker const maker = stemBlockTail(layers);
    auto const settings = [layout](IBuilderConfig& config) { kiln::setConvolutionLayout(config, layout); };
    std::map<std::string, HostTensor> const inputs{
        {"x", fromFloats({2, 3, 12, 10}, spread(2 * 3 * 12 * 10, -1.5F, 1.7F))}};
    auto const expected = runOn(kiln::Backend::kCPU, maker, inputs, fp16, nullptr, settings);
    kiln::plan::PlanModel const model = cudaPlanOf(maker, fp16, settings);
    // A rank beyond a layer's candidates runs its first working one; the builder times this many at most.
    for (int32_t rank = 0; rank < 8; ++rank)
    {
        auto const outputs = runPlan(kiln::Backend::kCUDA,
            withBackendChoice(model, LayerType::kCONVOLUTION, kiln::cuda::AlgorithmChoice::graphEngine(rank).encode()),
            inputs);
        ASSERT_EQ(outputs.count("y"), 1U) << what << " rank " << rank;
        expectSameOutput(outputs.at("y"), expected.at("y"), fp16 ? Tolerance{2.5e-3, 1e-3} : Tolerance{1e-5, 1e-4},
            std::string(what) + ", every convolution on graph engine " + std::to_string(rank));
    }
}

TEST(CudaConvolutionGraph, EveryEngineAgreesWithTheCpuInFp16ChannelsLast)
{
    SKIP_WITHOUT_GPU();
    expectEveryGraphEngineAgrees(true, kiln::ConvolutionLayout::kCHANNELS_LAST, "FP16 channels-last");
}

TEST(CudaConvolutionGraph, EveryEngineAgreesWithTheCpuInFp16Linear)
{
    SKIP_WITHOUT_GPU();
    expectEveryGraphEngineAgrees(true, kiln::ConvolutionLayout::kLINEAR, "FP16 linear");
}

TEST(CudaConvolutionGraph, EveryEngineAgreesWithTheCpuInFp32)
{
    SKIP_WITHOUT_GPU();
    expectEveryGraphEngineAgrees(false, kiln::ConvolutionLayout::kBY_TIMING, "FP32");
}

TEST(CudaConvolutionGraph, ARunOnOtherAddressesReadsAndWritesThoseAddresses)
{
    // A graph plan keeps the cuDNN variant pack naming the addresses of its last run (finalizing one per run costs
    // host time). In FP32 the first convolution reads the input binding and the last writes the output binding, so
    // one context run on two sets of buffers, then on the first set again with new contents, must see each change.
    SKIP_WITHOUT_GPU();
    Layers const layers;
    NetworkMaker const maker = stemBlockTail(layers);
    auto const linear
        = [](IBuilderConfig& config) { kiln::setConvolutionLayout(config, kiln::ConvolutionLayout::kLINEAR); };
    std::vector<uint8_t> const blob = withBackendChoice(cudaPlanOf(maker, false, linear), LayerType::kCONVOLUTION,
        kiln::cuda::AlgorithmChoice::graphEngine(0).encode());
    kiln::test::RecordingLogger logger;
    std::unique_ptr<IRuntime> runtime(createInferRuntime(logger));
    std::unique_ptr<ICudaEngine> engine(runtime->deserializeCudaEngine(blob.data(), blob.size()));
    ASSERT_NE(engine, nullptr) << logger.errors();
    std::unique_ptr<IExecutionContext> context(engine->createExecutionContext());
    size_t const outputBytes = volumeOf(engine->getTensorShape("y")) * sizeof(float);
    std::vector<HostTensor> inputs;
    for (float const high : {1.7F, -0.4F, 3.1F})
    {
        inputs.push_back(fromFloats({2, 3, 12, 10}, spread(2 * 3 * 12 * 10, -1.5F, high)));
    }
    DeviceCopy const firstInput(inputs[0].bytes);
    DeviceCopy const secondInput(inputs[1].bytes);
    DeviceCopy const firstOutput{std::vector<uint8_t>(outputBytes)};
    DeviceCopy const secondOutput{std::vector<uint8_t>(outputBytes)};
    auto const expectRun
        = [&](DeviceCopy const& input, DeviceCopy const& output, HostTensor const& x, char const* what) {
              ASSERT_EQ(cudaMemcpy(input.data, x.bytes.data(), x.bytes.size(), cudaMemcpyHostToDevice), cudaSuccess);
              ASSERT_TRUE(context->setTensorAddress("x", input.data));
              ASSERT_TRUE(context->setTensorAddress("y", output.data));
              ASSERT_TRUE(context->enqueueV3(nullptr)) << logger.errors();
              ASSERT_EQ(cudaStreamSynchronize(nullptr), cudaSuccess);
              HostTensor const y
                  = fromBytes(shapeOf(engine->getTensorShape("y")), output.read(outputBytes), DataType::kFLOAT);
              expectSameOutput(y, runOn(kiln::Backend::kCPU, maker, {{"x", x}}).at("y"), {1e-5, 1e-4}, what);
          };
    expectRun(firstInput, firstOutput, inputs[0], "the first buffers");
    expectRun(secondInput, secondOutput, inputs[1], "other buffers");
    expectRun(firstInput, firstOutput, inputs[2], "the first buffers again, with new contents");
}

TEST(CudaConvolutionGraph, FusedGraphsHaveEnginesThatKeepTheNumerics)
{
    // Without candidates every graph choice would quietly fall back to the per-call API, and the tests above would
    // prove nothing about graph engines.
    SKIP_WITHOUT_GPU();
    cudnnHandle_t handle = nullptr;
    ASSERT_EQ(cudnnCreate(&handle), CUDNN_STATUS_SUCCESS);
    Layers const layers;
    kiln::network::ConvolutionParams params;
    params.setDefaults(Dims{2, {1, 1}});
    params.nbOutputMaps = 16;
    params.kernel = kiln::network::WeightsBuffer(weights(layers.block));
    params.bias = kiln::network::WeightsBuffer(weights(layers.blockBias));
    kiln::plan::Epilogue epilogue;
    epilogue.addsResidual = true;
    epilogue.setRelu();
    kiln::cuda::ConvolutionGraph const half(
        handle, params, epilogue, true, {2, 16, 12, 10}, DataType::kHALF, kiln::TensorFormat::kHWC);
    EXPECT_GT(half.candidateCount(), 0) << "FP16 channels-last, bias, residual and ReLU";
    EXPECT_TRUE(half.planOrFirstWorking(0).has_value());
    kiln::cuda::ConvolutionGraph const single(
        handle, params, kiln::plan::Epilogue{}, false, {2, 16, 12, 10}, DataType::kFLOAT, kiln::TensorFormat::kLINEAR);
    EXPECT_GT(single.candidateCount(), 0) << "FP32 linear, convolution alone";
    cudnnDestroy(handle);
}

} // namespace
