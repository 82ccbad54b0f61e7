// CustomQKVToContextPluginDynamic 1 (V2) and 4 (V3) against torch's scaled_dot_product_attention (the QKV tensor
// split per head as [S, B, N, 3, H], the mask as a boolean attn_mask over the first valid keys; values pasted here),
// on the CPU and, with a GPU, on CUDA against the CPU.
#include "expect_close.h"
#include "plugin_harness.h"

namespace kiln::test
{
namespace
{

using nvinfer1::DataType;

// S = 3, B = 2, N = 2 heads of H = 2: E = 4.
PluginCall qkvToContext(char const* version, int32_t typeId, bool hasMask)
{
    PluginCall call{"CustomQKVToContextPluginDynamic", version, {}};
    call.fields.add("type_id", typeId).add("hidden_size", 4).add("num_heads", 2).add("has_mask", hasMask ? 1 : 0);
    return call;
}

HostTensor qkvInput(DataType type = DataType::kFLOAT)
{
    std::vector<float> values(3 * 2 * 12);
    for (size_t i = 0; i < values.size(); ++i)
    {
        values[i] = static_cast<float>(static_cast<int64_t>((i * 7) % 23) - 11) / 10.F;
    }
    return fromFloats({3, 2, 12, 1, 1}, values, type);
}

// scaled_dot_product_attention(q, k, v), every key valid.
std::vector<float> const kTorchUnmasked{0.347978535F, -0.276809574F, -0.3F, 0.4F, -0.148680185F, -0.047806722F,
    -0.429417619F, -0.482379625F, 0.117357076F, -0.107606702F, -0.14654483F, 0.55345517F, -0.00654059483F, 0.33576461F,
    -0.351209396F, -0.0731196739F, -0.11747437F, 0.0273860293F, -0.386318347F, 0.313681653F, 0.12364635F, -0.13519044F,
    -0.158615512F, -0.582705986F};
// The same with sequence 0 attending to its first 2 keys and sequence 1 to its first key only.
std::vector<float> const kTorchMasked21{-0.266075361F, 0.433924639F, -0.449788732F, 0.250211268F, 0.9F, -0.7F, 0.5F,
    -1.1F, -0.341845357F, 0.358154643F, -0.69917011F, 0.000829889815F, 0.9F, -0.7F, 0.5F, -1.1F, -0.40937529F,
    0.29062471F, -0.772105548F, -0.0721055476F, 0.9F, -0.7F, 0.5F, -1.1F};

TEST(QkvToContextPlugin, MatchesTorchAttentionWithoutMaskBothVersions)
{
    for (char const* version : {"1", "4"})
    {
        SCOPED_TRACE(version);
        PluginCall call = qkvToContext(version, 0, false);
        std::vector<HostTensor> const out = runPlugin(kiln::Backend::kCPU, call, {qkvInput()});
        ASSERT_EQ(out.size(), 1U);
        EXPECT_EQ(out[0].shape, (Shape{3, 2, 4, 1, 1}));
        expectClose(out[0].floats(), kTorchUnmasked, 1e-5F);
    }
}

TEST(QkvToContextPlugin, AttendsOnlyToTheValidKeysTheMaskGives)
{
    for (char const* version : {"1", "4"})
    {
        SCOPED_TRACE(version);
        PluginCall call = qkvToContext(version, 0, true);
        std::vector<HostTensor> const out
            = runPlugin(kiln::Backend::kCPU, call, {qkvInput(), fromInts({2}, {2, 1}, DataType::kINT32)});
        ASSERT_EQ(out.size(), 1U);
        expectClose(out[0].floats(), kTorchMasked21, 1e-5F);
    }
}

TEST(QkvToContextPlugin, RunsInFp16WhenTypeIdIsOne)
{
    PluginCall call = qkvToContext("1", 1, true);
    // The [B, 1] mask CustomEmbLayerNormPluginDynamic writes is accepted as well as [B].
    std::vector<HostTensor> const out = runPlugin(
        kiln::Backend::kCPU, call, {qkvInput(DataType::kHALF), fromInts({2, 1}, {2, 1}, DataType::kINT32)}, true);
    ASSERT_EQ(out.size(), 1U);
    EXPECT_EQ(out[0].type, DataType::kHALF);
    expectClose(out[0].floats(), kTorchMasked21, {2e-3, 2e-3});
}

TEST(QkvToContextPlugin, RejectsAnInputThatIsNotThreeTimesTheHiddenSize)
{
    PluginCall call = qkvToContext("1", 0, false);
    std::string errors;
    std::vector<HostTensor> const out = runPlugin(
        kiln::Backend::kCPU, call, {fromFloats({3, 2, 8, 1, 1}, std::vector<float>(48, 0.F))}, false, &errors);
    EXPECT_TRUE(out.empty());
    EXPECT_NE(errors.find("CustomQKVToContextPluginDynamic: input 0 (rank 5) is not [S, B, 3E, 1, 1] with E = "
                          "hidden_size = 4"),
        std::string::npos)
        << errors;
}

TEST(QkvToContextPlugin, CudaMatchesTheCpu)
{
    SKIP_WITHOUT_GPU();
    int32_t constexpr kSequence = 37;
    int32_t constexpr kBatch = 3;
    int32_t constexpr kHeads = 4;
    int32_t constexpr kHidden = 64;
    std::vector<float> values(kSequence * kBatch * 3 * kHidden);
    for (size_t i = 0; i < values.size(); ++i)
    {
        values[i] = static_cast<float>(static_cast<int64_t>((i * 13) % 101) - 50) / 40.F;
    }
    for (char const* version : {"1", "4"})
    {
        for (int32_t typeId : {0, 1})
        {
            SCOPED_TRACE(std::string(version) + " type_id " + std::to_string(typeId));
            DataType const type = typeId == 0 ? DataType::kFLOAT : DataType::kHALF;
            PluginCall call{"CustomQKVToContextPluginDynamic", version, {}};
            call.fields.add("type_id", typeId).add("hidden_size", kHidden).add("num_heads", kHeads);
            call.fields.add("has_mask", 1);
            // Valid lengths: all, some, none (a row of zeros).
            std::vector<HostTensor> const tensors{fromFloats({kSequence, kBatch, 3 * kHidden, 1, 1}, values, type),
                fromInts({kBatch}, {kSequence, 20, 0}, DataType::kINT32)};
            std::vector<HostTensor> const cpu = runPlugin(kiln::Backend::kCPU, call, tensors, typeId == 1);
            std::vector<HostTensor> const cuda = runPlugin(kiln::Backend::kCUDA, call, tensors, typeId == 1);
            ASSERT_EQ(cuda.size(), 1U);
            expectClose(cuda[0].floats(), cpu[0].floats(), typeId == 0 ? Tolerance{1e-4, 1e-4} : Tolerance{5e-3, 5e-3});
        }
    }
}

TEST(QkvToContextPlugin, BadFieldsAreErrorsNamingPluginFieldAndValue)
{
    PluginCall missing{"CustomQKVToContextPluginDynamic", "1", {}};
    missing.fields.add("type_id", 0).add("hidden_size", 4).add("num_heads", 2);
    EXPECT_NE(creationErrors(missing).find("CustomQKVToContextPluginDynamic: the required field 'has_mask' is missing"),
        std::string::npos);

    PluginCall indivisible{"CustomQKVToContextPluginDynamic", "4", {}};
    indivisible.fields.add("type_id", 0).add("hidden_size", 10).add("num_heads", 4).add("has_mask", 0);
    EXPECT_NE(
        creationErrors(indivisible).find("field 'hidden_size' is 10; expected a positive multiple of num_heads = 4"),
        std::string::npos);

    PluginCall int8 = qkvToContext("1", 2, false);
    EXPECT_NE(creationErrors(int8).find("field 'type_id' is 2 (INT8)"), std::string::npos);

    PluginCall wrongType{"CustomQKVToContextPluginDynamic", "1", {}};
    wrongType.fields.add("type_id", 0).add("hidden_size", 4).add("num_heads", 2.F).add("has_mask", 0);
    EXPECT_NE(
        creationErrors(wrongType).find("field 'num_heads' holds kFLOAT32 data; expected integers"), std::string::npos);
}

} // namespace
} // namespace kiln::test
