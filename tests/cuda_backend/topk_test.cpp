// The CUDA backend's TopK layer against the CPU reference: kMAX and kMIN along every axis, with many ties (lower
// index first), NaN, infinities and both zeros; k of 1 (ArgMax), small and far above 3840 on rows longer than a
// block; INT32 and INT64 indices; FP32 (and FP16 precision), every FP16 and BF16 bit pattern, INT32 and INT64
// data; k from a shape tensor. The shared radix top-k (device_common/radix_top_k.cuh) picks few elements with a
// block per row; selects k of a row (a block per row when rows are many, slices of a row over several blocks when
// they are few) and sorts only those; or sorts whole rows when k is at least half of one; it sorts in a block's
// shared memory up to 4096 elements, else with CUB, row by row (at most 8 rows of 2^16 or more) or as segments.
// The cases below go down each of those routes, and each kind is also captured into a CUDA graph (none may
// synchronise the stream).
#include "backend_comparison.h"

#include <cstdint>
#include <limits>
#include <map>
#include <utility>

namespace
{

using namespace nvinfer1;
using namespace kiln::test;

NetworkMaker topKOf(DataType type, Dims const& dims, TopKOperation operation, int32_t k, int32_t axis,
    DataType indicesType = DataType::kINT32)
{
    return [=](INetworkDefinition& network) {
        ITensor* x = network.addInput("x", type, dims);
        ITopKLayer* layer = network.addTopK(*x, operation, k, 1U << axis, indicesType);
        ASSERT_NE(layer, nullptr);
        layer->getOutput(0)->setName("values");
        layer->getOutput(1)->setName("indices");
        network.markOutput(*layer->getOutput(0));
        network.markOutput(*layer->getOutput(1));
    };
}

int64_t volumeOf(Dims const& dims)
{
    int64_t v = 1;
    for (int32_t d = 0; d < dims.nbDims; ++d)
    {
        v *= dims.d[d];
    }
    return v;
}

//! Pseudo-random floats on a coarse grid, so that many are equal, with NaN, infinities and -0 mixed in.
std::vector<float> tiedValues(size_t count)
{
    std::vector<float> values(count);
    uint32_t state = 12345;
    for (size_t i = 0; i < count; ++i)
    {
        state = state * 1664525U + 1013904223U;
        values[i] = static_cast<float>((state >> 12) % 64) * 0.5F - 16.0F;
        switch ((state >> 24) % 41)
        {
        case 0: values[i] = std::numeric_limits<float>::quiet_NaN(); break;
        case 1: values[i] = -0.0F; break;
        case 2: values[i] = 0.0F; break;
        case 3: values[i] = std::numeric_limits<float>::infinity(); break;
        case 4: values[i] = -std::numeric_limits<float>::infinity(); break;
        default: break;
        }
    }
    return values;
}

std::string describe(TopKOperation operation, int32_t k, int32_t axis)
{
    return std::string(operation == TopKOperation::kMAX ? "max" : "min") + " k " + std::to_string(k) + " axis "
        + std::to_string(axis);
}

TEST(CudaBackendTopK, MaxAndMinAlongEveryAxisWithTiesAndNaN)
{
    SKIP_WITHOUT_GPU();
    Dims const dims{3, {3, 6, 37}};
    HostTensor const x = fromFloats({3, 6, 37}, tiedValues(static_cast<size_t>(volumeOf(dims))));
    for (TopKOperation operation : {TopKOperation::kMAX, TopKOperation::kMIN})
    {
        for (int32_t axis = 0; axis < 3; ++axis)
        {
            int32_t const extent = static_cast<int32_t>(dims.d[axis]);
            // 1 and 2 pick with the block kernel; the whole axis (37 > 16) sorts segments.
            for (int32_t k : {1, 2, extent})
            {
                for (DataType indicesType : {DataType::kINT32, DataType::kINT64})
                {
                    std::string const what
                        = describe(operation, k, axis) + (indicesType == DataType::kINT64 ? " int64 indices" : "");
                    expectBackendsAgree(
                        topKOf(DataType::kFLOAT, dims, operation, k, axis, indicesType), {{"x", x}}, false, what);
                }
                expectBackendsAgree(topKOf(DataType::kFLOAT, dims, operation, k, axis), {{"x", x}}, true,
                    describe(operation, k, axis) + " fp16");
            }
        }
    }
}

TEST(CudaBackendTopK, LargeKOnRowsLongerThanABlock)
{
    SKIP_WITHOUT_GPU();
    struct Case
    {
        Dims dims;
        int32_t k;
        int32_t axis;
    };
    Case const cases[] = {
        {Dims{2, {2, 5000}}, 4000, 1},    // whole rows: two segments (rows shorter than 2^16)
        {Dims{1, {70000}}, 50000, 0},     // whole rows: one long row, sorted by the whole device
        {Dims{1, {100000}}, 100000, 0},   // k = the extent: one row sorted whole
        {Dims{1, {70000}}, 5000, 0},      // selection in slices, the kept sorted by CUB
        {Dims{1, {100000}}, 10000, 0},    // the same with k = 10,000
        {Dims{2, {70000, 2}}, 3841, 0},   // two long rows whose elements interleave: slices, block sort
        {Dims{2, {9, 70000}}, 3900, 1},   // nine long rows in slices
        {Dims{2, {4, 32000}}, 50, 1},     // slices, the smallest block sort
        {Dims{2, {2, 20000}}, 3000, 1},   // slices, the largest block sort
        {Dims{2, {3000, 100}}, 20, 1},    // many short rows: a block each
        {Dims{2, {200, 5000}}, 300, 1},   // many rows, a block each, block sort
        {Dims{2, {130, 20000}}, 5000, 1}, // many rows, a block each, the kept sorted by CUB
        {Dims{2, {50, 1000}}, 1000, 1},   // k = the extent: whole rows sorted in a block each
        {Dims{2, {4, 100000}}, 1, 1},     // ArgMax over rows far longer than a block
        {Dims{2, {3, 1000}}, 16, 1},      // the most the few-picks kernel picks
        {Dims{2, {3, 1000}}, 17, 1},      // the fewest the selection takes
        {Dims{3, {5, 3, 7}}, 7, 2},       // odd shapes, the whole axis
        {Dims{1, {1}}, 1, 0},             // a single element
        {Dims{3, {4, 1, 3}}, 1, 1},       // an axis of extent 1
    };
    for (Case const& c : cases)
    {
        HostTensor const x = fromFloats(std::vector<int64_t>(c.dims.d, c.dims.d + c.dims.nbDims),
            tiedValues(static_cast<size_t>(volumeOf(c.dims))));
        for (TopKOperation operation : {TopKOperation::kMAX, TopKOperation::kMIN})
        {
            std::string const what = describe(operation, c.k, c.axis) + " of " + std::to_string(volumeOf(c.dims));
            expectBackendsAgree(topKOf(DataType::kFLOAT, c.dims, operation, c.k, c.axis), {{"x", x}}, false, what);
        }
    }
    HostTensor const x = fromFloats({2, 5000}, tiedValues(10000));
    expectBackendsAgree(
        topKOf(DataType::kFLOAT, Dims{2, {2, 5000}}, TopKOperation::kMAX, 4500, 1), {{"x", x}}, true, "k 4500 fp16");
    HostTensor const row = fromFloats({1, 100000}, tiedValues(100000));
    for (TopKOperation operation : {TopKOperation::kMAX, TopKOperation::kMIN})
    {
        expectBackendsAgree(topKOf(DataType::kFLOAT, Dims{2, {1, 100000}}, operation, 10000, 1), {{"x", row}}, true,
            describe(operation, 10000, 1) + " of 100000 fp16");
    }
}

//! Every bit pattern of a 16-bit float (NaNs with every payload, both zeros, infinities, subnormals), scrambled.
HostTensor everySixteenBitPattern(DataType type)
{
    std::vector<uint16_t> bits(65536);
    for (uint32_t i = 0; i < bits.size(); ++i)
    {
        bits[i] = static_cast<uint16_t>(i * 40503U); // odd, so a permutation of 0..65535
    }
    return fromElements({4, 16384}, bits, type);
}

TEST(CudaBackendTopK, EveryHalfAndBf16BitPattern)
{
    SKIP_WITHOUT_GPU();
    for (DataType type : {DataType::kHALF, DataType::kBF16})
    {
        HostTensor const x = everySixteenBitPattern(type);
        for (TopKOperation operation : {TopKOperation::kMAX, TopKOperation::kMIN})
        {
            for (int32_t k : {3, 20, 5000, 16384})
            {
                std::string const what
                    = describe(operation, k, 1) + (type == DataType::kHALF ? " FP16 input" : " BF16 input");
                expectBackendsAgree(topKOf(type, Dims{2, {4, 16384}}, operation, k, 1), {{"x", x}}, false, what);
            }
        }
    }
}

TEST(CudaBackendTopK, IntegerData)
{
    SKIP_WITHOUT_GPU();
    std::vector<int32_t> ints(2 * 300);
    std::vector<int64_t> longs(ints.size());
    for (size_t i = 0; i < ints.size(); ++i)
    {
        ints[i] = static_cast<int32_t>((i * 7919) % 23) - 11; // many ties
        longs[i] = static_cast<int64_t>(ints[i]) * (int64_t{1} << 40);
    }
    ints[5] = std::numeric_limits<int32_t>::max();
    ints[6] = std::numeric_limits<int32_t>::min();
    longs[7] = std::numeric_limits<int64_t>::max();
    longs[8] = std::numeric_limits<int64_t>::min();
    HostTensor const x32 = fromElements({2, 300}, ints, DataType::kINT32);
    HostTensor const x64 = fromElements({2, 300}, longs, DataType::kINT64);
    for (TopKOperation operation : {TopKOperation::kMAX, TopKOperation::kMIN})
    {
        for (int32_t k : {1, 5, 40, 250})
        {
            for (int32_t axis : {0, 1})
            {
                int32_t const kept = axis == 0 ? 1 + k % 2 : k;
                std::string const what = describe(operation, kept, axis);
                expectBackendsAgree(topKOf(DataType::kINT32, Dims{2, {2, 300}}, operation, kept, axis), {{"x", x32}},
                    false, what + " INT32");
                expectBackendsAgree(
                    topKOf(DataType::kINT64, Dims{2, {2, 300}}, operation, kept, axis, DataType::kINT64), {{"x", x64}},
                    false, what + " INT64");
            }
        }
    }
}

TEST(CudaBackendTopK, IntegerDataInSlices)
{
    // Few long rows: the selection's slices, with INT64's eight passes of 64-bit keys.
    SKIP_WITHOUT_GPU();
    std::vector<int32_t> ints(2 * 20000);
    std::vector<int64_t> longs(ints.size());
    for (size_t i = 0; i < ints.size(); ++i)
    {
        ints[i] = static_cast<int32_t>((i * 7919) % 2003) - 1001;
        longs[i] = static_cast<int64_t>(ints[i]) * (int64_t{1} << 40) + static_cast<int64_t>(i % 3);
    }
    HostTensor const x32 = fromElements({2, 20000}, ints, DataType::kINT32);
    HostTensor const x64 = fromElements({2, 20000}, longs, DataType::kINT64);
    for (TopKOperation operation : {TopKOperation::kMAX, TopKOperation::kMIN})
    {
        for (int32_t k : {500, 6000})
        {
            std::string const what = describe(operation, k, 1);
            expectBackendsAgree(
                topKOf(DataType::kINT32, Dims{2, {2, 20000}}, operation, k, 1), {{"x", x32}}, false, what + " INT32");
            expectBackendsAgree(topKOf(DataType::kINT64, Dims{2, {2, 20000}}, operation, k, 1, DataType::kINT64),
                {{"x", x64}}, false, what + " INT64");
        }
    }
}

TEST(CudaBackendTopK, KFromAShapeTensor)
{
    SKIP_WITHOUT_GPU();
    for (int32_t k : {3, 4000})
    {
        NetworkMaker const maker = [k](INetworkDefinition& network) {
            ITensor* x = network.addInput("x", DataType::kFLOAT, Dims{2, {3, 4096}});
            ITopKLayer* layer = network.addTopK(*x, TopKOperation::kMIN, 1, 2U);
            ASSERT_NE(layer, nullptr);
            IConstantLayer* kLayer = network.addConstant(Dims{0, {}}, Weights{DataType::kINT32, &k, 1});
            ASSERT_NE(kLayer, nullptr);
            layer->setInput(1, *kLayer->getOutput(0));
            layer->getOutput(0)->setName("values");
            layer->getOutput(1)->setName("indices");
            network.markOutput(*layer->getOutput(0));
            network.markOutput(*layer->getOutput(1));
        };
        HostTensor const x = fromFloats({3, 4096}, tiedValues(3 * 4096));
        expectBackendsAgree(maker, {{"x", x}}, false, "k " + std::to_string(k) + " from a constant");
    }
}

//! Builds `maker`'s network (input "x", outputs "values" and "indices") for the CUDA backend, runs it once, then
//! captures enqueueV3 in a CUDA graph and replays it. Every route must capture: none may synchronise the stream
//! (as cub::DeviceSegmentedSort does past a few hundred segments) or allocate after the first run.
void expectGraphReplayAgrees(NetworkMaker const& maker, HostTensor const& x, std::string const& what)
{
    kiln::test::RecordingLogger logger;
    std::unique_ptr<IBuilder> builder(createInferBuilder(logger));
    std::unique_ptr<INetworkDefinition> network(builder->createNetworkV2(0));
    maker(*network);
    std::unique_ptr<IBuilderConfig> config(builder->createBuilderConfig());
    kiln::setBackend(*config, kiln::Backend::kCUDA);
    std::unique_ptr<IHostMemory> plan(builder->buildSerializedNetwork(*network, *config));
    ASSERT_NE(plan, nullptr) << what << ": " << logger.errors();
    std::unique_ptr<IRuntime> runtime(createInferRuntime(logger));
    std::unique_ptr<ICudaEngine> engine(runtime->deserializeCudaEngine(plan->data(), plan->size()));
    ASSERT_NE(engine, nullptr) << what << ": " << logger.errors();
    std::unique_ptr<IExecutionContext> context(engine->createExecutionContext());
    std::map<std::string, std::pair<void*, size_t>> buffers; // by name: device address and bytes
    for (char const* name : {"x", "values", "indices"})
    {
        Dims const dims = engine->getTensorShape(name);
        size_t const bytes = static_cast<size_t>(volumeOf(dims)) * kiln::elementSize(engine->getTensorDataType(name));
        void* address = nullptr;
        ASSERT_EQ(cudaMalloc(&address, bytes), cudaSuccess);
        buffers[name] = {address, bytes};
        EXPECT_TRUE(context->setTensorAddress(name, address));
    }
    ASSERT_EQ(cudaMemcpy(buffers["x"].first, x.bytes.data(), x.bytes.size(), cudaMemcpyHostToDevice), cudaSuccess);
    // A copy from pageable memory may return before it lands, and the non-blocking stream does not wait for it.
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    cudaStream_t stream = nullptr;
    ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
    auto outputs = [&]() {
        EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess) << what;
        std::vector<uint8_t> bytes;
        for (char const* name : {"values", "indices"})
        {
            auto const [address, size] = buffers[name];
            std::vector<uint8_t> part(size);
            EXPECT_EQ(cudaMemcpy(part.data(), address, size, cudaMemcpyDeviceToHost), cudaSuccess);
            EXPECT_EQ(cudaMemset(address, 0xff, size), cudaSuccess); // so that the replay must write them again
            bytes.insert(bytes.end(), part.begin(), part.end());
        }
        return bytes;
    };
    ASSERT_TRUE(context->enqueueV3(stream)) << what << ": " << logger.errors();
    std::vector<uint8_t> const direct = outputs();
    ASSERT_EQ(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), cudaSuccess);
    EXPECT_TRUE(context->enqueueV3(stream)) << what << ": " << logger.errors();
    cudaGraph_t graph = nullptr;
    ASSERT_EQ(cudaStreamEndCapture(stream, &graph), cudaSuccess) << what;
    cudaGraphExec_t exec = nullptr;
    ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess) << what;
    ASSERT_EQ(cudaGraphLaunch(exec, stream), cudaSuccess) << what;
    EXPECT_EQ(outputs(), direct) << what;
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    cudaStreamDestroy(stream);
    for (auto const& [name, buffer] : buffers)
    {
        cudaFree(buffer.first);
    }
}

