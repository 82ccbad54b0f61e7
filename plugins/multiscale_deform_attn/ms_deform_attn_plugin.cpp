#include "ms_deform_attn_plugin.h"

#include "api/plugin_collection.h"
#include "common/creators.h"

namespace kiln::plugins
{

using namespace nvinfer1;

int32_t MsDeformAttnPluginV1::getNbOutputs() const noexcept
{
    return 1;
}

DimsExprs MsDeformAttnPluginV1::getOutputDimensions(
    int32_t /*outputIndex*/, DimsExprs const* inputs, int32_t nbInputs, IExprBuilder& /*exprBuilder*/) noexcept
{
    return msDeformAttnOutputDims(inputs, nbInputs);
}

bool MsDeformAttnPluginV1::supportsFormatCombination(
    int32_t pos, PluginTensorDesc const* inOut, int32_t /*nbInputs*/, int32_t /*nbOutputs*/) noexcept
{
    return msDeformAttnSupports(pos, inOut[pos], inOut[0]);
}

DataType MsDeformAttnPluginV1::getOutputDataType(
    int32_t /*index*/, DataType const* inputTypes, int32_t /*nbInputs*/) const noexcept
{
    return inputTypes[0];
}

void MsDeformAttnPluginV1::runHost(PluginTensors const& io) const
{
    runMsDeformAttnHost(io);
}

void MsDeformAttnPluginV1::runDevice(PluginTensors const& io, cudaStream_t stream) const
{
    runMsDeformAttnDevice(io, stream);
}

int32_t MsDeformAttnPluginV2::getNbOutputs() const noexcept
{
    return 1;
}

int32_t MsDeformAttnPluginV2::getOutputDataTypes(
    DataType* outputTypes, int32_t /*nbOutputs*/, DataType const* inputTypes, int32_t /*nbInputs*/) const noexcept
{
    outputTypes[0] = inputTypes[0];
    return 0;
}

int32_t MsDeformAttnPluginV2::getOutputShapes(DimsExprs const* inputs, int32_t nbInputs,
    DimsExprs const* /*shapeInputs*/, int32_t /*nbShapeInputs*/, DimsExprs* outputs, int32_t /*nbOutputs*/,
    IExprBuilder& /*exprBuilder*/) noexcept
{
    outputs[0] = msDeformAttnOutputDims(inputs, nbInputs);
    return outputs[0].nbDims < 0 ? 1 : 0;
}

bool MsDeformAttnPluginV2::supportsFormatCombination(
    int32_t pos, DynamicPluginTensorDesc const* inOut, int32_t /*nbInputs*/, int32_t /*nbOutputs*/) noexcept
{
    return msDeformAttnSupports(pos, inOut[pos].desc, inOut[0].desc);
}

void MsDeformAttnPluginV2::runHost(PluginTensors const& io) const
{
    runMsDeformAttnHost(io);
}

void MsDeformAttnPluginV2::runDevice(PluginTensors const& io, cudaStream_t stream) const
{
    runMsDeformAttnDevice(io, stream);
}

} // namespace kiln::plugins

KILN_COLLECT_PLUGIN(kiln::plugins::V2PluginCreator<kiln::plugins::MsDeformAttnPluginV1>)
KILN_COLLECT_PLUGIN(kiln::plugins::V3PluginCreator<kiln::plugins::MsDeformAttnPluginV2>)
