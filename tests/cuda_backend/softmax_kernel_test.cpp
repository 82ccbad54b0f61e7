// The CUDA softmax kernels called directly against the CPU reference: rows of every length the kernels tell apart
// (a warp per row up to 1024 elements, a block per row held in registers up to 16384, longer rows read again from
// memory), FP32, FP16 and BF16, data aligned for groups of four or not (an odd length, a view one element past an
// aligned address), rows of -inf, NaN and +inf, in place, more rows than one grid holds, another axis than the
// innermost, and an input type other than the output's.
#include "kernel_comparison.h"

#include <algorithm>
#include <limits>

namespace
{

using namespace nvinfer1;
using namespace kiln::test;

constexpr DataType kFloatTypes[] = {DataType::kFLOAT, DataType::kHALF, DataType::kBF16};

kiln::network::SoftMaxParams alongAxis(int32_t axis)
{
    kiln::network::SoftMaxParams params;
    params.axes = 1U << axis;
    return params;
}

void expectSoftmaxAgrees(kiln::Shape const& shape, int32_t axis, HostTensor const& input, DataType outputType,
    size_t offset, bool inPlace, std::string const& what)
{
    SCOPED_TRACE(what);
    auto const [cpu, gpu] = runBothKernels(
        alongAxis(axis), {Placed{input, offset}}, {kiln::test::zeros(shape, outputType)}, offset, inPlace);
    expectClose(gpu.at(0), cpu.at(0), toleranceFor(outputType), what);
}

std::string describe(int64_t rows, int64_t length, DataType type, size_t offset)
{
    return std::to_string(rows) + " rows of " + std::to_string(length) + " " + kiln::dataTypeName(type) + ", offset "
        + std::to_string(offset);
}

TEST(CudaSoftmaxKernel, RowsOfEveryLengthAgreeWithTheCpu)
{
    SKIP_WITHOUT_GPU();
    for (int64_t length : {1, 3, 31, 128, 129, 1000, 1024, 1500, 2048, 4096, 4097, 16384, 16385, 65536})
    {
        int64_t const rows = std::max<int64_t>(2, std::min<int64_t>(7, 200000 / length));
        for (DataType type : kFloatTypes)
        {
            std::vector<float> const values = scattered(static_cast<size_t>(rows * length), -12.0F, 9.0F);
            HostTensor const input = fromFloats({rows, length}, values, type);
            for (size_t offset : {0, 1})
            {
                expectSoftmaxAgrees(
                    {rows, length}, 1, input, type, offset, false, describe(rows, length, type, offset));
            }
        }
    }
}

TEST(CudaSoftmaxKernel, AttentionScoresOfWhispersEncoder)
{
    SKIP_WITHOUT_GPU();
    // [1, 6, 1500, 1500] as the encoder has them, a fifth of the queries: rows of 1500 FP16 scores.
    kiln::Shape const shape{1, 6, 300, 1500};
    std::vector<float> const values = scattered(6 * 300 * 1500, -30.0F, 30.0F, 3);
    for (DataType type : {DataType::kHALF, DataType::kFLOAT})
    {
        expectSoftmaxAgrees(shape, 3, fromFloats(shape, values, type), type, 0, false, kiln::dataTypeName(type));
    }
}

//! Rows: all -inf; one NaN; one +inf; -inf among finite values; values too far apart for exp; two +inf.
std::vector<float> specialRows(int64_t length)
{
    float const inf = std::numeric_limits<float>::infinity();
    std::vector<float> values = scattered(static_cast<size_t>(6 * length), -5.0F, 5.0F, 11);
    auto row = [&](int64_t r) { return values.begin() + r * length; };
    std::fill(row(0), row(1), -inf);
    *(row(1) + length / 2) = NAN;
    *(row(2) + length - 1) = inf;
    for (int64_t k = 0; k < length; k += 2)
    {
        *(row(3) + k) = -inf;
    }
    *(row(4)) = 60000.0F;
    *(row(4) + length - 1) = -60000.0F;
    *(row(5)) = inf;
    *(row(5) + length / 3) = inf;
    return values;
}

TEST(CudaSoftmaxKernel, InfinitiesAndNanAsOnTheCpu)
{
    SKIP_WITHOUT_GPU();
    for (int64_t length : {2, 31, 128, 1500, 4097, 65536})
    {
        for (DataType type : kFloatTypes)
        {
            HostTensor const input = fromFloats({6, length}, specialRows(length), type);
            expectSoftmaxAgrees({6, length}, 1, input, type, 0, false, describe(6, length, type, 0));
        }
    }
}

TEST(CudaSoftmaxKernel, InPlace)
{
    SKIP_WITHOUT_GPU();
    for (int64_t length : {128, 1500, 65536})
    {
        for (DataType type : {DataType::kFLOAT, DataType::kHALF})
        {
            HostTensor const input
                = fromFloats({3, length}, scattered(static_cast<size_t>(3 * length), -4.0F, 4.0F), type);
            for (size_t offset : {0, 1})
            {
                expectSoftmaxAgrees({3, length}, 1, input, type, offset, true, describe(3, length, type, offset));
            }
        }
    }
}

TEST(CudaSoftmaxKernel, MoreRowsThanOneGridHolds)
{
    SKIP_WITHOUT_GPU();
    // 3,000,000 rows of one element: more than 65535 * 8 blocks of four warps, so warps take several rows each. A row
    // of one is exp(0) / 1 = 1.
    int64_t const rows = 3000000;
    HostTensor const input = fromFloats({rows, 1}, scattered(static_cast<size_t>(rows), -3.0F, 3.0F), DataType::kHALF);
    expectSoftmaxAgrees({rows, 1}, 1, input, DataType::kHALF, 0, false, "three million rows");
}

TEST(CudaSoftmaxKernel, OtherAxesAndMixedTypes)
{
    SKIP_WITHOUT_GPU();
    kiln::Shape const shape{3, 1500, 5};
    std::vector<float> const values = scattered(3 * 1500 * 5, -8.0F, 8.0F, 5);
    for (DataType type : kFloatTypes)
    {
        HostTensor const input = fromFloats(shape, values, type);
        expectSoftmaxAgrees(shape, 1, input, type, 0, false, "axis 1, " + kiln::dataTypeName(type));
        expectSoftmaxAgrees(shape, 0, input, type, 1, false, "axis 0, " + kiln::dataTypeName(type));
    }
    // An FP32 input written as FP16 takes the kernels that convert each element on its own.
    for (int64_t length : {100, 3000})
    {
        HostTensor const input = fromFloats({4, length}, scattered(static_cast<size_t>(4 * length), -6.0F, 6.0F));
        expectSoftmaxAgrees(
            {4, length}, 1, input, DataType::kHALF, 0, false, "fp32 to fp16, " + std::to_string(length));
    }
}

} // namespace
