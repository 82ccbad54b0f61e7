// The CUDA backend's Gather layer against the CPU reference: kDEFAULT along every axis with negative indices, INT32
// and INT64 indices, one element-wise (batch) dim, kELEMENT, kND with 1 to 3 coordinates per tuple and 0 to 2
// element-wise dims, INT32 and FP16 data; kDEFAULT by a vector of indices over channels-last (kHWC) data and output, as
// a channel shuffle in a channels-last region runs it.
#include "backend_comparison.h"
#include "kernel_comparison.h"

#include "network/layers/gather.h"

namespace
{

using namespace nvinfer1;
using namespace kiln::test;

NetworkMaker gatherOf(
    GatherMode mode, int32_t axis, int32_t batchDims, Dims const& indexDims, DataType dataType, DataType indexType)
{
    return [=](INetworkDefinition& network) {
        ITensor* data = network.addInput("data", dataType, Dims{3, {3, 4, 5}});
        ITensor* indices = network.addInput("indices", indexType, indexDims);
        IGatherLayer* layer = network.addGatherV2(*data, *indices, mode);
        layer->setGatherAxis(axis);
        layer->setNbElementWiseDims(batchDims);
        layer->getOutput(0)->setName("y");
        network.markOutput(*layer->getOutput(0));
    };
}

HostTensor indicesOf(DataType type, std::vector<int64_t> const& shape, std::vector<int64_t> const& values)
{
    if (type == DataType::kINT64)
    {
        return fromElements(shape, values, type);
    }
    return fromElements(shape, std::vector<int32_t>(values.begin(), values.end()), type);
}

TEST(CudaBackendGather, DefaultModeOnEveryAxis)
{
    SKIP_WITHOUT_GPU();
    HostTensor const data = fromFloats({3, 4, 5}, spread(60, -3.0F, 4.0F));
    std::vector<int32_t> ints(60);
    for (int32_t i = 0; i < 60; ++i)
    {
        ints[static_cast<size_t>(i)] = i * 11 - 100;
    }
    HostTensor const intData = fromElements({3, 4, 5}, ints, DataType::kINT32);
    for (int32_t axis : {0, 1, 2, -1})
    {
        for (DataType indexType : {DataType::kINT32, DataType::kINT64})
        {
            // Indices of shape [2, 3], some negative (counting from the end), valid for an extent of 3 or more.
            HostTensor const indices = indicesOf(indexType, {2, 3}, {0, 2, -1, 1, -3, 2});
            auto maker = [&](DataType dataType) {
                return gatherOf(GatherMode::kDEFAULT, axis, 0, Dims{2, {2, 3}}, dataType, indexType);
            };
            std::string const what = "axis " + std::to_string(axis) + (indexType == DataType::kINT64 ? " int64" : "");
            expectBackendsAgree(maker(DataType::kFLOAT), {{"data", data}, {"indices", indices}}, false, what);
            expectBackendsAgree(maker(DataType::kFLOAT), {{"data", data}, {"indices", indices}}, true, what + " fp16");
            expectBackendsAgree(
                maker(DataType::kINT32), {{"data", intData}, {"indices", indices}}, false, what + " int32");
        }
    }
}

TEST(CudaBackendGather, OneElementWiseDim)
{
    SKIP_WITHOUT_GPU();
    HostTensor const data = fromFloats({3, 4, 5}, spread(60, -3.0F, 4.0F));
    HostTensor const indices = indicesOf(DataType::kINT32, {3, 2}, {0, 3, -1, 2, 1, 1});
    expectBackendsAgree(gatherOf(GatherMode::kDEFAULT, 1, 1, Dims{2, {3, 2}}, DataType::kFLOAT, DataType::kINT32),
        {{"data", data}, {"indices", indices}}, false, "batch dim on axis 1");
    HostTensor const last = indicesOf(DataType::kINT32, {3, 2}, {4, 0, -2, 3, 1, -5});
    expectBackendsAgree(gatherOf(GatherMode::kDEFAULT, 2, 1, Dims{2, {3, 2}}, DataType::kFLOAT, DataType::kINT32),
        {{"data", data}, {"indices", last}}, false, "batch dim on axis 2");
}

TEST(CudaBackendGather, ElementMode)
{
    SKIP_WITHOUT_GPU();
    HostTensor const data = fromFloats({3, 4, 5}, spread(60, -3.0F, 4.0F));
    std::vector<int64_t> values(2 * 4 * 3);
    for (size_t i = 0; i < values.size(); ++i)
    {
        values[i] = static_cast<int64_t>(i * 7 % 5) - 2; // in [-2, 2], valid for every axis of extent >= 3
    }
    for (int32_t axis : {0, 1, 2})
    {
        HostTensor const indices = indicesOf(DataType::kINT64, {2, 4, 3}, values);
        expectBackendsAgree(
            gatherOf(GatherMode::kELEMENT, axis, 0, Dims{3, {2, 4, 3}}, DataType::kFLOAT, DataType::kINT64),
            {{"data", data}, {"indices", indices}}, false, "element axis " + std::to_string(axis));
    }
}

TEST(CudaBackendGather, NdMode)
{
    SKIP_WITHOUT_GPU();
    HostTensor const data = fromFloats({3, 4, 5}, spread(60, -3.0F, 4.0F));
    std::vector<int32_t> ints(60);
    for (int32_t i = 0; i < 60; ++i)
    {
        ints[static_cast<size_t>(i)] = 7 - i * 13;
    }
    HostTensor const intData = fromElements({3, 4, 5}, ints, DataType::kINT32);
    struct Case
    {
        std::string name;
        int32_t batchDims;
        std::vector<int64_t> indexShape;
        std::vector<int64_t> values; //!< valid for the data dims they address (3, 4, 5 after the batch dims)
    };
    std::vector<Case> const cases{
        {"k 1 picks rows", 0, {2, 1}, {2, -1}},
        {"k 2", 0, {3, 2}, {0, 3, -1, -4, 2, 1}},
        {"k 3 picks elements", 0, {2, 2, 3}, {0, 0, 0, 2, 3, 4, -3, -1, -5, 1, 2, -2}},
        {"one batch dim, k 1", 1, {3, 2, 1}, {0, 3, -1, 2, -4, 1}},
        {"one batch dim, k 2", 1, {3, 2}, {1, 4, -1, 0, 2, -2}},
        {"two batch dims, k 1", 2, {3, 4, 1}, {0, 4, -1, 2, 3, -5, 1, 1, 2, 0, -2, 4}},
        {"two batch dims, tuples", 2, {3, 4, 2, 1},
            {0, 4, -1, 2, 3, -5, 1, 1, 2, 0, -2, 4, 4, 3, 2, 1, 0, -1, -2, -3, -4, -5, 0, 1}},
    };
    for (Case const& c : cases)
    {
        Dims indexDims{static_cast<int32_t>(c.indexShape.size()), {}};
        std::copy(c.indexShape.begin(), c.indexShape.end(), indexDims.d);
        for (DataType indexType : {DataType::kINT32, DataType::kINT64})
        {
            HostTensor const indices = indicesOf(indexType, c.indexShape, c.values);
            std::string const what = c.name + (indexType == DataType::kINT64 ? " int64" : "");
            auto maker = [&](DataType dataType) {
                return gatherOf(GatherMode::kND, 0, c.batchDims, indexDims, dataType, indexType);
            };
            expectBackendsAgree(maker(DataType::kFLOAT), {{"data", data}, {"indices", indices}}, false, what);
            expectBackendsAgree(maker(DataType::kFLOAT), {{"data", data}, {"indices", indices}}, true, what + " fp16");
            expectBackendsAgree(
                maker(DataType::kINT32), {{"data", intData}, {"indices", indices}}, false, what + " int32");
        }
    }
}

TEST(CudaBackendGather, ChannelsLastByAVectorOfIndicesAlongEveryAxis)
{
    // The kernel over kHWC data and output against the CPU reference over the same values stored kLINEAR: the same
    // elements moved, bit for bit.
    SKIP_WITHOUT_GPU();
    kiln::Shape const shape{2, 6, 3, 5};
    std::vector<int32_t> const picks{1, -1, 0, 1}; // a repeat and an index from the end, inside every axis
    std::vector<float> const values = scattered(180, -1000.0F, 1000.0F);
    for (DataType type : {DataType::kHALF, DataType::kFLOAT, DataType::kINT32})
    {
        HostTensor const data = type == DataType::kINT32
            ? fromElements(shape, std::vector<int32_t>(values.begin(), values.end()), type)
            : fromFloats(shape, values, type);
        for (int32_t axis = 0; axis < 4; ++axis)
        {
            SCOPED_TRACE(kiln::dataTypeName(type) + ", axis " + std::to_string(axis));
            kiln::network::GatherParams params;
            params.gatherAxis = axis;
            HostTensor const indices = fromElements({static_cast<int64_t>(picks.size())}, picks, DataType::kINT32);
            kiln::Shape gathered = shape;
            gathered[static_cast<size_t>(axis)] = static_cast<int64_t>(picks.size());
            HostTensor expected = zeros(gathered, type);
            kiln::cpu::run(params, {data.constView(), indices.constView()}, {expected.view()});

            DeviceTensor const deviceData(reorderedChannels(data, true));
            DeviceTensor const deviceIndices(indices);
            DeviceTensor const output(gathered, type);
            kiln::ConstTensorView dataView = deviceData.constView();
            dataView.format = TensorFormat::kHWC;
            kiln::TensorView outputView = output.view();
            outputView.format = TensorFormat::kHWC;
            std::unique_ptr<kiln::cuda::DeviceLayer> const layer
                = runOnDevice(params, {dataView, deviceIndices.constView()}, {outputView});
            ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
            EXPECT_EQ(reorderedChannels(output.read(), false).bytes, expected.bytes);
            EXPECT_TRUE(output.guardsIntact());
        }
    }
}

} // namespace
