// The CUDA backend's OneHot layer against the CPU reference: the new axis at every position (negative axes
// included), negative and out-of-range indices, INT32 and INT64 indices and depths, FP32, FP16 and INT32 values,
// a 0-D indices tensor and a depth of 1.
#include "backend_comparison.h"

namespace
{

using namespace nvinfer1;
using namespace kiln::test;

//! OneHot of the inputs "indices" and "values" ([off, on]) with a constant depth (a shape tensor, as TensorRT wants).
NetworkMaker oneHotOf(
    Dims const& indexDims, DataType indexType, DataType valueType, int64_t depth, DataType depthType, int32_t axis)
{
    // The depth's weights must stay valid until the build: they are this lambda's own copies.
    auto const depth32 = static_cast<int32_t>(depth);
    return [=](INetworkDefinition& network) {
        ITensor* indices = network.addInput("indices", indexType, indexDims);
        ITensor* values = network.addInput("values", valueType, Dims{1, {2}});
        Weights const weights = depthType == DataType::kINT32 ? Weights{DataType::kINT32, &depth32, 1}
                                                              : Weights{DataType::kINT64, &depth, 1};
        ITensor* depthTensor = network.addConstant(Dims{0, {}}, weights)->getOutput(0);
        IOneHotLayer* layer = network.addOneHot(*indices, *values, *depthTensor, axis);
        ASSERT_NE(layer, nullptr);
        layer->getOutput(0)->setName("y");
        network.markOutput(*layer->getOutput(0));
    };
}

HostTensor indicesOf(DataType type, Dims const& dims, int64_t depth)
{
    size_t count = 1;
    for (int32_t d = 0; d < dims.nbDims; ++d)
    {
        count *= static_cast<size_t>(dims.d[d]);
    }
    std::vector<int64_t> values(count);
    for (size_t i = 0; i < values.size(); ++i)
    {
        // From -depth - 2 to depth + 1: negative ones count from depth, those outside [-depth, depth) match nothing.
        values[i] = static_cast<int64_t>(i * 5 % static_cast<size_t>(2 * depth + 4)) - depth - 2;
    }
    if (type == DataType::kINT64)
    {
        return fromElements(shapeOf(dims), values, type);
    }
    return fromElements(shapeOf(dims), std::vector<int32_t>(values.begin(), values.end()), type);
}

TEST(CudaBackendOneHot, EveryAxisAndIndexKind)
{
    SKIP_WITHOUT_GPU();
    Dims const dims{3, {2, 3, 5}};
    std::map<std::string, HostTensor> inputs{{"values", fromFloats({2}, {-0.5F, 2.25F})}};
    for (int32_t axis : {-4, -3, -2, -1, 0, 1, 2, 3})
    {
        for (DataType indexType : {DataType::kINT32, DataType::kINT64})
        {
            int64_t const depth = 4;
            inputs["indices"] = indicesOf(indexType, dims, depth);
            std::string const what = "axis " + std::to_string(axis) + (indexType == DataType::kINT64 ? " int64" : "");
            NetworkMaker const maker = oneHotOf(dims, indexType, DataType::kFLOAT, depth, indexType, axis);
            expectBackendsAgree(maker, inputs, false, what);
            expectBackendsAgree(maker, inputs, true, what + " fp16");
        }
    }
}

TEST(CudaBackendOneHot, IntegerValuesAndOddShapes)
{
    SKIP_WITHOUT_GPU();
    HostTensor const intValues = fromElements<int32_t>({2}, {7, -123456});
    for (Dims const& dims : {Dims{0, {}}, Dims{1, {1}}, Dims{1, {37}}, Dims{4, {3, 1, 5, 7}}})
    {
        for (int64_t depth : {1, 3, 11})
        {
            std::map<std::string, HostTensor> const inputs{
                {"indices", indicesOf(DataType::kINT32, dims, depth)}, {"values", intValues}};
            std::string const what = "rank " + std::to_string(dims.nbDims) + " depth " + std::to_string(depth);
            expectBackendsAgree(oneHotOf(dims, DataType::kINT32, DataType::kINT32, depth, DataType::kINT64, -1), inputs,
                false, what + " last axis");
            expectBackendsAgree(oneHotOf(dims, DataType::kINT32, DataType::kINT32, depth, DataType::kINT32, 0), inputs,
                false, what + " first axis");
        }
    }
}

} // namespace
