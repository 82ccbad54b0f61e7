#include "qkv_to_context_plugin.h"

#include "api/plugin_collection.h"
#include "common/creators.h"
#include "common/shape_checks.h"
#include "common/formats.h"
#include "common/host_values.h"

#ifdef KILN_WITH_CUDA
#include "qkv_to_context_kernels.h"
#endif

#include <algorithm>
#include <cmath>

namespace kiln::plugins
{

using namespace nvinfer1;

namespace
{

std::string fieldError(char const* field, std::string const& what)
{
    return std::string(QkvToContextCore::kName) + ": field '" + field + "' " + what;
}

//! Throws unless the run's input is [S, B, 3E, 1, 1] and the mask (if any) holds B values; returns {S, B}.
std::pair<int64_t, int64_t> runShape(QkvToContextParams const& params, PluginTensors const& io)
{
    Dims const& qkv = io.inputDesc[0].dims;
    if (qkv.nbDims != 5 || qkv.d[2] != 3 * static_cast<int64_t>(params.hiddenSize) || qkv.d[3] != 1 || qkv.d[4] != 1)
    {
        throw PluginError(std::string(QkvToContextCore::kName) + ": input " + shapeText(qkv)
            + " is not [S, B, 3E, 1, 1] with E = hidden_size = " + std::to_string(params.hiddenSize));
    }
    if (params.hasMask && volume(io.inputDesc[1].dims) != qkv.d[1])
    {
        throw PluginError(std::string(QkvToContextCore::kName) + ": input_mask " + shapeText(io.inputDesc[1].dims)
            + " does not hold one valid length for each of the B = " + std::to_string(qkv.d[1]) + " sequences");
    }
    return {qkv.d[0], qkv.d[1]};
}

} // namespace

void QkvToContextCore::check(Params const& params)
{
    if (params.typeId == 2)
    {
        throw PluginError(fieldError("type_id", "is 2 (INT8), which Kiln's plugin does not support; use 0 or 1"));
    }
    if (params.typeId != 0 && params.typeId != 1)
    {
        throw PluginError(
            fieldError("type_id", "is " + std::to_string(params.typeId) + "; expected 0 (FP32) or 1 (FP16)"));
    }
    if (params.numHeads <= 0)
    {
        throw PluginError(fieldError("num_heads", "is " + std::to_string(params.numHeads) + "; expected > 0"));
    }
    if (params.hiddenSize <= 0 || params.hiddenSize % params.numHeads != 0)
    {
        throw PluginError(fieldError("hidden_size",
            "is " + std::to_string(params.hiddenSize)
                + "; expected a positive multiple of num_heads = " + std::to_string(params.numHeads)));
    }
}

DimsExprs QkvToContextCore::outputShape(
    Params const& params, int32_t /*index*/, DimsExprs const* inputs, int32_t nbInputs, IExprBuilder& builder)
{
    int32_t const expected = params.hasMask ? 2 : 1;
    if (nbInputs != expected)
    {
        throw PluginError(std::string(kName) + ": takes " + std::to_string(expected) + " input(s) with has_mask = "
            + std::to_string(params.hasMask ? 1 : 0) + ", was given " + std::to_string(nbInputs));
    }
    DimsExprs const& qkv = inputs[0];
    if (qkv.nbDims != 5 || !mayEqual(qkv.d[2], 3 * static_cast<int64_t>(params.hiddenSize)) || !mayEqual(qkv.d[3], 1)
        || !mayEqual(qkv.d[4], 1))
    {
        throw PluginError(std::string(kName) + ": input 0 (rank " + std::to_string(qkv.nbDims)
            + ") is not [S, B, 3E, 1, 1] with E = hidden_size = " + std::to_string(params.hiddenSize));
    }
    DimsExprs out = qkv;
    out.d[2] = builder.constant(params.hiddenSize);
    return out;
}

bool QkvToContextCore::supports(
    Params const& params, int32_t pos, PluginTensorDesc const* inOut, int32_t nbInputs, int32_t /*nbOutputs*/)
{
    if (params.hasMask && pos == 1)
    {
        return isLinearOf(inOut[pos], {DataType::kINT32});
    }
    (void) nbInputs;
    // type_id fixes the precision of the QKV input and of the output, as in NVIDIA's plugin.
    return isLinearOf(inOut[pos], {params.typeId == 1 ? DataType::kHALF : DataType::kFLOAT});
}

size_t QkvToContextCore::workspaceSize(Params const& params, PluginTensorDesc const* inputs, int32_t /*nbInputs*/)
{
#ifdef KILN_WITH_CUDA
    Dims const& qkv = inputs[0].dims;
    return qkv.nbDims < 2 ? 0 : attentionWorkspaceBytes(qkv.d[0], qkv.d[1], params.numHeads);
#else
    (void) params;
    (void) inputs;
    return 0; // the host run keeps its scores in its own vectors
#endif
}

void QkvToContextCore::runHost(Params const& params, PluginTensors const& io) const
{
    // Named variables rather than a structured binding, which the lambda below could not capture under clang 14 (the
    // fuzzing build's compiler).
    std::pair<int64_t, int64_t> const shape = runShape(params, io);
    int64_t const sequence = shape.first;
    int64_t const batch = shape.second;
    int64_t const heads = params.numHeads;
    int64_t const headSize = params.hiddenSize / params.numHeads;
    int64_t const hidden = params.hiddenSize;
    std::vector<float> const qkv = readFloats(io.inputDesc[0], io.inputs[0]);
    std::vector<float> context(static_cast<size_t>(sequence * batch * hidden), 0.F);
    double const scale = 1.0 / std::sqrt(static_cast<double>(headSize));
    std::vector<double> weights(static_cast<size_t>(sequence));
    // Element h of part (0 Q, 1 K, 2 V) of head n of token (s, b): the layout is [S, B, N, 3, H].
    auto const at = [&](int64_t s, int64_t b, int64_t n, int64_t part, int64_t h) {
        return static_cast<double>(qkv[static_cast<size_t>((((s * batch + b) * heads + n) * 3 + part) * headSize + h)]);
    };
    for (int64_t b = 0; b < batch; ++b)
    {
        int64_t const valid = params.hasMask
            ? std::clamp<int64_t>(io.input<int32_t>(1)[b], 0, sequence) // a sequence's valid length
            : sequence;
        for (int64_t n = 0; n < heads; ++n)
        {
            for (int64_t q = 0; q < sequence && valid > 0; ++q)
            {
                double maximum = -INFINITY;
                for (int64_t k = 0; k < valid; ++k)
                {
                    double dot = 0.0;
                    for (int64_t h = 0; h < headSize; ++h)
                    {
                        dot += at(q, b, n, 0, h) * at(k, b, n, 1, h);
                    }
                    weights[k] = dot * scale;
                    maximum = std::max(maximum, weights[k]);
                }
                double sum = 0.0;
                for (int64_t k = 0; k < valid; ++k)
                {
                    weights[k] = std::exp(weights[k] - maximum);
                    sum += weights[k];
                }
                float* out = context.data() + (q * batch + b) * hidden + n * headSize;
                for (int64_t h = 0; h < headSize; ++h)
                {
                    double value = 0.0;
                    for (int64_t k = 0; k < valid; ++k)
                    {
                        value += weights[k] * at(k, b, n, 2, h);
                    }
                    out[h] = static_cast<float>(value / sum);
                }
            }
        }
    }
    writeFloats(io.outputDesc[0], io.outputs[0], context);
}

void QkvToContextCore::runDevice(Params const& params, PluginTensors const& io, cudaStream_t stream) const
{
#ifdef KILN_WITH_CUDA
    auto const [sequence, batch] = runShape(params, io);
    AttentionProblem const problem{sequence, batch, params.numHeads, params.hiddenSize / params.numHeads,
        io.inputDesc[0].type == DataType::kHALF, params.hasMask ? io.input<int32_t>(1) : nullptr};
    runAttention(kName, cublas, io.inputs[0], io.outputs[0], io.workspace, problem, stream);
#else
    (void) params;
    (void) io;
    (void) stream;
#endif
}

} // namespace kiln::plugins

KILN_COLLECT_PLUGIN(kiln::plugins::V2PluginCreator<kiln::plugins::TwinV2Plugin<kiln::plugins::QkvToContextCore>>)
KILN_COLLECT_PLUGIN(kiln::plugins::V3PluginCreator<kiln::plugins::TwinV3Plugin<kiln::plugins::QkvToContextCore>>)
