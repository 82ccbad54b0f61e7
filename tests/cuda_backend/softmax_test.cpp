// The CUDA backend's SoftMax layer against the CPU reference: every axis of a 4-D tensor (innermost rows take the
// warp-per-row kernel, other axes the thread-per-row one), a row long enough for the block-per-row kernel, rows with
// NaN and infinities, FP32 and FP16, and an empty tensor inside a network.
#include "backend_comparison.h"

#include <limits>

namespace
{

using namespace nvinfer1;
using namespace kiln::test;

NetworkMaker softmaxOf(Dims const& dims, uint32_t axes)
{
    return [dims, axes](INetworkDefinition& network) {
        ITensor* x = network.addInput("x", DataType::kFLOAT, dims);
        ISoftMaxLayer* layer = network.addSoftMax(*x);
        layer->setAxes(axes);
        layer->getOutput(0)->setName("y");
        network.markOutput(*layer->getOutput(0));
    };
}

TEST(CudaBackendSoftMax, EveryAxisAgreesWithTheCpu)
{
    SKIP_WITHOUT_GPU();
    HostTensor const x = fromFloats({2, 3, 5, 37}, spread(2 * 3 * 5 * 37, -20.0F, 15.0F));
    for (uint32_t axis = 0; axis < 4; ++axis)
    {
        for (bool fp16 : {false, true})
        {
            expectBackendsAgree(softmaxOf(Dims{4, {2, 3, 5, 37}}, 1U << axis), {{"x", x}}, fp16,
                "softmax axis " + std::to_string(axis) + (fp16 ? " fp16" : ""));
        }
    }
}

TEST(CudaBackendSoftMax, LongRowsUseABlockPerRow)
{
    SKIP_WITHOUT_GPU();
    std::vector<float> values = spread(3 * 3001, -8.0F, 9.0F);
    HostTensor const x = fromFloats({3, 3001}, values);
    for (bool fp16 : {false, true})
    {
        expectBackendsAgree(softmaxOf(Dims{2, {3, 3001}}, 2U), {{"x", x}}, fp16, fp16 ? "long rows fp16" : "long rows");
    }
}

TEST(CudaBackendSoftMax, NanAndInfinitiesAsOnTheCpu)
{
    SKIP_WITHOUT_GPU();
    float const inf = std::numeric_limits<float>::infinity();
    // Rows: a NaN; -inf among finite values; all -inf; +inf among finite values; ordinary.
    std::vector<float> const values{1, NAN, 2, 3, -inf, 1, 2, 3, -inf, -inf, -inf, -inf, 1, inf, 2, 3, 0, 1, 2, 3};
    for (uint32_t axes : {2U, 1U})
    {
        expectBackendsAgree(softmaxOf(Dims{2, {5, 4}}, axes), {{"x", fromFloats({5, 4}, values)}}, false,
            "special values, axes " + std::to_string(axes));
    }
}

TEST(CudaBackendSoftMax, AnEmptyTensorInsideANetwork)
{
    SKIP_WITHOUT_GPU();
    NetworkMaker const maker = [](INetworkDefinition& network) {
        ITensor* x = network.addInput("x", DataType::kFLOAT, Dims{2, {3, 4}});
        ISliceLayer* empty = network.addSlice(*x, Dims{2, {0, 0}}, Dims{2, {0, 4}}, Dims{2, {1, 1}});
        ISoftMaxLayer* softmax = network.addSoftMax(*empty->getOutput(0));
        softmax->setAxes(2U);
        ITensor* parts[] = {softmax->getOutput(0), x};
        IConcatenationLayer* joined = network.addConcatenation(parts, 2);
        joined->setAxis(0);
        joined->getOutput(0)->setName("y");
        network.markOutput(*joined->getOutput(0));
    };
    expectBackendsAgree(maker, {{"x", fromFloats({3, 4}, spread(12, -1.0F, 1.0F))}}, false, "empty");
}

} // namespace
