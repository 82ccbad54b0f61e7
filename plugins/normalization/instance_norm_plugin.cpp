#include "instance_norm_plugin.h"

#include "api/plugin_collection.h"
#include "common/creators.h"

namespace kiln::plugins
{

using namespace nvinfer1;

int32_t InstanceNormPluginV3::getNbOutputs() const noexcept
{
    return 1;
}

int32_t InstanceNormPluginV3::getOutputDataTypes(
    DataType* outputTypes, int32_t /*nbOutputs*/, DataType const* inputTypes, int32_t /*nbInputs*/) const noexcept
{
    outputTypes[0] = inputTypes[0];
    return 0;
}

int32_t InstanceNormPluginV3::getOutputShapes(DimsExprs const* inputs, int32_t /*nbInputs*/,
    DimsExprs const* /*shapeInputs*/, int32_t /*nbShapeInputs*/, DimsExprs* outputs, int32_t /*nbOutputs*/,
    IExprBuilder& /*exprBuilder*/) noexcept
{
    outputs[0] = instanceNormOutputDims(mParams, inputs[0]);
    return outputs[0].nbDims < 0 ? 1 : 0;
}

bool InstanceNormPluginV3::supportsFormatCombination(
    int32_t pos, DynamicPluginTensorDesc const* inOut, int32_t /*nbInputs*/, int32_t /*nbOutputs*/) noexcept
{
    PluginTensorDesc const& desc = inOut[pos].desc;
    return isLinearOf(desc, {DataType::kFLOAT, DataType::kHALF}) && (pos == 0 || desc.type == inOut[0].desc.type);
}

void InstanceNormPluginV3::runHost(PluginTensors const& io) const
{
    runInstanceNormHost(mParams, io);
}

size_t InstanceNormPluginV3::getWorkspaceSize(DynamicPluginTensorDesc const* inputs, int32_t /*nbInputs*/,
    DynamicPluginTensorDesc const* /*outputs*/, int32_t /*nbOutputs*/) const noexcept
{
    return instanceNormWorkspaceSize(inputs[0].max); // enough for every shape the profile allows
}

void InstanceNormPluginV3::runDevice(PluginTensors const& io, cudaStream_t stream) const
{
    runInstanceNormDevice(mParams, mDeviceScales, mDeviceBias, io, stream);
}

} // namespace kiln::plugins

KILN_COLLECT_PLUGIN(kiln::plugins::V2PluginCreator<kiln::plugins::InstanceNormPluginV1>)
KILN_COLLECT_PLUGIN(kiln::plugins::V2PluginCreator<kiln::plugins::InstanceNormPluginV2>)
KILN_COLLECT_PLUGIN(kiln::plugins::V3PluginCreator<kiln::plugins::InstanceNormPluginV3>)
