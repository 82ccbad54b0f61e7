#include "skip_layer_norm_plugin.h"

#include "api/plugin_collection.h"
#include "common/creators.h"
#include "common/shape_checks.h"
#include "common/formats.h"
#include "common/host_values.h"
#include "common/layer_norm_host.h"

#ifdef KILN_WITH_CUDA
#include "common/cuda_check.h"
#include "skip_layer_norm_kernels.h"
#endif

namespace kiln::plugins
{

using namespace nvinfer1;

namespace
{

std::string fieldError(char const* field, std::string const& what)
{
    return std::string(SkipLayerNormCore::kName) + ": field '" + field + "' " + what;
}

//! Throws unless the run's tensors are [S, B, E, 1, 1] with E = ld, skip shaped like input.
void checkRunShapes(SkipLayerNormParams const& params, PluginTensors const& io)
{
    Dims const& input = io.inputDesc[0].dims;
    Dims const& skip = io.inputDesc[1].dims;
    bool const layoutOk = input.nbDims == 5 && input.d[2] == params.ld && input.d[3] == 1 && input.d[4] == 1;
    if (!layoutOk || shapeText(skip) != shapeText(input))
    {
        throw PluginError(std::string(SkipLayerNormCore::kName) + ": input " + shapeText(input) + " and skip "
            + shapeText(skip) + " must both be [S, B, E, 1, 1] with E = ld = " + std::to_string(params.ld));
    }
}

} // namespace

void SkipLayerNormCore::check(Params const& params)
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
    if (params.ld <= 0)
    {
        throw PluginError(fieldError("ld", "is " + std::to_string(params.ld) + "; expected the hidden size, > 0"));
    }
    auto const expectLd = [&](char const* field, std::vector<float> const& values, bool optional) {
        if (static_cast<int64_t>(values.size()) != params.ld && !(optional && values.empty()))
        {
            throw PluginError(fieldError(field,
                "holds " + std::to_string(values.size()) + " values; expected ld = " + std::to_string(params.ld)));
        }
    };
    expectLd("beta", params.beta, false);
    expectLd("gamma", params.gamma, false);
    expectLd("bias", params.bias, true);
}

DimsExprs SkipLayerNormCore::outputShape(
    Params const& params, int32_t /*index*/, DimsExprs const* inputs, int32_t nbInputs, IExprBuilder& /*builder*/)
{
    if (nbInputs != 2)
    {
        throw PluginError(std::string(kName) + ": takes 2 inputs (input, skip), was given " + std::to_string(nbInputs));
    }
    for (int32_t i = 0; i < 2; ++i)
    {
        DimsExprs const& dims = inputs[i];
        if (dims.nbDims != 5 || !mayEqual(dims.d[2], params.ld) || !mayEqual(dims.d[3], 1) || !mayEqual(dims.d[4], 1))
        {
            throw PluginError(std::string(kName) + ": input " + std::to_string(i) + " (rank "
                + std::to_string(dims.nbDims) + ") is not [S, B, E, 1, 1] with E = ld = " + std::to_string(params.ld));
        }
    }
    return inputs[0];
}

bool SkipLayerNormCore::supports(
    Params const& params, int32_t pos, PluginTensorDesc const* inOut, int32_t /*nbInputs*/, int32_t /*nbOutputs*/)
{
    // type_id fixes the precision, as in NVIDIA's plugin; skip and output follow the input.
    return isLinearOf(inOut[pos], {params.typeId == 1 ? DataType::kHALF : DataType::kFLOAT});
}

void SkipLayerNormCore::runHost(Params const& params, PluginTensors const& io) const
{
    checkRunShapes(params, io);
    std::vector<float> values = readFloats(io.inputDesc[0], io.inputs[0]);
    std::vector<float> const skip = readFloats(io.inputDesc[1], io.inputs[1]);
    auto const width = static_cast<size_t>(params.ld);
    for (size_t i = 0; i < values.size(); ++i)
    {
        values[i] += skip[i] + (params.bias.empty() ? 0.F : params.bias[i % width]);
    }
    for (size_t row = 0; row < values.size(); row += width)
    {
        layerNormRow(values.data() + row, params.ld, params.gamma.data(), params.beta.data(), kBertLayerNormEpsilon);
    }
    writeFloats(io.outputDesc[0], io.outputs[0], values);
}

void SkipLayerNormCore::runDevice(Params const& params, PluginTensors const& io, cudaStream_t stream) const
{
#ifdef KILN_WITH_CUDA
    checkRunShapes(params, io);
    float const* gamma = deviceGamma.get(kName, params.gamma);
    float const* beta = deviceBeta.get(kName, params.beta);
    float const* bias = deviceBias.get(kName, params.bias);
    int64_t const rows = volume(io.inputDesc[0].dims) / params.ld;
    checkCuda(kName,
        launchSkipLayerNorm(io.inputs[0], io.inputs[1], io.outputs[0], io.inputDesc[0].type == DataType::kHALF, gamma,
            beta, bias, rows, params.ld, kBertLayerNormEpsilon, stream));
#else
    (void) params;
    (void) io;
    (void) stream;
#endif
}

} // namespace kiln::plugins

KILN_COLLECT_PLUGIN(kiln::plugins::V2PluginCreator<kiln::plugins::TwinV2Plugin<kiln::plugins::SkipLayerNormCore>>)
KILN_COLLECT_PLUGIN(kiln::plugins::V3PluginCreator<kiln::plugins::TwinV3Plugin<kiln::plugins::SkipLayerNormCore>>)
