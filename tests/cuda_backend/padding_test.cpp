// The CUDA backend's Padding layer against the CPU reference: zero padding of the innermost two dims, cropping by
// negative amounts, mixed, FP32, FP16 and INT32.
#include "backend_comparison.h"

namespace
{

using namespace nvinfer1;
using namespace kiln::test;

NetworkMaker paddingOf(Dims const& pre, Dims const& post, DataType type)
{
    return [=](INetworkDefinition& network) {
        ITensor* x = network.addInput("x", type, Dims{4, {2, 3, 4, 5}});
        IPaddingLayer* layer = network.addPaddingNd(*x, pre, post);
        layer->getOutput(0)->setName("y");
        network.markOutput(*layer->getOutput(0));
    };
}

TEST(CudaBackendPadding, PadsAndCropsAsOnTheCpu)
{
    SKIP_WITHOUT_GPU();
    HostTensor const floats = fromFloats({2, 3, 4, 5}, spread(120, -3.0F, 4.0F));
    std::vector<int32_t> ints(120);
    for (int32_t i = 0; i < 120; ++i)
    {
        ints[static_cast<size_t>(i)] = i - 60;
    }
    HostTensor const integers = fromElements({2, 3, 4, 5}, ints, DataType::kINT32);
    struct Case
    {
        std::string name;
        Dims pre;
        Dims post;
    };
    for (Case const& c : {Case{"pad", Dims{2, {1, 2}}, Dims{2, {3, 0}}},
             Case{"crop", Dims{2, {-1, -2}}, Dims{2, {0, -1}}}, Case{"mixed", Dims{2, {-1, 3}}, Dims{2, {2, -2}}}})
    {
        expectBackendsAgree(paddingOf(c.pre, c.post, DataType::kFLOAT), {{"x", floats}}, false, c.name);
        expectBackendsAgree(paddingOf(c.pre, c.post, DataType::kFLOAT), {{"x", floats}}, true, c.name + " fp16");
        expectBackendsAgree(paddingOf(c.pre, c.post, DataType::kINT32), {{"x", integers}}, false, c.name + " int32");
    }
}

} // namespace
