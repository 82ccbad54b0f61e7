#include "skip_layer_norm_plugin.h"

#include "api/plugin_collection.h"
#include "common/creators.h"
#include "common/shape_checks.h"
#include "common/formats.h"
#include "common/host_values.h"
#include "common/int8_scales.h"
#include "common/layer_norm_host.h"

#include "device_common/vector_layout.h"

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

//! The vector-major format of the INT8 tensors, as NVIDIA's plugin picks it: kCHW32, or kCHW4 for a hidden size
//! below 32.
TensorFormat int8Format(SkipLayerNormParams const& params)
{
    return params.ld < 32 ? TensorFormat::kCHW4 : TensorFormat::kCHW32;
}

//! Where the rows of an INT8 [S, B, E, 1, 1] tensor lie: E is the vectorized axis, so each row holds E values
//! padded to a multiple of the vector width.
VectorLayout int8Rows(SkipLayerNormParams const& params, Dims const& dims)
{
    int64_t const width = int8Format(params) == TensorFormat::kCHW4 ? 4 : 32;
    return VectorLayout{dims.d[0] * dims.d[1], params.ld, 1, width};
}

//! The INT8 form on the host: each row dequantized (input and skip with their scales), bias added, normalized as the
//! FP32 form does, and quantized with the output's scale.
void runHostInt8(SkipLayerNormParams const& params, PluginTensors const& io)
{
    float const inputScale = int8Scale(SkipLayerNormCore::kName, io.inputDesc[0], "input");
    float const skipScale = int8Scale(SkipLayerNormCore::kName, io.inputDesc[1], "skip");
    float const outputScale = int8Scale(SkipLayerNormCore::kName, io.outputDesc[0], "output");
    VectorLayout const rows = int8Rows(params, io.inputDesc[0].dims);
    auto const* input = io.input<int8_t>(0);
    auto const* skip = io.input<int8_t>(1);
    auto* output = io.output<int8_t>(0);
    std::vector<float> row(static_cast<size_t>(params.ld));
    for (int64_t r = 0; r < rows.outer; ++r)
    {
        for (int64_t e = 0; e < params.ld; ++e)
        {
            int64_t const at = rows.offset(r, e, 0);
            // Added in the FP32 form's order, so that the INT8 form computes what the FP32 form does on the
            // dequantized values.
            float const skipped = static_cast<float>(skip[at]) * skipScale;
            row[e]
                = static_cast<float>(input[at]) * inputScale + (skipped + (params.bias.empty() ? 0.F : params.bias[e]));
        }
        layerNormRow(row.data(), params.ld, params.gamma.data(), params.beta.data(), kBertLayerNormEpsilon);
        for (int64_t e = 0; e < rows.channels; ++e)
        {
            output[rows.offset(r, e, 0)] = quantizeInt8(row[e], outputScale);
        }
    }
}

} // namespace

void SkipLayerNormCore::check(Params const& params)
{
    if (params.typeId != 0 && params.typeId != 1 && params.typeId != 2)
    {
        throw PluginError(
            fieldError("type_id", "is " + std::to_string(params.typeId) + "; expected 0 (FP32), 1 (FP16) or 2 (INT8)"));
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
    // type_id fixes the precision and the format, as in NVIDIA's plugin; skip and output follow the input.
    if (params.typeId == 2)
    {
        return inOut[pos].type == DataType::kINT8 && inOut[pos].format == int8Format(params);
    }
    return isLinearOf(inOut[pos], {params.typeId == 1 ? DataType::kHALF : DataType::kFLOAT});
}

void SkipLayerNormCore::runHost(Params const& params, PluginTensors const& io) const
{
    checkRunShapes(params, io);
    if (params.typeId == 2)
    {
        runHostInt8(params, io);
        return;
    }
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
    if (params.typeId == 2)
    {
        VectorLayout const layout = int8Rows(params, io.inputDesc[0].dims);
        Int8Scales const scales{int8Scale(kName, io.inputDesc[0], "input"), int8Scale(kName, io.inputDesc[1], "skip"),
            int8Scale(kName, io.outputDesc[0], "output")};
        checkCuda(kName,
            launchSkipLayerNormInt8(io.input<int8_t>(0), io.input<int8_t>(1), io.output<int8_t>(0), gamma, beta, bias,
                rows, params.ld, layout.vectors() * layout.width, scales, kBertLayerNormEpsilon, stream));
        return;
    }
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
