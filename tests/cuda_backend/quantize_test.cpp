// The CUDA backend's quantize and dequantize layers against the CPU reference, bit for bit: INT8 and FP8, per tensor
// and per channel (along every axis of a 3-D input), with a zero point, on ties, NaN, infinities, values beyond each
// type's range and FP8 subnormals, at FP16 precision, and over many blocks. Both backends share core/quantization.h,
// so any difference is the kernels' indexing or types. Without a GPU, that the CUDA plan builds.
#include "backend_comparison.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <sstream>
#include <string>

namespace
{

using namespace nvinfer1;
using namespace kiln::test;

//! x (FLOAT, `dims`) -> quantize into `type` with `scales` (per channel along `axis` when more than one), the
//! optional zero point `zero` -> output "q" -> dequantize -> output "y".
NetworkMaker quantizeRoundTrip(
    Dims const& dims, DataType type, std::vector<float> const& scales, int32_t axis, int8_t zero = 0)
{
    return [=](INetworkDefinition& network) {
        ITensor* x = network.addInput("x", DataType::kFLOAT, dims);
        Dims const scaleDims = scales.size() == 1 ? Dims{0, {}} : Dims{1, {static_cast<int64_t>(scales.size())}};
        ITensor* scale
            = network
                  .addConstant(scaleDims, Weights{DataType::kFLOAT, scales.data(), static_cast<int64_t>(scales.size())})
                  ->getOutput(0);
        IQuantizeLayer* q = network.addQuantize(*x, *scale, type);
        ASSERT_NE(q, nullptr);
        q->setAxis(axis);
        IDequantizeLayer* dq = network.addDequantize(*q->getOutput(0), *scale, DataType::kFLOAT);
        ASSERT_NE(dq, nullptr);
        dq->setAxis(axis);
        if (zero != 0)
        {
            std::vector<int8_t> const zeros(scales.size(), zero);
            ITensor* zeroPoint = network
                                     .addConstant(scaleDims,
                                         Weights{DataType::kINT8, zeros.data(), static_cast<int64_t>(zeros.size())})
                                     ->getOutput(0);
            q->setInput(2, *zeroPoint);
            dq->setInput(2, *zeroPoint);
        }
        q->getOutput(0)->setName("q");
        network.markOutput(*q->getOutput(0));
        dq->getOutput(0)->setName("y");
        network.markOutput(*dq->getOutput(0));
    };
}

//! Spread values with the cases quantization must get right at every 7th element: ties, NaN, infinities, values
//! beyond INT8's and FP8's ranges, FP8 subnormals.
HostTensor inputOf(Dims const& dims)
{
    std::vector<float> values = spread(volumeOf(dims), -600.0F, 600.0F);
    float const special[] = {2.5F, -2.5F, 0.5F, std::numeric_limits<float>::quiet_NaN(),
        std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(), 1e6F, 0.0029296875F, -0.0F};
    for (size_t i = 0; i < values.size(); i += 7)
    {
        values[i] = special[(i / 7) % std::size(special)];
    }
    return fromFloats(shapeOf(dims), values, DataType::kFLOAT);
}

void expectAgree(
    Dims const& dims, DataType type, std::vector<float> const& scales, int32_t axis, bool fp16 = false, int8_t zero = 0)
{
    expectBackendsAgree(quantizeRoundTrip(dims, type, scales, axis, zero), {{"x", inputOf(dims)}}, fp16,
        kiln::dataTypeName(type) + " axis " + std::to_string(axis) + (fp16 ? " fp16" : ""));
}

TEST(CudaBackendQuantize, BuildsForTheCudaBackendWithoutAGpu)
{
    for (DataType type : {DataType::kINT8, DataType::kFP8})
    {
        kiln::plan::PlanModel const model = cudaPlanOf(quantizeRoundTrip(Dims{2, {3, 4}}, type, {0.5F}, -1), false);
        EXPECT_EQ(layersOfKind(model, LayerType::kQUANTIZE), 1);
        EXPECT_EQ(layersOfKind(model, LayerType::kDEQUANTIZE), 1);
    }
}

TEST(CudaBackendQuantize, PerTensorAndPerChannelBitForBit)
{
    SKIP_WITHOUT_GPU();
    Dims const dims{3, {4, 3, 5}};
    for (DataType type : {DataType::kINT8, DataType::kFP8})
    {
        expectAgree(dims, type, {1.0F}, -1);
        expectAgree(dims, type, {0.5F, 2.0F, 3.0F, 5.0F}, 0);
        expectAgree(dims, type, {0.25F, 1.0F, 4.0F}, 1);
        expectAgree(dims, type, {1.0F, 2.0F, 3.0F, 4.0F, 5.0F}, 2);
        expectAgree(dims, type, {0.25F, 1.0F, 4.0F}, 1, true);
    }
}

TEST(CudaBackendQuantize, ZeroPointAndManyBlocks)
{
    SKIP_WITHOUT_GPU();
    expectAgree(Dims{2, {6, 7}}, DataType::kINT8, {2.0F}, -1, false, 10);
    // 300,000 elements: the channel each thread computes comes from every part of the linear index.
    expectAgree(Dims{3, {30, 100, 100}}, DataType::kFP8, spread(100, 0.5F, 8.0F), 1);
}

TEST(CudaBackendQuantize, OneScaleInt8SixteenValuesAThread)
{
    SKIP_WITHOUT_GPU();
    // INT8 with one scale runs 16 values a thread, quantizing by the scale's inverse unless the product is near a
    // half-way point. Steps of 0.05 by a scale of 0.1 put every other value within rounding of a tie (x / 0.1 and
    // x * 10 may round to either side of it); the specials of inputOf come every 7th value. A count that is not a
    // multiple of 16 leaves a tail to the element kernel.
    for (Dims const& dims : {Dims{4, {4, 16, 10, 12}}, Dims{3, {3, 13, 197}}})
    {
        HostTensor input = inputOf(dims);
        auto* const values = reinterpret_cast<float*>(input.bytes.data());
        for (size_t i = 0; i < volumeOf(dims); ++i)
        {
            values[i] = i % 7 == 0 ? values[i] : static_cast<float>(i % 4000) * 0.05F - 100.0F;
        }
        for (auto const& [fp16, zero] :
            {std::pair{false, int8_t{0}}, std::pair{true, int8_t{0}}, std::pair{false, int8_t{-3}}})
        {
            std::string const what = std::to_string(volumeOf(dims)) + " values" + (fp16 ? ", FP16" : "")
                + (zero != 0 ? ", zero point -3" : "");
            expectBackendsAgree(quantizeRoundTrip(dims, DataType::kINT8, {0.1F}, -1, zero), {{"x", input}}, fp16, what);
        }
    }
}

TEST(CudaBackendQuantize, OneScaleFp8SixteenValuesAThread)
{
    SKIP_WITHOUT_GPU();
    // FP8 with one scale runs 16 values a thread as well where a tensor has 2^19 values or more, from FP32 or FP16
    // values; inputOf's values saturate, round to FP8's subnormals and tie. A count that is not a multiple of 16
    // leaves a tail to the element kernel.
    for (Dims const& dims : {Dims{3, {2, 512, 512}}, Dims{2, {1031, 517}}})
    {
        for (bool const fp16 : {false, true})
        {
            expectAgree(dims, DataType::kFP8, {0.75F}, -1, fp16);
        }
    }
}

TEST(CudaBackendQuantize, Fp8CodesOfFloatsOfEveryKind)
{
    SKIP_WITHOUT_GPU();
    // FP8 with one scale runs on the GPU's conversion instruction where it has one (fp8_pairs.cuh), which writes every
    // NaN as 0x7F. 2^23 float bit patterns spread over all 2^32 (both signs, every exponent, varied low mantissa bits,
    // both zeros, infinities and NaNs of both signs among them), divided by a scale of 1, from FP32 and FP16 values,
    // give the CPU reference's codes.
    Dims const dims{2, {2048, 4096}};
    std::vector<float> values(volumeOf(dims));
    for (uint32_t i = 0; i < values.size(); ++i)
    {
        uint32_t const bits = i * 512U + (i * 7U) % 512U;
        std::memcpy(&values[i], &bits, sizeof(bits));
    }
    std::map<std::string, HostTensor> const inputs{{"x", fromFloats(shapeOf(dims), values, DataType::kFLOAT)}};
    NetworkMaker const maker = quantizeRoundTrip(dims, DataType::kFP8, {1.0F}, -1);
    for (bool const fp16 : {false, true})
    {
        std::vector<uint8_t> const expected = runOn(kiln::Backend::kCPU, maker, inputs, fp16).at("q").bytes;
        std::vector<uint8_t> const codes = runOn(kiln::Backend::kCUDA, maker, inputs, fp16).at("q").bytes;
        ASSERT_EQ(codes.size(), expected.size());
        size_t differences = 0;
        std::ostringstream first;
        for (size_t i = 0; i < codes.size(); ++i)
        {
            if (codes[i] != expected[i] && ++differences <= 8)
            {
                uint32_t bits = 0;
                std::memcpy(&bits, &values[i], sizeof(bits));
                first << std::hex << " float 0x" << bits << ": 0x" << unsigned{codes[i]} << ", reference 0x"
                      << unsigned{expected[i]} << ";";
            }
        }
        EXPECT_EQ(differences, 0U) << (fp16 ? "FP16:" : "FP32:") << first.str();
    }
}

} // namespace
