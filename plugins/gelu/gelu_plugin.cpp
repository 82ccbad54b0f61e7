#include "gelu_plugin.h"

#include "api/plugin_collection.h"
#include "common/creators.h"
#include "common/formats.h"
#include "common/host_values.h"

#ifdef KILN_WITH_CUDA
#include "common/cuda_check.h"
#include "gelu_kernels.h"
#endif

#include <cmath>

namespace kiln::plugins
{

using namespace nvinfer1;

void GeluPlugin::check(GeluParams const& params)
{
    if (params.typeId != 0 && params.typeId != 1)
    {
        throw PluginError(std::string(kName) + ": field 'type_id' is " + std::to_string(params.typeId)
            + "; expected 0 (FP32) or 1 (FP16)");
    }
}

int32_t GeluPlugin::getNbOutputs() const noexcept
{
    return 1;
}

DimsExprs GeluPlugin::getOutputDimensions(
    int32_t /*outputIndex*/, DimsExprs const* inputs, int32_t /*nbInputs*/, IExprBuilder& /*exprBuilder*/) noexcept
{
    return inputs[0];
}

bool GeluPlugin::supportsFormatCombination(
    int32_t pos, PluginTensorDesc const* inOut, int32_t /*nbInputs*/, int32_t /*nbOutputs*/) noexcept
{
    // type_id fixes the precision, as in NVIDIA's plugin.
    return isLinearOf(inOut[pos], {mParams.typeId == 1 ? DataType::kHALF : DataType::kFLOAT});
}

DataType GeluPlugin::getOutputDataType(
    int32_t /*index*/, DataType const* inputTypes, int32_t /*nbInputs*/) const noexcept
{
    return inputTypes[0];
}

void GeluPlugin::runHost(PluginTensors const& io) const
{
    std::vector<float> values = readFloats(io.inputDesc[0], io.inputs[0]);
    std::vector<float> const& bias = mParams.bias;
    for (size_t i = 0; i < values.size(); ++i)
    {
        float const x = values[i] + (bias.empty() ? 0.F : bias[i % bias.size()]);
        values[i] = 0.5F * x * (1.F + std::tanh(0.7978845608028654F * (x + 0.044715F * x * x * x)));
    }
    writeFloats(io.outputDesc[0], io.outputs[0], values);
}

void GeluPlugin::runDevice(PluginTensors const& io, cudaStream_t stream) const
{
#ifdef KILN_WITH_CUDA
    float const* bias = mDeviceBias.get(kName, mParams.bias);
    checkCuda(kName,
        launchGelu(io.inputs[0], io.outputs[0], io.inputDesc[0].type == DataType::kHALF, bias,
            static_cast<int64_t>(mParams.bias.size()), volume(io.inputDesc[0].dims), stream));
#else
    (void) io;
    (void) stream;
#endif
}

} // namespace kiln::plugins

KILN_COLLECT_PLUGIN(kiln::plugins::V2PluginCreator<kiln::plugins::GeluPlugin>)
