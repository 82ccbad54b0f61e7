// The CUDA backend's Reduce layer against the CPU reference: every ReduceOperation over the innermost axis (warp per
// output), an outer or middle axis (thread per output), several axes and all of them, with and without
// keepDimensions, FP32, FP16 and INT32, NaN through max and min, a long row, few long reductions of the innermost axis
// (split between blocks), long reductions over outer axes (split between threads and blocks), an image batch's
// spatial means, and reductions over nothing; the kernel over channels-last inputs (global pooling four channels per
// access, and what it leaves to the general kernels: channels not a multiple of four, unaligned data, other axes).
#include "kernel_comparison.h"

#include "network/layers/reduce.h"

namespace
{

using namespace nvinfer1;
using namespace kiln::test;

NetworkMaker reduceOf(Dims const& dims, DataType type, ReduceOperation op, uint32_t axes, bool keep)
{
    return [=](INetworkDefinition& network) {
        ITensor* x = network.addInput("x", type, dims);
        IReduceLayer* layer = network.addReduce(*x, op, axes, keep);
        layer->getOutput(0)->setName("y");
        network.markOutput(*layer->getOutput(0));
    };
}

std::vector<ReduceOperation> const kOperations{
    ReduceOperation::kSUM, ReduceOperation::kPROD, ReduceOperation::kMAX, ReduceOperation::kMIN, ReduceOperation::kAVG};

TEST(CudaBackendReduce, EveryOperationOverEveryKindOfAxisSet)
{
    SKIP_WITHOUT_GPU();
    Dims const dims{3, {3, 5, 7}};
    // Values near 1 keep products finite.
    HostTensor const x = fromFloats({3, 5, 7}, spread(105, 0.6F, 1.5F));
    std::vector<int32_t> ints(105);
    for (size_t i = 0; i < ints.size(); ++i)
    {
        ints[i] = static_cast<int32_t>(i % 7) - 3 + static_cast<int32_t>(i % 2);
    }
    HostTensor const xi = fromElements({3, 5, 7}, ints, DataType::kINT32);
    for (ReduceOperation op : kOperations)
    {
        for (uint32_t axes : {4U, 1U, 2U, 5U, 3U, 7U})
        {
            for (bool keep : {false, true})
            {
                std::string const what = "op " + std::to_string(static_cast<int32_t>(op)) + " axes "
                    + std::to_string(axes) + (keep ? " keep" : "");
                expectBackendsAgree(reduceOf(dims, DataType::kFLOAT, op, axes, keep), {{"x", x}}, false, what);
                expectBackendsAgree(reduceOf(dims, DataType::kFLOAT, op, axes, keep), {{"x", x}}, true, what + " fp16");
                expectBackendsAgree(
                    reduceOf(dims, DataType::kINT32, op, axes, keep), {{"x", xi}}, false, what + " int32");
            }
        }
    }
}

TEST(CudaBackendReduce, NanPropagatesThroughMaxAndMin)
{
    SKIP_WITHOUT_GPU();
    std::vector<float> values = spread(12, -3.0F, 3.0F);
    values[1] = NAN;
    values[10] = NAN;
    for (ReduceOperation op : kOperations)
    {
        for (uint32_t axes : {1U, 2U})
        {
            expectBackendsAgree(reduceOf(Dims{2, {3, 4}}, DataType::kFLOAT, op, axes, false),
                {{"x", fromFloats({3, 4}, values)}}, false,
                "nan op " + std::to_string(static_cast<int32_t>(op)) + " axes " + std::to_string(axes));
        }
    }
}

TEST(CudaBackendReduce, ALongRowSumsAsOnTheCpu)
{
    SKIP_WITHOUT_GPU();
    HostTensor const x = fromFloats({2, 5000}, spread(10000, -1.0F, 1.3F));
    for (ReduceOperation op : {ReduceOperation::kSUM, ReduceOperation::kAVG, ReduceOperation::kMAX})
    {
        expectBackendsAgree(reduceOf(Dims{2, {2, 5000}}, DataType::kFLOAT, op, 2U, true), {{"x", x}}, false,
            "long row op " + std::to_string(static_cast<int32_t>(op)));
        expectBackendsAgree(reduceOf(Dims{2, {2, 5000}}, DataType::kFLOAT, op, 3U, false), {{"x", x}}, false,
            "everything op " + std::to_string(static_cast<int32_t>(op)));
    }
}

TEST(CudaBackendReduce, FewLongReductionsOfTheInnermostAxisAreSplitBetweenBlocks)
{
    SKIP_WITHOUT_GPU();
    // A whole tensor's maximum (the largest box coordinate torchvision's detectors offset classes by): 27,000 x 4
    // elements to one, in slices of many blocks; a row just long enough for one block (its output stored directly);
    // three rows read through the strides of a reduced outer axis; a NaN that must reach the result through the
    // partials.
    struct Case
    {
        std::vector<int64_t> shape;
        uint32_t axes;
    };
    for (Case const& c : {Case{{27000, 4}, 3U}, Case{{3, 1100}, 2U}, Case{{40, 3, 50}, 5U}})
    {
        int64_t const count = kiln::volume(c.shape);
        Dims dims{static_cast<int32_t>(c.shape.size()), {}};
        std::copy(c.shape.begin(), c.shape.end(), dims.d);
        std::vector<float> values = spread(count, -1.0F, 1.3F);
        HostTensor const x = fromFloats(c.shape, values);
        values[static_cast<size_t>(count * 2 / 3)] = NAN;
        HostTensor const withNan = fromFloats(c.shape, values);
        std::vector<int32_t> ints(static_cast<size_t>(count));
        for (size_t i = 0; i < ints.size(); ++i)
        {
            ints[i] = static_cast<int32_t>(i % 13) - 6;
        }
        HostTensor const xi = fromElements(c.shape, ints, DataType::kINT32);
        for (ReduceOperation op : kOperations)
        {
            std::string const what
                = "shape of " + std::to_string(count) + " op " + std::to_string(static_cast<int32_t>(op));
            if (op != ReduceOperation::kPROD) // a product of thousands of these values is 0 or infinite
            {
                expectBackendsAgree(reduceOf(dims, DataType::kFLOAT, op, c.axes, false), {{"x", x}}, false, what);
                expectBackendsAgree(
                    reduceOf(dims, DataType::kFLOAT, op, c.axes, true), {{"x", x}}, true, what + " fp16");
                expectBackendsAgree(
                    reduceOf(dims, DataType::kFLOAT, op, c.axes, false), {{"x", withNan}}, false, what + " nan");
            }
            expectBackendsAgree(reduceOf(dims, DataType::kINT32, op, c.axes, false), {{"x", xi}}, false, what + " int");
        }
    }
}

TEST(CudaBackendReduce, LongReductionsOverOuterAxesAgreeWithTheCpu)
{
    SKIP_WITHOUT_GPU();
    // Few outputs and long reductions with a kept axis innermost are split between threads and between blocks (the
    // global average pooling of a channels-last tensor reads this way): 2 x 40 outputs of 3,000 elements each; one
    // output of 70 elements (split between threads only); outputs past a group of 32.
    struct Case
    {
        std::vector<int64_t> shape;
        uint32_t axes;
    };
    for (Case const& c : {Case{{2, 3000, 40}, 2U}, Case{{70, 1}, 1U}, Case{{3, 100, 37}, 3U}})
    {
        int64_t const count = kiln::volume(c.shape);
        Dims dims{static_cast<int32_t>(c.shape.size()), {}};
        std::copy(c.shape.begin(), c.shape.end(), dims.d);
        HostTensor const x = fromFloats(c.shape, spread(count, -1.0F, 1.3F));
        std::vector<int32_t> ints(static_cast<size_t>(count));
        for (size_t i = 0; i < ints.size(); ++i)
        {
            ints[i] = static_cast<int32_t>(i % 11) - 5;
        }
        HostTensor const xi = fromElements(c.shape, ints, DataType::kINT32);
        for (ReduceOperation op :
            {ReduceOperation::kSUM, ReduceOperation::kAVG, ReduceOperation::kMAX, ReduceOperation::kMIN})
        {
            std::string const what
                = "shape of " + std::to_string(count) + " op " + std::to_string(static_cast<int32_t>(op));
            expectBackendsAgree(reduceOf(dims, DataType::kFLOAT, op, c.axes, false), {{"x", x}}, false, what);
            expectBackendsAgree(reduceOf(dims, DataType::kFLOAT, op, c.axes, true), {{"x", x}}, true, what + " fp16");
            expectBackendsAgree(reduceOf(dims, DataType::kINT32, op, c.axes, false), {{"x", xi}}, false, what + " int");
        }
    }
}

TEST(CudaBackendReduce, SpatialMeansOfAnImageBatch)
{
    SKIP_WITHOUT_GPU();
    // [N, C, H, W] to [N, C, 1, 1], as a squeeze-and-excitation block and a global average pooling reduce: the reduced
    // elements are one contiguous range per output, read without index arithmetic; then H alone and N with W, whose
    // elements are not one range.
    Dims const dims{4, {2, 40, 7, 9}};
    HostTensor const x = fromFloats({2, 40, 7, 9}, spread(2 * 40 * 7 * 9, -2.0F, 3.0F));
    for (ReduceOperation op : {ReduceOperation::kAVG, ReduceOperation::kSUM, ReduceOperation::kMAX})
    {
        for (uint32_t axes : {0b1100U, 0b0100U, 0b1001U})
        {
            std::string const what = "op " + std::to_string(static_cast<int32_t>(op)) + " axes " + std::to_string(axes);
            expectBackendsAgree(reduceOf(dims, DataType::kFLOAT, op, axes, true), {{"x", x}}, false, what);
            expectBackendsAgree(reduceOf(dims, DataType::kFLOAT, op, axes, true), {{"x", x}}, true, what + " fp16");
        }
    }
}

TEST(CudaBackendReduce, ReducingNothingGivesTheIdentity)
{
    SKIP_WITHOUT_GPU();
    // The reduced axis is empty inside the network (a slice of extent 0); the output is not.
    for (DataType type : {DataType::kFLOAT, DataType::kINT32})
    {
        for (ReduceOperation op : kOperations)
        {
            if (type == DataType::kFLOAT && (op == ReduceOperation::kMAX || op == ReduceOperation::kMIN))
            {
                continue; // +-inf, which the comparison cannot take; INT32 covers max and min
            }
            NetworkMaker const maker = [type, op](INetworkDefinition& network) {
                ITensor* x = network.addInput("x", type, Dims{2, {3, 4}});
                ISliceLayer* empty = network.addSlice(*x, Dims{2, {0, 0}}, Dims{2, {3, 0}}, Dims{2, {1, 1}});
                IReduceLayer* layer = network.addReduce(*empty->getOutput(0), op, 2U, false);
                layer->getOutput(0)->setName("y");
                network.markOutput(*layer->getOutput(0));
            };
            HostTensor const x = type == DataType::kFLOAT ? fromFloats({3, 4}, spread(12, -1.0F, 1.0F))
                                                          : fromElements({3, 4}, std::vector<int32_t>(12, 5), type);
            expectBackendsAgree(maker, {{"x", x}}, false,
                "empty op " + std::to_string(static_cast<int32_t>(op)) + (type == DataType::kINT32 ? " int32" : ""));
        }
    }
}

//! The CUDA kernel over a kHWC input (as a channels-last region hands it over) against the CPU reference over the same
//! values stored kLINEAR; the tensors placed `offset` elements past an aligned address.
//! With `outputFormat` kHWC the output is handed over as a region's pool output stored alike ([N, C, 1, 1]) is.
void expectChannelsLastAgrees(ReduceOperation op, uint32_t axes, bool keep, HostTensor const& x, size_t offset,
    std::string const& what, TensorFormat outputFormat = TensorFormat::kLINEAR)
{
    SCOPED_TRACE(what + ", op " + std::to_string(static_cast<int32_t>(op)) + ", axes " + std::to_string(axes)
        + (keep ? ", kept" : "") + ", offset " + std::to_string(offset));
    kiln::network::ReduceParams params;
    params.operation = op;
    params.reduceAxes = axes;
    params.keepDimensions = keep;
    kiln::Shape shape;
    for (size_t axis = 0; axis < x.shape.size(); ++axis)
    {
        bool const reduced = ((axes >> axis) & 1U) != 0;
        if (!reduced || keep)
        {
            shape.push_back(reduced ? 1 : x.shape[axis]);
        }
    }
    HostTensor expected = zeros(shape, x.type);
    kiln::cpu::run(params, {x.constView()}, {expected.view()});
    DeviceTensor const input(reorderedChannels(x, true), offset);
    DeviceTensor const output(shape, x.type, offset);
    kiln::ConstTensorView inputView = input.constView();
    inputView.format = TensorFormat::kHWC;
    kiln::TensorView outputView = output.view();
    outputView.format = outputFormat;
    std::unique_ptr<kiln::cuda::DeviceLayer> const layer = runOnDevice(params, {inputView}, {outputView});
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    expectClose(output.read(), expected, toleranceFor(x.type));
    EXPECT_TRUE(output.guardsIntact());
}

TEST(CudaBackendReduce, ChannelsLastSpatialReductionsAgreeWithTheCpu)
{
    SKIP_WITHOUT_GPU();
    // Squeeze-and-excitation's and the classifier's global pooling: positions split between blocks (56 x 56) or not
    // (7 x 7); 16 and 40 channels (a block's 32 groups spanning images), 12 (four only), 6 and 3 (not a multiple of
    // four: the general kernels); FP32, FP16, BF16; aligned, and one element past (the general kernels); the kept
    // [N, C, 1, 1] output written kLINEAR or kHWC (the same bytes); a NaN.
    for (DataType type : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16})
    {
        for (int64_t channels : {16, 40, 12, 6, 3})
        {
            for (int64_t side : {56, 7})
            {
                kiln::Shape const shape{2, channels, side, side};
                std::vector<float> values = scattered(static_cast<size_t>(kiln::volume(shape)), -2.0F, 3.0F, 7);
                HostTensor const x = fromFloats(shape, values, type);
                std::string const what = kiln::dataTypeName(type) + ", " + std::to_string(channels) + " channels, "
                    + std::to_string(side) + " x " + std::to_string(side);
                for (ReduceOperation op : kOperations)
                {
                    if (op == ReduceOperation::kPROD)
                    {
                        continue; // thousands of factors overflow
                    }
                    expectChannelsLastAgrees(op, 0b1100U, true, x, 0, what);
                    expectChannelsLastAgrees(op, 0b1100U, true, x, 1, what, TensorFormat::kHWC);
                    expectChannelsLastAgrees(op, 0b1100U, false, x, 0, what);
                }
                expectChannelsLastAgrees(ReduceOperation::kSUM, 0b0100U, true, x, 0, what + ", H only");
                values[static_cast<size_t>(channels + 1)] = NAN; // a position of channel 0 in image 0
                HostTensor const withNan = fromFloats(shape, values, type);
                expectChannelsLastAgrees(ReduceOperation::kMAX, 0b1100U, true, withNan, 0, what + ", a NaN");
                expectChannelsLastAgrees(ReduceOperation::kMIN, 0b1100U, true, withNan, 0, what + ", a NaN");
            }
        }
    }
}

} // namespace
