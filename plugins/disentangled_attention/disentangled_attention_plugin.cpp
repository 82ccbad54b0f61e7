#include "disentangled_attention_plugin.h"

#include "relative_index.h"

#include "api/plugin_collection.h"
#include "common/creators.h"
#include "common/shape_checks.h"
#include "common/formats.h"
#include "common/host_values.h"

#ifdef KILN_WITH_CUDA
#include "common/cuda_check.h"
#include "disentangled_attention_kernels.h"
#endif

namespace kiln::plugins
{

using namespace nvinfer1;

namespace
{

//! Throws unless the run's data0 is [N, S, S] and data1, data2 are [N, S, 2 span]; returns {N, S}.
std::pair<int64_t, int64_t> runShape(DisentangledAttentionParams const& params, PluginTensors const& io)
{
    Dims const& c2c = io.inputDesc[0].dims;
    bool ok = c2c.nbDims == 3 && c2c.d[1] == c2c.d[2];
    for (int32_t i = 1; i < 3 && ok; ++i)
    {
        Dims const& relative = io.inputDesc[i].dims;
        ok = relative.nbDims == 3 && relative.d[0] == c2c.d[0] && relative.d[1] == c2c.d[1]
            && relative.d[2] == 2 * static_cast<int64_t>(params.span);
    }
    if (!ok)
    {
        throw PluginError(std::string(DisentangledAttentionCore::kName) + ": data0 " + shapeText(c2c) + ", data1 "
            + shapeText(io.inputDesc[1].dims) + " and data2 " + shapeText(io.inputDesc[2].dims)
            + " must be [N, S, S], [N, S, 2 span] and [N, S, 2 span] with span = " + std::to_string(params.span));
    }
    return {c2c.d[0], c2c.d[1]};
}

} // namespace

void DisentangledAttentionCore::check(Params const& params)
{
    if (params.span < 1)
    {
        throw PluginError(std::string(kName) + ": field 'span' is " + std::to_string(params.span) + "; expected >= 1");
    }
    if (!(params.factor >= 0.F))
    {
        throw PluginError(std::string(kName) + ": field 'factor' is " + std::to_string(params.factor)
            + "; expected >= 0 (1 / sqrt(3 d) for head size d)");
    }
}

DimsExprs DisentangledAttentionCore::outputShape(
    Params const& params, int32_t /*index*/, DimsExprs const* inputs, int32_t nbInputs, IExprBuilder& /*builder*/)
{
    if (nbInputs != 3)
    {
        throw PluginError(
            std::string(kName) + ": takes 3 inputs (data0, data1, data2), was given " + std::to_string(nbInputs));
    }
    for (int32_t i = 0; i < 3; ++i)
    {
        bool const relativeOk = i == 0 || mayEqual(inputs[i].d[2], 2 * static_cast<int64_t>(params.span));
        if (inputs[i].nbDims != 3 || !relativeOk)
        {
            throw PluginError(std::string(kName) + ": input " + std::to_string(i) + " (rank "
                + std::to_string(inputs[i].nbDims) + ") is not " + (i == 0 ? "[N, S, S]" : "[N, S, 2 span]")
                + " with span = " + std::to_string(params.span));
        }
    }
    return inputs[0];
}

bool DisentangledAttentionCore::supports(
    Params const& /*params*/, int32_t pos, PluginTensorDesc const* inOut, int32_t /*nbInputs*/, int32_t /*nbOutputs*/)
{
    return linearSameFloat(inOut, pos);
}

void DisentangledAttentionCore::runHost(Params const& params, PluginTensors const& io) const
{
    auto const [count, sequence] = runShape(params, io);
    int32_t const width = 2 * params.span;
    std::vector<float> result = readFloats(io.inputDesc[0], io.inputs[0]);
    std::vector<float> const c2p = readFloats(io.inputDesc[1], io.inputs[1]);
    std::vector<float> const p2c = readFloats(io.inputDesc[2], io.inputs[2]);
    for (int64_t i = 0; i < count; ++i)
    {
        for (int64_t q = 0; q < sequence; ++q)
        {
            for (int64_t k = 0; k < sequence; ++k)
            {
                int32_t const column = relativeColumn(static_cast<int32_t>(q - k), params.span, width);
                float& value = result[static_cast<size_t>((i * sequence + q) * sequence + k)];
                value = (value + c2p[static_cast<size_t>((i * sequence + q) * width + column)]
                            + p2c[static_cast<size_t>((i * sequence + k) * width + column)])
                    * params.factor;
            }
        }
    }
    writeFloats(io.outputDesc[0], io.outputs[0], result);
}

void DisentangledAttentionCore::runDevice(Params const& params, PluginTensors const& io, cudaStream_t stream) const
{
#ifdef KILN_WITH_CUDA
    auto const [count, sequence] = runShape(params, io);
    checkCuda(kName,
        launchDisentangledAttention(io.inputs[0], io.inputs[1], io.inputs[2], io.outputs[0],
            io.inputDesc[0].type == DataType::kHALF, count, sequence, 2 * params.span, params.span, params.factor,
            stream));
#else
    (void) params;
    (void) io;
    (void) stream;
#endif
}

} // namespace kiln::plugins

KILN_COLLECT_PLUGIN(
    kiln::plugins::V2PluginCreator<kiln::plugins::TwinV2Plugin<kiln::plugins::DisentangledAttentionCore>>)
KILN_COLLECT_PLUGIN(
    kiln::plugins::V3PluginCreator<kiln::plugins::TwinV3Plugin<kiln::plugins::DisentangledAttentionCore>>)
