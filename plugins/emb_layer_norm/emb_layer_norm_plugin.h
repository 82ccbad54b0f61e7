// CustomEmbLayerNormPluginDynamic 1 (IPluginV2DynamicExt) and 4 (IPluginV3): BERT's embedding layer. Sums the word,
// token-type and position embeddings of each token, layer-normalizes the sum, and encodes the input mask as the
// number of valid tokens of each sequence.
#pragma once

#include "common/device_weights.h"
#include "common/twin_plugin.h"

#include <vector>

namespace kiln::plugins
{

struct EmbLayerNormParams
{
    bool outputFp16{false};             //!< the embedding output is FP16 (else FP32)
    bool fullMask{false};               //!< NVIDIA's packed mask for its fused attention; Kiln's output is the same
    int32_t mhaTypeId{0};               //!< the attention plugin's precision; only NVIDIA's mask packing uses it
    std::vector<float> beta;            //!< [E]
    std::vector<float> gamma;           //!< [E]
    std::vector<float> wordEmbeddings;  //!< [word vocabulary, E]
    std::vector<float> tokenEmbeddings; //!< [token type vocabulary, E]
    std::vector<float> posEmbeddings;   //!< [maximum sequence length, E]

    template <typename Visit>
    void visit(Visit&& field)
    {
        field("output_fp16", outputFp16, Need::kOPTIONAL);
        field("full_mask", fullMask, Need::kOPTIONAL);
        field("mha_type_id", mhaTypeId, Need::kOPTIONAL);
        field("bert_embeddings_layernorm_beta", beta, Need::kREQUIRED);
        field("bert_embeddings_layernorm_gamma", gamma, Need::kREQUIRED);
        field("bert_embeddings_word_embeddings", wordEmbeddings, Need::kREQUIRED);
        field("bert_embeddings_token_type_embeddings", tokenEmbeddings, Need::kREQUIRED);
        field("bert_embeddings_position_embeddings", posEmbeddings, Need::kREQUIRED);
    }

    int64_t hidden() const
    {
        return static_cast<int64_t>(beta.size());
    }
};

struct EmbLayerNormCore
{
    using Params = EmbLayerNormParams;
    static constexpr char const* kName = "CustomEmbLayerNormPluginDynamic";
    static constexpr char const* kV2Version = "1";
    static constexpr char const* kV3Version = "4";
    static constexpr int32_t kNbOutputs = 2;

    static void check(Params const& params);
    static nvinfer1::DimsExprs outputShape(Params const& params, int32_t index, nvinfer1::DimsExprs const* inputs,
        int32_t nbInputs, nvinfer1::IExprBuilder& builder);
    static bool supports(Params const& params, int32_t pos, nvinfer1::PluginTensorDesc const* inOut, int32_t nbInputs,
        int32_t nbOutputs);
    static nvinfer1::DataType outputType(Params const& params, int32_t index, nvinfer1::DataType const* inputTypes);
    static size_t workspaceSize(Params const& params, nvinfer1::PluginTensorDesc const* inputs, int32_t nbInputs);

    void runHost(Params const& params, PluginTensors const& io) const;
    void runDevice(Params const& params, PluginTensors const& io, cudaStream_t stream) const;

    DeviceWeights deviceBeta;
    DeviceWeights deviceGamma;
    DeviceWeights deviceWord;
    DeviceWeights deviceToken;
    DeviceWeights devicePosition;
};

} // namespace kiln::plugins
