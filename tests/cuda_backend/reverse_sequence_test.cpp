// The CUDA backend's ReverseSequence layer against the CPU reference: both axis orders of a matrix and axes with
// others between and after them, lengths from 0 to the full extent in INT32 and INT64, every element size (FP32,
// FP16, BF16, INT8, UINT8, BOOL, INT32, INT64; compared bit for bit, since the layer copies), FP16 precision, an
// input of many blocks, and empty inputs. Lengths the CPU reference rejects are clamped on the GPU, as
// backend/cuda/kernels/tensor/reverse_sequence.cu documents: checked against values worked out by hand. Without a GPU,
// that the CUDA plan builds.
#include "backend_comparison.h"

#include <cstdint>

namespace
{

using namespace nvinfer1;
using namespace kiln::test;

struct ReverseSetup
{
    int32_t batchAxis{1};
    int32_t sequenceAxis{0};
};

std::string describe(DataType type, Dims const& dims, ReverseSetup const& setup)
{
    std::string text = kiln::dataTypeName(type) + " [";
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        text += (i > 0 ? ", " : "") + std::to_string(dims.d[i]);
    }
    return text + "] batch axis " + std::to_string(setup.batchAxis) + " sequence axis "
        + std::to_string(setup.sequenceAxis);
}

//! ReverseSequence of input "x" (`type`, `dims`) with lengths "lens" (`lengthsType`, one per batch index).
NetworkMaker reverseSequenceOf(DataType type, Dims const& dims, DataType lengthsType, ReverseSetup const& setup)
{
    return [=](INetworkDefinition& network) {
        ITensor* x = network.addInput("x", type, dims);
        ITensor* lens = network.addInput("lens", lengthsType, Dims{1, {dims.d[setup.batchAxis]}});
        IReverseSequenceLayer* layer = network.addReverseSequence(*x, *lens);
        ASSERT_NE(layer, nullptr);
        layer->setBatchAxis(setup.batchAxis);
        layer->setSequenceAxis(setup.sequenceAxis);
        layer->getOutput(0)->setName("y");
        network.markOutput(*layer->getOutput(0));
    };
}

//! One length per batch index, cycling through 0, the full extent, 1 and the values between.
std::vector<int64_t> lengthsFor(int64_t batchExtent, int64_t sequenceExtent)
{
    std::vector<int64_t> lengths(static_cast<size_t>(batchExtent));
    for (int64_t b = 0; b < batchExtent; ++b)
    {
        int64_t const step = b % (sequenceExtent + 1);
        lengths[static_cast<size_t>(b)] = step == 0 ? 0 : step == 1 ? sequenceExtent : step - 1;
    }
    return lengths;
}

//! Distinct values for every element of `type`: integers wrap to its width, BOOL alternates irregularly.
HostTensor inputOf(DataType type, Dims const& dims)
{
    std::vector<int64_t> const shape = shapeOf(dims);
    size_t const count = volumeOf(dims);
    if (kiln::isFloatType(type))
    {
        return fromFloats(shape, spread(count, -3.0F, 5.0F), type);
    }
    std::vector<int64_t> values(count);
    for (size_t i = 0; i < count; ++i)
    {
        values[i] = type == DataType::kBOOL ? static_cast<int64_t>((i * 7 + i / 3) % 2)
                                            : static_cast<int64_t>(i * 37 % 251) - 100;
    }
    return fromInts(shape, values, type);
}

void expectAgree(DataType type, Dims const& dims, DataType lengthsType, ReverseSetup const& setup, bool fp16 = false)
{
    int64_t const batchExtent = dims.d[setup.batchAxis];
    int64_t const sequenceExtent = dims.d[setup.sequenceAxis];
    std::vector<int64_t> const lengths = lengthsFor(batchExtent, sequenceExtent);
    expectBackendsAgree(reverseSequenceOf(type, dims, lengthsType, setup),
        {{"x", inputOf(type, dims)}, {"lens", fromInts({batchExtent}, lengths, lengthsType)}}, fp16,
        describe(type, dims, setup) + (fp16 ? " fp16" : ""));
}

