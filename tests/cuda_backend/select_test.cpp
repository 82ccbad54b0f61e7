// The CUDA backend's Select layer against the CPU reference: condition, then and else of one shape, broadcast
// against each other (extents of 1), or of one element beside the others' shape; FP32, FP16 and INT32 values.
#include "backend_comparison.h"

namespace
{

using namespace nvinfer1;
using namespace kiln::test;

NetworkMaker selectOf(Dims const& condition, Dims const& thenDims, Dims const& elseDims, DataType type)
{
    return [=](INetworkDefinition& network) {
        ITensor* c = network.addInput("c", DataType::kBOOL, condition);
        ITensor* t = network.addInput("t", type, thenDims);
        ITensor* e = network.addInput("e", type, elseDims);
        ISelectLayer* layer = network.addSelect(*c, *t, *e);
        layer->getOutput(0)->setName("y");
        network.markOutput(*layer->getOutput(0));
    };
}

TEST(CudaBackendSelect, SameShapesAndBroadcasts)
{
    SKIP_WITHOUT_GPU();
    struct Case
    {
        std::string name;
        Dims condition;
        Dims thenDims;
        Dims elseDims;
    };
    for (Case const& c : {Case{"same shapes", Dims{3, {2, 3, 4}}, Dims{3, {2, 3, 4}}, Dims{3, {2, 3, 4}}},
             Case{"broadcast", Dims{3, {2, 1, 4}}, Dims{3, {1, 3, 4}}, Dims{3, {2, 3, 1}}},
             Case{"scalar-like", Dims{3, {1, 1, 1}}, Dims{3, {2, 3, 4}}, Dims{3, {1, 1, 4}}},
             Case{"one-element then", Dims{3, {2, 3, 4}}, Dims{3, {1, 1, 1}}, Dims{3, {2, 3, 4}}},
             Case{"one-element else", Dims{3, {2, 3, 4}}, Dims{3, {2, 3, 4}}, Dims{3, {1, 1, 1}}}})
    {
        std::vector<uint8_t> flags(volumeOf(c.condition));
        for (size_t i = 0; i < flags.size(); ++i)
        {
            flags[i] = static_cast<uint8_t>((i * 5 + 1) % 3 == 0 ? 0 : 1);
        }
        HostTensor const condition = fromElements(shapeOf(c.condition), flags, DataType::kBOOL);
        std::vector<int32_t> thenInts(volumeOf(c.thenDims));
        std::vector<int32_t> elseInts(volumeOf(c.elseDims));
        for (size_t i = 0; i < thenInts.size(); ++i)
        {
            thenInts[i] = static_cast<int32_t>(i) + 100;
        }
        for (size_t i = 0; i < elseInts.size(); ++i)
        {
            elseInts[i] = -static_cast<int32_t>(i) - 1;
        }
        std::map<std::string, HostTensor> const floats{{"c", condition},
            {"t", fromFloats(shapeOf(c.thenDims), spread(thenInts.size(), 1.0F, 2.0F))},
            {"e", fromFloats(shapeOf(c.elseDims), spread(elseInts.size(), -2.0F, -1.0F))}};
        std::map<std::string, HostTensor> const integers{{"c", condition},
            {"t", fromElements(shapeOf(c.thenDims), thenInts, DataType::kINT32)},
            {"e", fromElements(shapeOf(c.elseDims), elseInts, DataType::kINT32)}};
        expectBackendsAgree(selectOf(c.condition, c.thenDims, c.elseDims, DataType::kFLOAT), floats, false, c.name);
        expectBackendsAgree(
            selectOf(c.condition, c.thenDims, c.elseDims, DataType::kFLOAT), floats, true, c.name + " fp16");
        expectBackendsAgree(
            selectOf(c.condition, c.thenDims, c.elseDims, DataType::kINT32), integers, false, c.name + " int32");
    }
}

} // namespace
