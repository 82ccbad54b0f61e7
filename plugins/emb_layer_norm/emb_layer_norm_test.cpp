// CustomEmbLayerNormPluginDynamic 1 (V2) and 4 (V3): the embedding against torch.nn.functional.layer_norm of the
// summed embedding rows (a per-token loop in torch, eps = FLT_EPSILON, values pasted here), the mask index against
// hand-counted masks, and CUDA against the CPU where a GPU is present.
#include "expect_close.h"
#include "plugin_harness.h"

namespace kiln::test
{
namespace
{

using nvinfer1::DataType;

HostTensor ids(Shape shape, std::vector<int64_t> const& values)
{
    return fromInts(std::move(shape), values, DataType::kINT32);
}

std::vector<float> const kWords{0.1F, 0.2F, 0.3F, 1.F, -1.F, 0.5F, 0.F, 2.F, -2.F, 0.7F, 0.1F, -0.3F};

// E = 3; 4 words, 2 token types, 4 positions. A negative outputFp16 leaves the field out.
PluginCall embLayerNorm(char const* version, int32_t outputFp16, std::vector<float> const& words = kWords)
{
    PluginCall call{"CustomEmbLayerNormPluginDynamic", version, {}};
    if (outputFp16 >= 0)
    {
        call.fields.add("output_fp16", outputFp16);
    }
    call.fields.add("bert_embeddings_layernorm_beta", std::vector<float>{0.1F, 0.F, -0.1F});
    call.fields.add("bert_embeddings_layernorm_gamma", std::vector<float>{1.5F, -0.5F, 1.F});
    call.fields.add("bert_embeddings_word_embeddings", words);
    call.fields.add("bert_embeddings_token_type_embeddings", std::vector<float>{0.F, 0.5F, 1.F, -0.5F, 0.25F, 0.F});
    call.fields.add("bert_embeddings_position_embeddings",
        std::vector<float>{0.01F, 0.02F, 0.03F, 0.3F, -0.2F, 0.1F, -1.F, 0.F, 1.F, 5.F, 5.F, 5.F});
    return call;
}

// [S = 3, B = 2] ids; sequence 0 has 2 valid tokens, sequence 1 all 3.
std::vector<HostTensor> inputs()
{
    return {ids({3, 2}, {1, 2, 3, 0, 2, 1}), ids({3, 2}, {0, 1, 1, 1, 0, 0}), ids({3, 2}, {1, 1, 1, 1, 0, 1})};
}

// layer_norm(word[id] + token[segment] + position[s], (3,), gamma, beta, eps) per token, by torch.
std::vector<float> const kTorchEmbedding{0.669359296F, 0.684796404F, 0.890019944F, -0.264243098F, -0.663984813F,
    -1.18514089F, 1.93711597F, 0.F, -1.32474398F, -1.92866832F, -0.159111241F, 0.934223065F, -1.42857395F,
    -0.679366202F, -0.439683101F, -0.662000736F, 0.444500429F, 1.29700135F};

TEST(EmbLayerNormPlugin, MatchesTorchEmbeddingPlusLayerNormBothVersions)
{
    for (char const* version : {"1", "4"})
    {
        SCOPED_TRACE(version);
        PluginCall call = embLayerNorm(version, 0);
        std::vector<HostTensor> const out = runPlugin(kiln::Backend::kCPU, call, inputs());
        ASSERT_EQ(out.size(), 2U);
        EXPECT_EQ(out[0].shape, (Shape{3, 2, 3, 1, 1}));
        EXPECT_EQ(out[0].type, DataType::kFLOAT);
        expectClose(out[0].floats(), kTorchEmbedding, 1e-5F);
        EXPECT_EQ(out[1].shape, (Shape{2, 1}));
        EXPECT_EQ(out[1].ints(), (std::vector<int64_t>{2, 3}));
    }
}

TEST(EmbLayerNormPlugin, WritesFp16WhenOutputFp16IsSet)
{
    PluginCall call = embLayerNorm("1", 1);
    std::vector<HostTensor> const out = runPlugin(kiln::Backend::kCPU, call, inputs(), true);
    ASSERT_EQ(out.size(), 2U);
    EXPECT_EQ(out[0].type, DataType::kHALF);
    expectClose(out[0].floats(), kTorchEmbedding, {2e-3, 2e-3});
}

TEST(EmbLayerNormPlugin, MaskIndexIsTheFirstMaskedPositionAndOutOfRangeIdsGiveBeta)
{
    PluginCall call = embLayerNorm("1", 0);
    // Masks by hand: sequence 0 all masked (0), sequence 1 valid up to position 1, sequence 2 all valid (3).
    // Word id 9 and token type -1 are out of range: those rows sum to zeros and normalize to beta.
    std::vector<HostTensor> const tensors{ids({3, 3}, {9, 0, 1, 1, 1, 1, 2, 2, 2}),
        ids({3, 3}, {0, -1, 0, 0, 0, 0, 0, 0, 0}), ids({3, 3}, {0, 1, 1, 0, 0, 1, 1, 0, 1})};
    std::vector<HostTensor> const out = runPlugin(kiln::Backend::kCPU, call, tensors);
    ASSERT_EQ(out.size(), 2U);
    EXPECT_EQ(out[1].ints(), (std::vector<int64_t>{0, 1, 3}));
    std::vector<float> const embedding = out[0].floats();
    expectClose(
        std::vector<float>(embedding.begin(), embedding.begin() + 6), {0.1F, 0.F, -0.1F, 0.1F, 0.F, -0.1F}, 1e-6F);
}

TEST(EmbLayerNormPlugin, RejectsSequencesLongerThanThePositionTable)
{
    PluginCall call = embLayerNorm("1", 0);
    std::vector<int64_t> const zeros(5, 0);
    std::string errors;
    std::vector<HostTensor> const out = runPlugin(
        kiln::Backend::kCPU, call, {ids({5, 1}, zeros), ids({5, 1}, zeros), ids({5, 1}, zeros)}, false, &errors);
    EXPECT_TRUE(out.empty());
    EXPECT_NE(errors.find("CustomEmbLayerNormPluginDynamic: the sequence length 5 exceeds the 4 rows of "
                          "bert_embeddings_position_embeddings"),
        std::string::npos)
        << errors;
}

TEST(EmbLayerNormPlugin, CudaMatchesTheCpu)
{
    SKIP_WITHOUT_GPU();
    int32_t constexpr kVocabulary = 50;
    int32_t constexpr kSequence = 40;
    int32_t constexpr kBatch = 3;
    std::vector<int64_t> words(kSequence * kBatch);
    std::vector<int64_t> tokens(words.size());
    std::vector<int64_t> mask(words.size());
    for (size_t i = 0; i < words.size(); ++i)
    {
        words[i] = static_cast<int64_t>((i * 13) % kVocabulary);
        tokens[i] = static_cast<int64_t>(i % 2);
        mask[i] = i / kBatch < 10 + 10 * (i % kBatch) ? 1 : 0;
    }
    words[5] = kVocabulary + 3; // out of range: the sum is zeros and the row normalizes to beta
    words[7] = -1;
    // 768 takes the kernel with a warp per token, the row in registers, in FP32 and FP16; 300 takes it in FP32 (75
    // vectors of 4, the last of three per lane partly outside the row) and the kernel with a block per token in FP16
    // (not a whole number of 8-value vectors).
    for (int32_t hidden : {300, 768})
    {
        auto table = [hidden](int32_t rows, int32_t salt) {
            std::vector<float> values(static_cast<size_t>(rows) * hidden);
            for (size_t i = 0; i < values.size(); ++i)
            {
                values[i] = static_cast<float>(static_cast<int64_t>((i * salt) % 211) - 105) / 70.F;
            }
            return values;
        };
        for (char const* version : {"1", "4"})
        {
            for (int32_t fp16 : {0, 1})
            {
                SCOPED_TRACE(std::string(version) + " output_fp16 " + std::to_string(fp16) + " hidden "
                    + std::to_string(hidden));
                PluginCall call{"CustomEmbLayerNormPluginDynamic", version, {}};
                call.fields.add("output_fp16", fp16);
                call.fields.add("bert_embeddings_layernorm_beta", table(1, 3));
                call.fields.add("bert_embeddings_layernorm_gamma", table(1, 5));
                call.fields.add("bert_embeddings_word_embeddings", table(kVocabulary, 7));
                call.fields.add("bert_embeddings_token_type_embeddings", table(2, 11));
                call.fields.add("bert_embeddings_position_embeddings", table(64, 17));
                std::vector<HostTensor> const tensors{
                    ids({kSequence, kBatch}, words), ids({kSequence, kBatch}, tokens), ids({kSequence, kBatch}, mask)};
                std::vector<HostTensor> const cpu = runPlugin(kiln::Backend::kCPU, call, tensors, fp16 == 1);
                std::vector<HostTensor> const cuda = runPlugin(kiln::Backend::kCUDA, call, tensors, fp16 == 1);
                ASSERT_EQ(cuda.size(), 2U);
                expectClose(
                    cuda[0].floats(), cpu[0].floats(), fp16 == 0 ? Tolerance{1e-5, 1e-5} : Tolerance{4e-3, 4e-3});
                EXPECT_EQ(cuda[1].ints(), (std::vector<int64_t>{10, 20, 30}));
                EXPECT_EQ(cpu[1].ints(), (std::vector<int64_t>{10, 20, 30}));
            }
        }
    }
}

TEST(EmbLayerNormPlugin, BadFieldsAreErrorsNamingPluginFieldAndValue)
{
    PluginCall missing{"CustomEmbLayerNormPluginDynamic", "1", {}};
    missing.fields.add("bert_embeddings_layernorm_beta", std::vector<float>{0.F});
    EXPECT_NE(creationErrors(missing).find(
                  "CustomEmbLayerNormPluginDynamic: the required field 'bert_embeddings_layernorm_gamma' is missing"),
        std::string::npos);

    PluginCall badMha = embLayerNorm("1", 0);
    badMha.fields.add("mha_type_id", 7);
    EXPECT_NE(creationErrors(badMha).find("field 'mha_type_id' is 7; expected 0 (FP32), 1 (FP16), 2 (INT8) or 3"),
        std::string::npos);

    PluginCall ragged = embLayerNorm("4", 0, {1.F, 2.F, 3.F, 4.F});
    EXPECT_NE(creationErrors(ragged).find(
                  "field 'bert_embeddings_word_embeddings' holds 4 values; expected a non-empty multiple of E = 3"),
        std::string::npos);

    PluginCall wrongType = embLayerNorm("1", -1);
    wrongType.fields.add("output_fp16", std::string("yes"));
    EXPECT_NE(
        creationErrors(wrongType).find("field 'output_fp16' holds kCHAR data; expected integers"), std::string::npos)
        << creationErrors(wrongType);
}

} // namespace
} // namespace kiln::test