TEST(CudaBackendReverseSequence, BuildsForTheCudaBackendWithoutAGpu)
{
    // Building and reading a CUDA plan needs no GPU: the backend finds the layer's kernel, at FP16 precision too.
    for (bool fp16 : {false, true})
    {
        kiln::plan::PlanModel const model
            = cudaPlanOf(reverseSequenceOf(DataType::kFLOAT, Dims{2, {5, 3}}, DataType::kINT32, {}), fp16);
        EXPECT_EQ(layersOfKind(model, LayerType::kREVERSE_SEQUENCE), 1) << (fp16 ? "fp16" : "fp32");
    }
}

TEST(CudaBackendReverseSequence, AxisChoicesAndLengthTypes)
{
    SKIP_WITHOUT_GPU();
    std::vector<std::pair<Dims, ReverseSetup>> const cases{
        {Dims{2, {7, 5}}, {1, 0}},
        {Dims{2, {5, 7}}, {0, 1}},
        {Dims{3, {4, 3, 6}}, {0, 2}},
        {Dims{3, {6, 3, 4}}, {2, 0}},
        {Dims{4, {2, 5, 3, 4}}, {3, 1}},
        {Dims{4, {3, 2, 9, 2}}, {1, 2}},
    };
    for (auto const& [dims, setup] : cases)
    {
        for (DataType lengthsType : {DataType::kINT32, DataType::kINT64})
        {
            expectAgree(DataType::kFLOAT, dims, lengthsType, setup);
        }
        expectAgree(DataType::kFLOAT, dims, DataType::kINT32, setup, true);
    }
}

TEST(CudaBackendReverseSequence, EveryElementSizeBitForBit)
{
    SKIP_WITHOUT_GPU();
    Dims const dims{3, {3, 8, 5}};
    for (DataType type : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16, DataType::kINT8, DataType::kUINT8,
             DataType::kBOOL, DataType::kINT32, DataType::kINT64})
    {
        expectAgree(type, dims, DataType::kINT64, {0, 1});
        expectAgree(type, dims, DataType::kINT32, {2, 1});
    }
}

TEST(CudaBackendReverseSequence, InputSpanningManyBlocks)
{
    SKIP_WITHOUT_GPU();
    // 320,000 elements: 1,250 blocks, so the batch and sequence indices each thread computes come from every part of
    // the linear index.
    expectAgree(DataType::kHALF, Dims{3, {16, 200, 100}}, DataType::kINT32, {1, 2});
}

TEST(CudaBackendReverseSequence, EmptyInputs)
{
    SKIP_WITHOUT_GPU();
    for (Dims const& dims : {Dims{2, {0, 3}}, Dims{2, {3, 0}}, Dims{3, {2, 3, 0}}})
    {
        expectAgree(DataType::kFLOAT, dims, DataType::kINT64, {1, 0});
    }
}

TEST(CudaBackendReverseSequence, LengthsOutsideTheExtentAreClamped)
{
    SKIP_WITHOUT_GPU();
    // The CPU reference rejects these lengths; the GPU cannot report them and clamps: -2 copies its row as it is,
    // 9 reverses the whole row. Rows of [3, 4] with batch axis 0.
    std::vector<float> const x{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
    auto const outputs = runOn(kiln::Backend::kCUDA,
        reverseSequenceOf(DataType::kFLOAT, Dims{2, {3, 4}}, DataType::kINT64, {0, 1}),
        {{"x", fromFloats({3, 4}, x)}, {"lens", fromInts({3}, {-2, 9, 2}, DataType::kINT64)}});
    ASSERT_EQ(outputs.count("y"), 1U);
    EXPECT_EQ(outputs.at("y").floats(), (std::vector<float>{0, 1, 2, 3, 7, 6, 5, 4, 9, 8, 10, 11}));
}

} // namespace