TEST(CudaBackendTopK, EveryRouteCapturesIntoACudaGraph)
{
    SKIP_WITHOUT_GPU();
    struct Case
    {
        Dims dims;
        int32_t k;
        char const* route;
    };
    Case const cases[] = {
        {Dims{2, {1000, 40}}, 3, "few picks"},
        {Dims{2, {1000, 40}}, 20, "1000 whole rows sorted in blocks"},
        {Dims{2, {1000, 40}}, 17, "selection, a block per row"},
        {Dims{2, {1000, 5000}}, 3000, "whole rows, 1000 segments"},
        {Dims{1, {70000}}, 5000, "selection in slices, the kept sorted by CUB"},
        {Dims{1, {70000}}, 50000, "one row by the whole device"},
    };
    for (Case const& c : cases)
    {
        HostTensor const x = fromFloats(std::vector<int64_t>(c.dims.d, c.dims.d + c.dims.nbDims),
            tiedValues(static_cast<size_t>(volumeOf(c.dims))));
        int32_t const axis = c.dims.nbDims - 1;
        expectGraphReplayAgrees(topKOf(DataType::kFLOAT, c.dims, TopKOperation::kMAX, c.k, axis), x, c.route);
        expectBackendsAgree(
            topKOf(DataType::kFLOAT, c.dims, TopKOperation::kMAX, c.k, axis), {{"x", x}}, false, c.route);
    }
}

} // namespace
