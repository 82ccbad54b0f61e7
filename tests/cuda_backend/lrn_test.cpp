// The CUDA backend's LRN layer against the CPU reference: every window TensorRT allows (one of them wider than the
// channels), AlexNet's and GoogLeNet's parameters, FP32 and FP16 precision, inputs of rank 3 and 5, a negative alpha
// (NaN where the base turns negative under a fractional beta), FP16 and BF16 tensors (within one unit in the last
// place: the reference computes in double, the kernel in float), an empty tensor inside a network, and, without a
// GPU, that the CUDA plan builds.
#include "backend_comparison.h"

#include <cmath>

namespace
{

using namespace nvinfer1;
using namespace kiln::test;

struct LrnSetup
{
    int64_t window{5};
    float alpha{1.0e-4F};
    float beta{0.75F};
    float k{1.0F};
};

std::string describe(LrnSetup const& setup)
{
    return "window " + std::to_string(setup.window) + " alpha " + std::to_string(setup.alpha) + " beta "
        + std::to_string(setup.beta) + " k " + std::to_string(setup.k);
}

//! LRN of input "x" of `type` and `dims` into output "y".
NetworkMaker lrnOf(DataType type, Dims const& dims, LrnSetup const& setup)
{
    return [=](INetworkDefinition& network) {
        ITensor* x = network.addInput("x", type, dims);
        ILRNLayer* layer = network.addLRN(*x, setup.window, setup.alpha, setup.beta, setup.k);
        ASSERT_NE(layer, nullptr);
        layer->getOutput(0)->setName("y");
        network.markOutput(*layer->getOutput(0));
    };
}

TEST(CudaBackendLrn, BuildsForTheCudaBackendWithoutAGpu)
{
    // Building and reading a CUDA plan needs no GPU: the backend finds the layer's kernel, at FP16 precision too.
    for (bool fp16 : {false, true})
    {
        kiln::plan::PlanModel const model = cudaPlanOf(lrnOf(DataType::kFLOAT, Dims{4, {1, 6, 3, 4}}, {}), fp16);
        EXPECT_EQ(layersOfKind(model, LayerType::kLRN), 1) << (fp16 ? "fp16" : "fp32");
    }
}

TEST(CudaBackendLrn, EveryWindowInFp32AndFp16)
{
    SKIP_WITHOUT_GPU();
    Dims const dims{4, {2, 11, 3, 5}};
    std::map<std::string, HostTensor> const inputs{{"x", fromFloats(shapeOf(dims), spread(volumeOf(dims), -6, 5))}};
    for (int64_t window = 1; window <= 15; window += 2)
    {
        // alpha large enough that every channel of the window weighs in the divisor.
        LrnSetup const setup{window, 0.05F, 0.75F, 1.0F};
        expectBackendsAgree(lrnOf(DataType::kFLOAT, dims, setup), inputs, false, describe(setup));
        expectBackendsAgree(lrnOf(DataType::kFLOAT, dims, setup), inputs, true, describe(setup) + " fp16");
    }
}

TEST(CudaBackendLrn, AlexNetAndGoogLeNetParameters)
{
    SKIP_WITHOUT_GPU();
    // AlexNet: window 5, alpha 1e-4, beta 0.75, k 2 (as in Caffe's model); GoogLeNet: k 1. Activations up to 40.
    Dims const dims{4, {1, 96, 7, 9}};
    std::map<std::string, HostTensor> const inputs{{"x", fromFloats(shapeOf(dims), spread(volumeOf(dims), 0, 40))}};
    for (LrnSetup const& setup : {LrnSetup{5, 1.0e-4F, 0.75F, 2.0F}, LrnSetup{5, 1.0e-4F, 0.75F, 1.0F}})
    {
        for (bool fp16 : {false, true})
        {
            expectBackendsAgree(
                lrnOf(DataType::kFLOAT, dims, setup), inputs, fp16, describe(setup) + (fp16 ? " fp16" : ""));
        }
    }
}

TEST(CudaBackendLrn, TheChannelsOfRankThreeAndRankFiveInputs)
{
    SKIP_WITHOUT_GPU();
    LrnSetup const setup{3, 0.5F, 1.0F, 0.5F};
    for (Dims const& dims : {Dims{3, {7, 3, 5}}, Dims{5, {2, 3, 6, 2, 3}}})
    {
        std::map<std::string, HostTensor> const inputs{{"x", fromFloats(shapeOf(dims), spread(volumeOf(dims), -2, 3))}};
        expectBackendsAgree(lrnOf(DataType::kFLOAT, dims, setup), inputs, false, "rank " + std::to_string(dims.nbDims));
    }
}

TEST(CudaBackendLrn, ANegativeAlphaAsOnTheCpu)
{
    SKIP_WITHOUT_GPU();
    // 1 - 0.5 * sum of squares turns negative from |x| about 1.4 on: NaN under beta 0.75, finite under beta 1.
    Dims const dims{4, {1, 4, 2, 3}};
    std::map<std::string, HostTensor> const inputs{{"x", fromFloats(shapeOf(dims), spread(volumeOf(dims), -3, 3))}};
    for (float beta : {0.75F, 1.0F})
    {
        LrnSetup const setup{1, -0.5F, beta, 1.0F};
        expectBackendsAgree(lrnOf(DataType::kFLOAT, dims, setup), inputs, false, describe(setup));
    }
}

TEST(CudaBackendLrn, SixteenBitTensorsWithinOneUnitInTheLastPlace)
{
    SKIP_WITHOUT_GPU();
    Dims const dims{4, {2, 9, 4, 5}};
    LrnSetup const setup{5, 0.02F, 0.75F, 1.0F};
    for (DataType type : {DataType::kHALF, DataType::kBF16})
    {
        // Values rounded to the type on the way in, so that both backends read the same ones.
        HostTensor const x = fromFloats(shapeOf(dims), spread(volumeOf(dims), -4, 4), type);
        auto const cpu = runOn(kiln::Backend::kCPU, lrnOf(type, dims, setup), {{"x", x}});
        auto const gpu = runOn(kiln::Backend::kCUDA, lrnOf(type, dims, setup), {{"x", x}});
        ASSERT_EQ(cpu.count("y"), 1U);
        ASSERT_EQ(gpu.count("y"), 1U);
        EXPECT_EQ(gpu.at("y").type, type);
        double const ulp = type == DataType::kHALF ? 1.0 / 1024 : 1.0 / 128;
        expectClose(gpu.at("y").floats(), cpu.at("y").floats(), {1e-6, ulp}, kiln::dataTypeName(type));
    }
}

TEST(CudaBackendLrn, AnEmptyTensorInsideANetwork)
{
    SKIP_WITHOUT_GPU();
    NetworkMaker const maker = [](INetworkDefinition& network) {
        // No channels: LRN's window has nothing to sum. The concatenation's default axis for rank 4 is 1, the
        // channels, so it joins the empty result to the input there.
        ITensor* x = network.addInput("x", DataType::kFLOAT, Dims{4, {3, 5, 2, 2}});
        ISliceLayer* empty = network.addSlice(*x, Dims{4, {0, 0, 0, 0}}, Dims{4, {3, 0, 2, 2}}, Dims{4, {1, 1, 1, 1}});
        ILRNLayer* lrn = network.addLRN(*empty->getOutput(0), 3, 1.0F, 0.75F, 1.0F);
        ITensor* parts[] = {lrn->getOutput(0), x};
        IConcatenationLayer* joined = network.addConcatenation(parts, 2);
        ASSERT_NE(joined, nullptr);
        joined->setAxis(1);
        joined->getOutput(0)->setName("y");
        network.markOutput(*joined->getOutput(0));
    };
    expectBackendsAgree(maker, {{"x", fromFloats({3, 5, 2, 2}, spread(60, -1, 1))}}, false, "empty");
}

} // namespace
