// CustomSkipLayerNormPluginDynamic 1 (V2) and 5 (V3) against torch.nn.functional.layer_norm (eps = FLT_EPSILON,
// values printed in double and pasted here), on the CPU and, with a GPU, on CUDA against the CPU.
#include "expect_close.h"
#include "plugin_harness.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <utility>

namespace kiln::test
{
namespace
{

using nvinfer1::DataType;

PluginCall skipLayerNorm(char const* version, int32_t typeId, bool withBias)
{
    PluginCall call{"CustomSkipLayerNormPluginDynamic", version, {}};
    call.fields.add("type_id", typeId);
    call.fields.add("ld", 4);
    call.fields.add("beta", std::vector<float>{0.F, 0.1F, -0.2F, 0.3F});
    call.fields.add("gamma", std::vector<float>{1.F, 0.5F, 2.F, -1.F});
    if (withBias)
    {
        call.fields.add("bias", std::vector<float>{0.25F, -0.5F, 0.F, 1.F});
    }
    return call;
}

// [S = 2, B = 2, E = 4, 1, 1]; the last row of input + skip is constant, so it normalizes to beta (no NaN).
std::vector<float> const kInput{
    0.5F, -1.F, 2.F, 0.25F, 1.5F, 0.F, -0.5F, 3.F, -2.F, 1.F, 0.75F, 0.5F, 0.1F, 0.2F, 0.3F, 0.4F};
std::vector<float> const kSkip{
    1.F, 0.5F, -0.25F, 0.F, -1.F, 2.F, 0.5F, -0.5F, 0.F, 0.F, 1.F, -1.F, 0.4F, 0.3F, 0.2F, 0.1F};
// layer_norm(input + skip, (4,), gamma, beta, eps) by torch.
std::vector<float> const kTorchNoBias{0.816496523F, -0.580413769F, 1.97732406F, 0.844331015F, -0.727606834F,
    0.463803417F, -2.62535611F, -0.912678057F, -1.43207798F, 0.425472268F, 2.14340033F, 0.690566722F, 0.F, 0.1F, -0.2F,
    0.3F};
// layer_norm(input + skip + bias, ...) by torch.
std::vector<float> const kTorchWithBias{0.71454459F, -0.751957011F, 1.22908918F, 0.0251751577F, -0.527409613F,
    0.123973164F, -2.40553111F, -1.28222884F, -1.58423601F, 0.199014751F, 2.17635401F, 0.101970499F, 0.11547003F,
    -0.535085167F, -0.892820182F, -1.20111039F};

std::vector<HostTensor> inputs(DataType type = DataType::kFLOAT)
{
    return {fromFloats({2, 2, 4, 1, 1}, kInput, type), fromFloats({2, 2, 4, 1, 1}, kSkip, type)};
}

TEST(SkipLayerNormPlugin, MatchesTorchLayerNormInFp32BothVersions)
{
    for (char const* version : {"1", "5"})
    {
        SCOPED_TRACE(version);
        PluginCall call = skipLayerNorm(version, 0, false);
        std::vector<HostTensor> const out = runPlugin(kiln::Backend::kCPU, call, inputs());
        ASSERT_EQ(out.size(), 1U);
        EXPECT_EQ(out[0].shape, (Shape{2, 2, 4, 1, 1}));
        expectClose(out[0].floats(), kTorchNoBias, 1e-5F);
    }
}

TEST(SkipLayerNormPlugin, AddsTheBiasBeforeNormalizing)
{
    for (char const* version : {"1", "5"})
    {
        SCOPED_TRACE(version);
        PluginCall call = skipLayerNorm(version, 0, true);
        std::vector<HostTensor> const out = runPlugin(kiln::Backend::kCPU, call, inputs());
        ASSERT_EQ(out.size(), 1U);
        expectClose(out[0].floats(), kTorchWithBias, 1e-5F);
    }
}

TEST(SkipLayerNormPlugin, RunsInFp16WhenTypeIdIsOne)
{
    PluginCall call = skipLayerNorm("1", 1, true);
    std::vector<HostTensor> const out = runPlugin(kiln::Backend::kCPU, call, inputs(DataType::kHALF), true);
    ASSERT_EQ(out.size(), 1U);
    EXPECT_EQ(out[0].type, DataType::kHALF);
    // The inputs round to FP16 first (0.1, 0.2... are not exact), so the tolerance is FP16's.
    expectClose(out[0].floats(), kTorchWithBias, {5e-3, 5e-3});
}

TEST(SkipLayerNormPlugin, RejectsInputsNotShapedSBE11)
{
    PluginCall call = skipLayerNorm("1", 0, false);
    std::string errors;
    std::vector<HostTensor> const out
        = runPlugin(kiln::Backend::kCPU, call, {fromFloats({4, 4}, kInput), fromFloats({4, 4}, kSkip)}, false, &errors);
    EXPECT_TRUE(out.empty());
    EXPECT_NE(
        errors.find("CustomSkipLayerNormPluginDynamic: input 0 (rank 2) is not [S, B, E, 1, 1]"), std::string::npos)
        << errors;
}

TEST(SkipLayerNormPlugin, CudaMatchesTheCpu)
{
    SKIP_WITHOUT_GPU();
    // 1000 (not a multiple of the block size) takes the kernel with a warp per row, the row in registers: in FP32 8
    // vectors of 4 per lane, the last only partly inside the row; in FP16 4 vectors of 8. 2600 is wider than a warp
    // holds (1024 FP32, 2048 FP16 values) and takes the kernel with a block per row.
    for (int32_t hidden : {1000, 2600})
    {
        std::vector<float> input(3 * 5 * static_cast<size_t>(hidden));
        std::vector<float> skip(input.size());
        for (size_t i = 0; i < input.size(); ++i)
        {
            input[i] = static_cast<float>(static_cast<int64_t>(i % 977) - 488) / 97.F;
            skip[i] = static_cast<float>(static_cast<int64_t>((i * 7) % 331) - 165) / 53.F;
        }
        std::vector<float> gamma(hidden);
        std::vector<float> beta(hidden);
        std::vector<float> bias(hidden);
        for (int32_t i = 0; i < hidden; ++i)
        {
            gamma[i] = 0.5F + static_cast<float>(i % 13) / 10.F;
            beta[i] = static_cast<float>(i % 7) / 5.F - 0.6F;
            bias[i] = static_cast<float>(i % 5) / 4.F - 0.5F;
        }
        for (char const* version : {"1", "5"})
        {
            for (int32_t typeId : {0, 1})
            {
                SCOPED_TRACE(
                    std::string(version) + " type_id " + std::to_string(typeId) + " ld " + std::to_string(hidden));
                DataType const type = typeId == 0 ? DataType::kFLOAT : DataType::kHALF;
                PluginCall call{"CustomSkipLayerNormPluginDynamic", version, {}};
                call.fields.add("type_id", typeId).add("ld", hidden).add("beta", beta).add("gamma", gamma);
                call.fields.add("bias", bias);
                std::vector<HostTensor> const tensors{
                    fromFloats({3, 5, hidden, 1, 1}, input, type), fromFloats({3, 5, hidden, 1, 1}, skip, type)};
                std::vector<HostTensor> const cpu = runPlugin(kiln::Backend::kCPU, call, tensors, typeId == 1);
                std::vector<HostTensor> const cuda = runPlugin(kiln::Backend::kCUDA, call, tensors, typeId == 1);
                ASSERT_EQ(cuda.size(), 1U);
                expectClose(
                    cuda[0].floats(), cpu[0].floats(), typeId == 0 ? Tolerance{1e-5, 1e-5} : Tolerance{4e-3, 4e-3});
            }
        }
    }
}

//! INT8 values spread over [-128, 127].
std::vector<int64_t> int8Values(size_t count, size_t step, size_t offset)
{
    std::vector<int64_t> values(count);
    for (size_t i = 0; i < count; ++i)
    {
        values[i] = static_cast<int64_t>((i * step + offset) % 256) - 128;
    }
    return values;
}

//! The INT8 form (type_id 2) of a plugin with hidden size `ld` on [2, 3, ld, 1, 1] tensors (run with kScales), and
//! the same tensors' values for the FP32 form: the INT8 values times their scales.
struct Int8Case
{
    PluginCall int8;
    PluginCall fp32;
    std::vector<HostTensor> quantized;
    std::vector<HostTensor> dequantized;
};

// Powers of two, so that the dynamic ranges the harness sets (127 x scale) give the plugin these scales exactly.
constexpr float kInputScale = 0.0625F;
constexpr float kSkipScale = 0.125F;
constexpr float kOutputScale = 0.015625F;
std::vector<float> const kScales{kInputScale, kSkipScale, kOutputScale}; // input, skip, output

Int8Case int8Case(char const* version, int32_t ld)
{
    std::vector<float> gamma(ld), beta(ld), bias(ld);
    for (int32_t i = 0; i < ld; ++i)
    {
        gamma[i] = 0.5F + static_cast<float>(i % 7) / 4.F;
        beta[i] = static_cast<float>(i % 5) / 8.F - 0.25F;
        bias[i] = static_cast<float>(i % 3) / 2.F - 0.5F;
    }
    Int8Case made;
    for (PluginCall* call : {&made.int8, &made.fp32})
    {
        call->name = "CustomSkipLayerNormPluginDynamic";
        call->version = version;
        call->fields.add("type_id", call == &made.int8 ? 2 : 0).add("ld", ld).add("beta", beta).add("gamma", gamma);
        call->fields.add("bias", bias);
    }
    Shape const shape{2, 3, ld, 1, 1};
    size_t const count = static_cast<size_t>(6 * ld);
    for (auto const& [values, scale] :
        {std::pair{int8Values(count, 37, 0), kInputScale}, std::pair{int8Values(count, 91, 3), kSkipScale}})
    {
        made.quantized.push_back(fromInts(shape, values, DataType::kINT8));
        std::vector<float> floats(count);
        for (size_t i = 0; i < count; ++i)
        {
            floats[i] = static_cast<float>(values[i]) * scale; // exact: a power of two times a small integer
        }
        made.dequantized.push_back(fromFloats(shape, floats));
    }
    return made;
}

TEST(SkipLayerNormPlugin, Int8IsTheFp32FormOnDequantizedValuesQuantizedByHand)
{
    // ld = 20 reads and writes kCHW4 (rows padded to 20), ld = 40 kCHW32 (rows padded to 64): Kiln reformats the
    // network's linear INT8 tensors into the plugin's layout and back.
    for (int32_t ld : {20, 40})
    {
        for (char const* version : {"1", "5"})
        {
            SCOPED_TRACE(std::string(version) + " ld " + std::to_string(ld));
            Int8Case made = int8Case(version, ld);
            std::vector<HostTensor> const fp32 = runPlugin(kiln::Backend::kCPU, made.fp32, made.dequantized);
            std::vector<HostTensor> const int8 = runInt8Plugin(kiln::Backend::kCPU, made.int8, made.quantized, kScales);
            ASSERT_EQ(fp32.size(), 1U);
            ASSERT_EQ(int8.size(), 1U);
            EXPECT_EQ(int8[0].type, DataType::kINT8);
            std::vector<float> const y = fp32[0].floats();
            std::vector<int64_t> expected(y.size());
            size_t saturated = 0;
            for (size_t i = 0; i < y.size(); ++i)
            {
                double const rounded = std::nearbyint(static_cast<double>(y[i] / kOutputScale)); // ties to even
                expected[i] = static_cast<int64_t>(std::clamp(rounded, -128.0, 127.0));
                saturated += rounded != static_cast<double>(expected[i]) ? 1 : 0;
            }
            EXPECT_GT(saturated, 0U); // the case reaches the ends of INT8's range
            EXPECT_EQ(int8[0].ints(), expected);
        }
    }
}

TEST(SkipLayerNormPlugin, Int8WithoutScalesIsAnErrorSayingWhy)
{
    Int8Case made = int8Case("1", 8);
    std::string errors;
    std::vector<HostTensor> const out = runPlugin(kiln::Backend::kCPU, made.int8, made.quantized, false, &errors);
    EXPECT_TRUE(out.empty());
    EXPECT_NE(errors.find("the INT8 tensor 'input' has no scale"), std::string::npos) << errors;
}

TEST(SkipLayerNormPlugin, Int8CudaMatchesTheCpu)
{
    SKIP_WITHOUT_GPU();
    for (int32_t ld : {20, 40, 1000})
    {
        for (char const* version : {"1", "5"})
        {
            SCOPED_TRACE(std::string(version) + " ld " + std::to_string(ld));
            Int8Case made = int8Case(version, ld);
            std::vector<HostTensor> const cpu = runInt8Plugin(kiln::Backend::kCPU, made.int8, made.quantized, kScales);
            std::vector<HostTensor> const cuda
                = runInt8Plugin(kiln::Backend::kCUDA, made.int8, made.quantized, kScales);
            ASSERT_EQ(cpu.size(), 1U);
            ASSERT_EQ(cuda.size(), 1U);
            std::vector<int64_t> const want = cpu[0].ints();
            std::vector<int64_t> const got = cuda[0].ints();
            ASSERT_EQ(got.size(), want.size());
            for (size_t i = 0; i < got.size(); ++i)
            {
                // Float sums in another order may move a value across a rounding boundary: one step at most.
                EXPECT_LE(std::abs(got[i] - want[i]), 1) << "element " << i;
            }
        }
    }
}

TEST(SkipLayerNormPlugin, BadFieldsAreErrorsNamingPluginFieldAndValue)
{
    PluginCall missing{"CustomSkipLayerNormPluginDynamic", "1", {}};
    missing.fields.add("type_id", 0).add("ld", 4).add("beta", std::vector<float>(4, 0.F));
    EXPECT_NE(creationErrors(missing).find("CustomSkipLayerNormPluginDynamic: the required field 'gamma' is missing"),
        std::string::npos);

    PluginCall int4 = skipLayerNorm("1", 3, false);
    EXPECT_NE(
        creationErrors(int4).find("field 'type_id' is 3; expected 0 (FP32), 1 (FP16) or 2 (INT8)"), std::string::npos);

    PluginCall wrongLength = skipLayerNorm("5", 0, false);
    wrongLength.fields.add("bias", std::vector<float>{1.F, 2.F});
    EXPECT_NE(creationErrors(wrongLength).find("field 'bias' holds 2 values; expected ld = 4"), std::string::npos);

    PluginCall wrongType{"CustomSkipLayerNormPluginDynamic", "1", {}};
    wrongType.fields.add("type_id", 0).add("ld", 4.5F);
    EXPECT_NE(creationErrors(wrongType).find("field 'ld' holds kFLOAT32 data; expected integers"), std::string::npos)
        << creationErrors(wrongType);
}

} // namespace
} // namespace kiln::test
