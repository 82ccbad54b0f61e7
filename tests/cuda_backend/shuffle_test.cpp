// The CUDA backend's Shuffle layer against the CPU reference: each stage alone (first transpose, reshape, second
// transpose), all three together, a reshape whose dimensions come from a shape tensor, INT32 and FP16 data, and a
// plain reshape (a device-to-device copy).
#include "backend_comparison.h"

namespace
{

using namespace nvinfer1;
using namespace kiln::test;

Permutation permutation(std::vector<int32_t> const& order)
{
    Permutation p{};
    for (size_t i = 0; i < order.size(); ++i)
    {
        p.order[i] = order[i];
    }
    return p;
}

struct Case
{
    std::string name;
    std::vector<int32_t> first;   //!< empty: none
    std::vector<int64_t> reshape; //!< empty: none
    std::vector<int32_t> second;  //!< empty: none
};

NetworkMaker shuffleOf(Case const& c, DataType type)
{
    return [c, type](INetworkDefinition& network) {
        ITensor* x = network.addInput("x", type, Dims{4, {2, 3, 4, 5}});
        IShuffleLayer* layer = network.addShuffle(*x);
        if (!c.first.empty())
        {
            layer->setFirstTranspose(permutation(c.first));
        }
        if (!c.reshape.empty())
        {
            Dims dims{static_cast<int32_t>(c.reshape.size()), {}};
            for (size_t i = 0; i < c.reshape.size(); ++i)
            {
                dims.d[i] = c.reshape[i];
            }
            layer->setReshapeDimensions(dims);
        }
        if (!c.second.empty())
        {
            layer->setSecondTranspose(permutation(c.second));
        }
        layer->getOutput(0)->setName("y");
        network.markOutput(*layer->getOutput(0));
    };
}

TEST(CudaBackendShuffle, EveryStageAloneAndTogether)
{
    SKIP_WITHOUT_GPU();
    std::vector<Case> const cases{
        {"first transpose", {3, 1, 0, 2}, {}, {}},
        {"reshape", {}, {6, -1, 2}, {}},
        {"reshape with a placeholder", {}, {0, 0, 20}, {}},
        {"second transpose", {}, {}, {2, 0, 3, 1}},
        {"all three", {1, 3, 0, 2}, {15, 8}, {1, 0}},
        {"transpose, then flatten", {0, 2, 3, 1}, {2, -1}, {}},
        {"reshape, then transpose", {}, {4, 30}, {1, 0}},
    };
    std::vector<int32_t> ints(120);
    for (int32_t i = 0; i < 120; ++i)
    {
        ints[static_cast<size_t>(i)] = i * 7 - 300;
    }
    HostTensor const floats = fromFloats({2, 3, 4, 5}, spread(120, -6.0F, 6.0F));
    HostTensor const integers = fromElements({2, 3, 4, 5}, ints, DataType::kINT32);
    for (Case const& c : cases)
    {
        expectBackendsAgree(shuffleOf(c, DataType::kFLOAT), {{"x", floats}}, false, c.name);
        expectBackendsAgree(shuffleOf(c, DataType::kFLOAT), {{"x", floats}}, true, c.name + " fp16");
        expectBackendsAgree(shuffleOf(c, DataType::kINT32), {{"x", integers}}, false, c.name + " int32");
    }
}

TEST(CudaBackendShuffle, ReshapeFromAShapeTensor)
{
    SKIP_WITHOUT_GPU();
    static std::vector<int32_t> const shape{5, 4, 6};
    NetworkMaker const maker = [](INetworkDefinition& network) {
        ITensor* x = network.addInput("x", DataType::kFLOAT, Dims{4, {2, 3, 4, 5}});
        IConstantLayer* dims = network.addConstant(Dims{1, {3}}, Weights{DataType::kINT32, shape.data(), 3});
        IShuffleLayer* layer = network.addShuffle(*x);
        layer->setFirstTranspose(permutation({3, 2, 1, 0}));
        layer->setInput(1, *dims->getOutput(0));
        layer->setSecondTranspose(permutation({2, 0, 1}));
        layer->getOutput(0)->setName("y");
        network.markOutput(*layer->getOutput(0));
    };
    HostTensor const x = fromFloats({2, 3, 4, 5}, spread(120, -6.0F, 6.0F));
    expectBackendsAgree(maker, {{"x", x}}, false, "shape tensor");
    expectBackendsAgree(maker, {{"x", x}}, true, "shape tensor fp16");
}

} // namespace
