// The CUDA backend's Cumulative layer against the CPU reference: kSUM along every axis (positive and negative, from
// INT32 and INT64 constants), inclusive and exclusive, forward and reverse; FP32 (and FP16 precision), FP16 input,
// INT32 and INT64 that wrap on overflow; lines a warp shares (short inner stride, 32 or more elements) and lines a
// thread runs alone (interleaved or short), which are the kernel's two routes.
#include "backend_comparison.h"

#include <cstdint>
#include <limits>

namespace
{

using namespace nvinfer1;
using namespace kiln::test;

NetworkMaker cumulativeOf(
    DataType type, std::vector<int64_t> const& shape, int64_t axis, DataType axisType, bool exclusive, bool reverse)
{
    return [=](INetworkDefinition& network) {
        Dims dims{static_cast<int32_t>(shape.size()), {}};
        std::copy(shape.begin(), shape.end(), dims.d);
        ITensor* x = network.addInput("x", type, dims);
        auto const axis32 = static_cast<int32_t>(axis);
        IConstantLayer* axisLayer = axisType == DataType::kINT64
            ? network.addConstant(Dims{0, {}}, Weights{DataType::kINT64, &axis, 1})
            : network.addConstant(Dims{0, {}}, Weights{DataType::kINT32, &axis32, 1});
        ASSERT_NE(axisLayer, nullptr);
        ICumulativeLayer* layer
            = network.addCumulative(*x, *axisLayer->getOutput(0), CumulativeOperation::kSUM, exclusive, reverse);
        ASSERT_NE(layer, nullptr);
        layer->getOutput(0)->setName("y");
        network.markOutput(*layer->getOutput(0));
    };
}

int64_t volumeOf(std::vector<int64_t> const& shape)
{
    int64_t v = 1;
    for (int64_t extent : shape)
    {
        v *= extent;
    }
    return v;
}

std::string describe(std::vector<int64_t> const& shape, int64_t axis, bool exclusive, bool reverse)
{
    std::string text = "shape";
    for (int64_t extent : shape)
    {
        text += " " + std::to_string(extent);
    }
    return text + " axis " + std::to_string(axis) + (exclusive ? " exclusive" : "") + (reverse ? " reverse" : "");
}

TEST(CudaBackendCumulative, EveryAxisExclusiveAndReverse)
{
    SKIP_WITHOUT_GPU();
    std::vector<int64_t> const shape{3, 4, 5};
    HostTensor const x = fromFloats(shape, spread(60, -3.0F, 4.5F));
    for (int64_t axis : {0, 1, 2, -1, -3})
    {
        for (bool exclusive : {false, true})
        {
            for (bool reverse : {false, true})
            {
                std::string const what = describe(shape, axis, exclusive, reverse);
                for (DataType axisType : {DataType::kINT32, DataType::kINT64})
                {
                    expectBackendsAgree(cumulativeOf(DataType::kFLOAT, shape, axis, axisType, exclusive, reverse),
                        {{"x", x}}, false, what);
                }
                expectBackendsAgree(cumulativeOf(DataType::kFLOAT, shape, axis, DataType::kINT32, exclusive, reverse),
                    {{"x", x}}, true, what + " fp16");
            }
        }
    }
}

TEST(CudaBackendCumulative, LongLinesOnBothRoutes)
{
    SKIP_WITHOUT_GPU();
    struct Case
    {
        std::vector<int64_t> shape;
        int64_t axis;
    };
    Case const cases[] = {
        {{2, 1000}, 1},  // contiguous lines: a warp each
        {{1000, 3}, 0},  // lines with stride 3: still a warp each
        {{40, 64}, 0},   // interleaved lines (stride 64): a thread each, coalesced
        {{7, 31, 3}, 1}, // short lines: a thread each
        {{100003}, 0},   // one long line, with a partial last chunk
        {{1, 1, 1}, 2},  // one element
    };
    for (Case const& c : cases)
    {
        auto const count = static_cast<size_t>(volumeOf(c.shape));
        std::vector<float> values = spread(count < 2 ? 2 : count, -1.0F, 1.25F);
        values.resize(count);
        HostTensor const x = fromFloats(c.shape, values);
        for (bool exclusive : {false, true})
        {
            for (bool reverse : {false, true})
            {
                NetworkMaker const maker
                    = cumulativeOf(DataType::kFLOAT, c.shape, c.axis, DataType::kINT32, exclusive, reverse);
                expectBackendsAgree(maker, {{"x", x}}, false, describe(c.shape, c.axis, exclusive, reverse));
            }
        }
    }
}

TEST(CudaBackendCumulative, InfinitiesAndNaNPropagate)
{
    SKIP_WITHOUT_GPU();
    std::vector<float> values = spread(80, -2.0F, 2.0F);
    values[3] = std::numeric_limits<float>::infinity();
    values[50] = -std::numeric_limits<float>::infinity();
    values[45] = std::numeric_limits<float>::quiet_NaN();
    values[77] = std::numeric_limits<float>::infinity();
    HostTensor const x = fromFloats({2, 40}, values);
    for (bool exclusive : {false, true})
    {
        for (bool reverse : {false, true})
        {
            expectBackendsAgree(cumulativeOf(DataType::kFLOAT, {2, 40}, 1, DataType::kINT32, exclusive, reverse),
                {{"x", x}}, false, describe({2, 40}, 1, exclusive, reverse));
        }
    }
}

TEST(CudaBackendCumulative, HalfInputAndIntegersThatWrap)
{
    SKIP_WITHOUT_GPU();
    // FP16 input from 0.125 to 2 in magnitude: multiples of 2^-13, whose sums double holds exactly in any order, so
    // the FP16 outputs (compared bit for bit) cannot differ by how the additions were grouped.
    std::vector<uint16_t> halves(6 * 50);
    for (size_t i = 0; i < halves.size(); ++i)
    {
        uint16_t const magnitude = static_cast<uint16_t>(0x3000 + (i * 37) % 0x0C00); // 0.125 to 2
        halves[i] = static_cast<uint16_t>(i % 3 == 0 ? magnitude | 0x8000 : magnitude);
    }
    HostTensor const half = fromElements({6, 50}, halves, DataType::kHALF);
    std::vector<int32_t> ints(6 * 50);
    std::vector<int64_t> longs(ints.size());
    for (size_t i = 0; i < ints.size(); ++i)
    {
        ints[i] = static_cast<int32_t>((i * 7919) % 2001) - 1000;
        longs[i] = static_cast<int64_t>(ints[i]) * 1000000007;
    }
    ints[10] = std::numeric_limits<int32_t>::max(); // the sums after it wrap
    ints[11] = std::numeric_limits<int32_t>::max();
    longs[20] = std::numeric_limits<int64_t>::max();
    longs[21] = std::numeric_limits<int64_t>::max();
    HostTensor const x32 = fromElements({6, 50}, ints, DataType::kINT32);
    HostTensor const x64 = fromElements({6, 50}, longs, DataType::kINT64);
    for (int64_t axis : {0, 1})
    {
        for (bool exclusive : {false, true})
        {
            for (bool reverse : {false, true})
            {
                std::string const what = describe({6, 50}, axis, exclusive, reverse);
                expectBackendsAgree(cumulativeOf(DataType::kHALF, {6, 50}, axis, DataType::kINT32, exclusive, reverse),
                    {{"x", half}}, false, what + " FP16 input");
                expectBackendsAgree(cumulativeOf(DataType::kINT32, {6, 50}, axis, DataType::kINT64, exclusive, reverse),
                    {{"x", x32}}, false, what + " INT32");
                expectBackendsAgree(cumulativeOf(DataType::kINT64, {6, 50}, axis, DataType::kINT32, exclusive, reverse),
                    {{"x", x64}}, false, what + " INT64");
            }
        }
    }
}

} // namespace
