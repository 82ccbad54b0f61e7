// The engine inspector's "TacticName" for layers of CUDA plans: the library and algorithm the builder chose for a
// matrix multiply, convolution or deconvolution, in words, from the plan's choice alone (no GPU needed), and in the
// inspector's report of a plan built on a GPU.
#include "backend/backend.h"
#include "backend/cuda/cuda_backend.h"
#include "backend/cuda/tactic_names.h"
#include "backend/cuda/tuning/algorithm_choice.h"
#include "backend_comparison.h"

#include <string>
#include <vector>

namespace
{

using namespace nvinfer1;
using namespace kiln::test;
using kiln::cuda::AlgorithmChoice;

//! What the CUDA backend names a layer of kind `type` holding `choice` (encoded bytes).
std::string nameOf(LayerType type, std::vector<uint8_t> const& choice)
{
    kiln::plan::LayerRecord layer;
    layer.type = type;
    layer.backendChoice = choice;
    std::string const name = kiln::cuda::tacticName(layer);
    EXPECT_EQ(kiln::cuda::cudaBackend().tacticName(layer), name) << "the backend's inspector hook says the same";
    return name;
}

TEST(CudaTacticNames, AProductSaysItsCublasLtRankAndHowItsKIsSplit)
{
    EXPECT_EQ(nameOf(LayerType::kMATRIX_MULTIPLY, {}), "cuBLASLt, its heuristic's first algorithm");
    EXPECT_EQ(nameOf(LayerType::kMATRIX_MULTIPLY, AlgorithmChoice::gemm(3).encode()),
        "cuBLASLt, its heuristic's algorithm of rank 3");
    EXPECT_EQ(nameOf(LayerType::kMATRIX_MULTIPLY, AlgorithmChoice::gemm(2, 4).encode()),
        "cuBLASLt, its heuristic's algorithm of rank 2, K split in 4 parts");
}

TEST(CudaTacticNames, ConvolutionsSayWhichLibraryAndAlgorithm)
{
    EXPECT_EQ(nameOf(LayerType::kCONVOLUTION, {}), "cuDNN, its heuristics' algorithm");
    EXPECT_EQ(nameOf(LayerType::kCONVOLUTION, AlgorithmChoice::perCall(1).encode()),
        "cuDNN forward algorithm IMPLICIT_PRECOMP_GEMM");
    EXPECT_EQ(
        nameOf(LayerType::kCONVOLUTION, AlgorithmChoice::graphEngine(2).encode()), "cuDNN graph API, engine of rank 2");
    EXPECT_EQ(
        nameOf(LayerType::kCONVOLUTION, AlgorithmChoice::kilnKernel().encode()), "Kiln's small-channel convolution");
    EXPECT_EQ(
        nameOf(LayerType::kCONVOLUTION, AlgorithmChoice::depthwiseKernel().encode()), "Kiln's depthwise convolution");
    EXPECT_EQ(nameOf(LayerType::kCONVOLUTION, AlgorithmChoice::depthwiseKernel(4).encode()),
        "Kiln's depthwise convolution, strips of 4 positions a thread");
    EXPECT_EQ(nameOf(LayerType::kCONVOLUTION, AlgorithmChoice::gemm().encode()),
        "cuBLASLt, one product of the input (1x1) or of its windows, unfolded");
    EXPECT_EQ(nameOf(LayerType::kDECONVOLUTION, AlgorithmChoice::perCall(1).encode()),
        "cuDNN backward-data algorithm ALGO_1");
}

TEST(CudaTacticNames, OtherLayersAndMalformedChoicesSayNothing)
{
    EXPECT_EQ(nameOf(LayerType::kACTIVATION, {}), "");
    EXPECT_EQ(nameOf(LayerType::kMATRIX_MULTIPLY, {1, 2, 3}), "") << "a choice the plan holds malformed";
}

TEST(CudaTacticNames, TheInspectorNamesTheAlgorithmTheBuilderChose)
{
    SKIP_WITHOUT_GPU();
    RecordingLogger logger;
    NetworkMaker const product = [](INetworkDefinition& network) {
        static std::vector<float> const weights = spread(64 * 32, -0.5F, 0.5F);
        ITensor* x = network.addInput("x", DataType::kFLOAT, Dims{2, {16, 64}});
        ITensor* w
            = network.addConstant(Dims{2, {64, 32}}, Weights{DataType::kFLOAT, weights.data(), 64 * 32})->getOutput(0);
        IMatrixMultiplyLayer* fc = network.addMatrixMultiply(*x, MatrixOperation::kNONE, *w, MatrixOperation::kNONE);
        fc->setName("fc");
        fc->getOutput(0)->setName("y");
        network.markOutput(*fc->getOutput(0));
    };
    std::unique_ptr<IHostMemory> const plan = buildPlan(logger, kiln::Backend::kCUDA, product, false, {});
    ASSERT_NE(plan, nullptr);
    std::unique_ptr<IRuntime> runtime(createInferRuntime(logger));
    std::unique_ptr<ICudaEngine> engine(runtime->deserializeCudaEngine(plan->data(), plan->size()));
    ASSERT_NE(engine, nullptr) << logger.errors();
    std::unique_ptr<IEngineInspector> inspector(engine->createEngineInspector());
    std::string const report = inspector->getEngineInformation(LayerInformationFormat::kJSON);
    EXPECT_NE(report.find("\"TacticName\":\"cuBLASLt, its heuristic's algorithm of rank "), std::string::npos)
        << report;
}

} // namespace
