#include "emb_layer_norm_plugin.h"

#include "api/plugin_collection.h"
#include "common/creators.h"
#include "common/shape_checks.h"
#include "common/formats.h"
#include "common/host_values.h"
#include "common/layer_norm_host.h"

#ifdef KILN_WITH_CUDA
#include "common/cuda_check.h"
#include "emb_layer_norm_kernels.h"
#endif

#include <algorithm>

namespace kiln::plugins
{

using namespace nvinfer1;

namespace
{

std::string fieldError(char const* field, std::string const& what)
{
    return std::string(EmbLayerNormCore::kName) + ": field '" + field + "' " + what;
}

//! Throws unless the three id tensors of the run are [S, B] alike; returns {S, B}.
std::pair<int64_t, int64_t> runShape(EmbLayerNormParams const& params, PluginTensors const& io)
{
    Dims const& ids = io.inputDesc[0].dims;
    for (int32_t i = 0; i < 3; ++i)
    {
        if (ids.nbDims != 2 || shapeText(io.inputDesc[i].dims) != shapeText(ids))
        {
            throw PluginError(std::string(EmbLayerNormCore::kName) + ": token_id " + shapeText(ids) + ", segment_id "
                + shapeText(io.inputDesc[1].dims) + " and input_mask " + shapeText(io.inputDesc[2].dims)
                + " must all be [S, B]");
        }
    }
    int64_t const positions = static_cast<int64_t>(params.posEmbeddings.size()) / params.hidden();
    if (ids.d[0] > positions)
    {
        throw PluginError(std::string(EmbLayerNormCore::kName) + ": the sequence length " + std::to_string(ids.d[0])
            + " exceeds the " + std::to_string(positions) + " rows of bert_embeddings_position_embeddings");
    }
    return {ids.d[0], ids.d[1]};
}

} // namespace

void EmbLayerNormCore::check(Params const& params)
{
    if (params.mhaTypeId < 0 || params.mhaTypeId > 3)
    {
        throw PluginError(fieldError(
            "mha_type_id", "is " + std::to_string(params.mhaTypeId) + "; expected 0 (FP32), 1 (FP16), 2 (INT8) or 3"));
    }
    if (params.beta.empty())
    {
        throw PluginError(fieldError("bert_embeddings_layernorm_beta", "is empty; expected the hidden size E values"));
    }
    if (params.gamma.size() != params.beta.size())
    {
        throw PluginError(fieldError("bert_embeddings_layernorm_gamma",
            "holds " + std::to_string(params.gamma.size())
                + " values; expected E = " + std::to_string(params.beta.size()) + " (the length of the beta field)"));
    }
    auto const expectTable = [&](char const* field, std::vector<float> const& table) {
        if (table.empty() || table.size() % params.beta.size() != 0)
        {
            throw PluginError(fieldError(field,
                "holds " + std::to_string(table.size())
                    + " values; expected a non-empty multiple of E = " + std::to_string(params.beta.size())));
        }
    };
    expectTable("bert_embeddings_word_embeddings", params.wordEmbeddings);
    expectTable("bert_embeddings_token_type_embeddings", params.tokenEmbeddings);
    expectTable("bert_embeddings_position_embeddings", params.posEmbeddings);
}

DimsExprs EmbLayerNormCore::outputShape(
    Params const& params, int32_t index, DimsExprs const* inputs, int32_t nbInputs, IExprBuilder& builder)
{
    if (nbInputs != 3)
    {
        throw PluginError(std::string(kName) + ": takes 3 inputs (token_id, segment_id, input_mask), was given "
            + std::to_string(nbInputs));
    }
    for (int32_t i = 0; i < 3; ++i)
    {
        if (inputs[i].nbDims != 2)
        {
            throw PluginError(std::string(kName) + ": input " + std::to_string(i) + " has rank "
                + std::to_string(inputs[i].nbDims) + "; expected [S, B]");
        }
    }
    DimsExprs out{};
    if (index == 0)
    {
        out.nbDims = 5;
        out.d[0] = inputs[0].d[0];
        out.d[1] = inputs[0].d[1];
        out.d[2] = builder.constant(params.hidden());
        out.d[3] = builder.constant(1);
        out.d[4] = builder.constant(1);
        return out;
    }
    // The mask index in its unfused form, [B, 1]: NVIDIA's packed masks for its fused kernels are not produced.
    out.nbDims = 2;
    out.d[0] = inputs[0].d[1];
    out.d[1] = builder.constant(1);
    return out;
}

bool EmbLayerNormCore::supports(
    Params const& params, int32_t pos, PluginTensorDesc const* inOut, int32_t /*nbInputs*/, int32_t /*nbOutputs*/)
{
    if (pos == 3)
    {
        return isLinearOf(inOut[pos], {params.outputFp16 ? DataType::kHALF : DataType::kFLOAT});
    }
    return isLinearOf(inOut[pos], {DataType::kINT32});
}

DataType EmbLayerNormCore::outputType(Params const& params, int32_t index, DataType const* /*inputTypes*/)
{
    if (index == 0)
    {
        return params.outputFp16 ? DataType::kHALF : DataType::kFLOAT;
    }
    return DataType::kINT32;
}

size_t EmbLayerNormCore::workspaceSize(Params const& /*params*/, PluginTensorDesc const* /*inputs*/, int32_t /*nb*/)
{
    return 0;
}

void EmbLayerNormCore::runHost(Params const& params, PluginTensors const& io) const
{
    auto const [sequence, batch] = runShape(params, io);
    int64_t const hidden = params.hidden();
    int64_t const wordRows = static_cast<int64_t>(params.wordEmbeddings.size()) / hidden;
    int64_t const tokenRows = static_cast<int64_t>(params.tokenEmbeddings.size()) / hidden;
    auto const* wordIds = io.input<int32_t>(0);
    auto const* tokenIds = io.input<int32_t>(1);
    auto const* mask = io.input<int32_t>(2);
    std::vector<float> embedded(static_cast<size_t>(sequence * batch * hidden), 0.F);
    for (int64_t s = 0; s < sequence; ++s)
    {
        for (int64_t b = 0; b < batch; ++b)
        {
            int64_t const row = s * batch + b;
            int64_t const word = wordIds[row];
            int64_t const token = tokenIds[row];
            float* out = embedded.data() + row * hidden;
            // As NVIDIA's kernel does, an out-of-range id leaves the sum at zero (the row normalizes to beta).
            if (word >= 0 && word < wordRows && token >= 0 && token < tokenRows)
            {
                for (int64_t i = 0; i < hidden; ++i)
                {
                    out[i] = params.wordEmbeddings[word * hidden + i] + params.tokenEmbeddings[token * hidden + i]
                        + params.posEmbeddings[s * hidden + i];
                }
            }
            layerNormRow(out, hidden, params.gamma.data(), params.beta.data(), kBertLayerNormEpsilon);
        }
    }
    writeFloats(io.outputDesc[0], io.outputs[0], embedded);
    auto* maskIndex = io.output<int32_t>(1);
    for (int64_t b = 0; b < batch; ++b)
    {
        int64_t valid = 0; // the first masked position: masks are assumed contiguous from the start
        while (valid < sequence && mask[valid * batch + b] != 0)
        {
            ++valid;
        }
        maskIndex[b] = static_cast<int32_t>(valid);
    }
}

void EmbLayerNormCore::runDevice(Params const& params, PluginTensors const& io, cudaStream_t stream) const
{
#ifdef KILN_WITH_CUDA
    auto const [sequence, batch] = runShape(params, io);
    int64_t const hidden = params.hidden();
    EmbeddingTables const tables{deviceWord.get(kName, params.wordEmbeddings),
        deviceToken.get(kName, params.tokenEmbeddings), devicePosition.get(kName, params.posEmbeddings),
        deviceGamma.get(kName, params.gamma), deviceBeta.get(kName, params.beta),
        static_cast<int64_t>(params.wordEmbeddings.size()) / hidden,
        static_cast<int64_t>(params.tokenEmbeddings.size()) / hidden, hidden};
    checkCuda(kName,
        launchEmbLayerNorm(io.input<int32_t>(0), io.input<int32_t>(1), io.input<int32_t>(2), tables, io.outputs[0],
            io.output<int32_t>(1), io.outputDesc[0].type == DataType::kHALF, sequence, batch, kBertLayerNormEpsilon,
            stream));
#else
    (void) params;
    (void) io;
    (void) stream;
#endif
}

} // namespace kiln::plugins

KILN_COLLECT_PLUGIN(kiln::plugins::V2PluginCreator<kiln::plugins::TwinV2Plugin<kiln::plugins::EmbLayerNormCore>>)
KILN_COLLECT_PLUGIN(kiln::plugins::V3PluginCreator<kiln::plugins::TwinV3Plugin<kiln::plugins::EmbLayerNormCore>>)
