#include "deform_conv_plugin.h"

#include "deform_conv_device.h"

#include "api/plugin_collection.h"
#include "common/creators.h"

#include <vector>

namespace kiln::plugins
{

using namespace nvinfer1;

namespace
{

size_t workspaceFor(DeformConvParams const& params, PluginTensorDesc const* inputs, int32_t nbInputs)
{
    return guarded(kDeformConvName, "getWorkspaceSize", size_t{0}, [&] {
        return deformConvWorkspaceSize(deformConvShapeOf(params, inputs, nbInputs), inputs[0].type == DataType::kHALF);
    });
}

//! The shape of a run with `inputCount` inputs (as configurePlugin or onShapeChange said).
DeformConvShape runShape(DeformConvParams const& params, PluginTensors const& io, int32_t inputCount)
{
    if (inputCount != 4 && inputCount != 5)
    {
        throw PluginError(std::string(kDeformConvName) + ": run before configurePlugin told it its inputs");
    }
    return deformConvShapeOf(params, io.inputDesc, inputCount);
}

} // namespace

int32_t DeformConvPluginV1::getNbOutputs() const noexcept
{
    return 1;
}

DimsExprs DeformConvPluginV1::getOutputDimensions(
    int32_t /*outputIndex*/, DimsExprs const* inputs, int32_t nbInputs, IExprBuilder& /*exprBuilder*/) noexcept
{
    return deformConvOutputDims(mParams, inputs, nbInputs);
}

bool DeformConvPluginV1::supportsFormatCombination(
    int32_t pos, PluginTensorDesc const* inOut, int32_t /*nbInputs*/, int32_t /*nbOutputs*/) noexcept
{
    return deformConvSupports(inOut[pos], inOut[0]);
}

DataType DeformConvPluginV1::getOutputDataType(
    int32_t /*index*/, DataType const* inputTypes, int32_t /*nbInputs*/) const noexcept
{
    return inputTypes[0];
}

size_t DeformConvPluginV1::getWorkspaceSize(PluginTensorDesc const* inputs, int32_t nbInputs,
    PluginTensorDesc const* /*outputs*/, int32_t /*nbOutputs*/) const noexcept
{
    return workspaceFor(mParams, inputs, nbInputs);
}

void DeformConvPluginV1::configurePlugin(DynamicPluginTensorDesc const* /*in*/, int32_t nbInputs,
    DynamicPluginTensorDesc const* /*out*/, int32_t /*nbOutputs*/) noexcept
{
    mInputCount = nbInputs;
}

void DeformConvPluginV1::runHost(PluginTensors const& io) const
{
    runDeformConvHost(runShape(mParams, io, mInputCount), io);
}

void DeformConvPluginV1::runDevice(PluginTensors const& io, cudaStream_t stream) const
{
    runDeformConvDevice(runShape(mParams, io, mInputCount), mBlas, io, stream);
}

int32_t DeformConvPluginV2::getNbOutputs() const noexcept
{
    return 1;
}

int32_t DeformConvPluginV2::getOutputDataTypes(
    DataType* outputTypes, int32_t /*nbOutputs*/, DataType const* inputTypes, int32_t /*nbInputs*/) const noexcept
{
    outputTypes[0] = inputTypes[0];
    return 0;
}

int32_t DeformConvPluginV2::getOutputShapes(DimsExprs const* inputs, int32_t nbInputs, DimsExprs const* /*shapeInputs*/,
    int32_t /*nbShapeInputs*/, DimsExprs* outputs, int32_t /*nbOutputs*/, IExprBuilder& /*exprBuilder*/) noexcept
{
    outputs[0] = deformConvOutputDims(mParams, inputs, nbInputs);
    return outputs[0].nbDims < 0 ? 1 : 0;
}

bool DeformConvPluginV2::supportsFormatCombination(
    int32_t pos, DynamicPluginTensorDesc const* inOut, int32_t /*nbInputs*/, int32_t /*nbOutputs*/) noexcept
{
    return deformConvSupports(inOut[pos].desc, inOut[0].desc);
}

size_t DeformConvPluginV2::getWorkspaceSize(DynamicPluginTensorDesc const* inputs, int32_t nbInputs,
    DynamicPluginTensorDesc const* /*outputs*/, int32_t /*nbOutputs*/) const noexcept
{
    // The largest shape the engine allows needs the most workspace.
    std::vector<PluginTensorDesc> largest(static_cast<size_t>(nbInputs));
    for (int32_t i = 0; i < nbInputs; ++i)
    {
        largest[i] = inputs[i].desc;
        largest[i].dims = inputs[i].max;
    }
    return workspaceFor(mParams, largest.data(), nbInputs);
}

int32_t DeformConvPluginV2::configurePlugin(DynamicPluginTensorDesc const* /*in*/, int32_t nbInputs,
    DynamicPluginTensorDesc const* /*out*/, int32_t /*nbOutputs*/) noexcept
{
    mInputCount = nbInputs;
    return 0;
}

int32_t DeformConvPluginV2::onShapeChange(
    PluginTensorDesc const* /*in*/, int32_t nbInputs, PluginTensorDesc const* /*out*/, int32_t /*nbOutputs*/) noexcept
{
    mInputCount = nbInputs;
    return 0;
}

void DeformConvPluginV2::runHost(PluginTensors const& io) const
{
    runDeformConvHost(runShape(mParams, io, mInputCount), io);
}

void DeformConvPluginV2::runDevice(PluginTensors const& io, cudaStream_t stream) const
{
    runDeformConvDevice(runShape(mParams, io, mInputCount), mBlas, io, stream);
}

} // namespace kiln::plugins

KILN_COLLECT_PLUGIN(kiln::plugins::V2PluginCreator<kiln::plugins::DeformConvPluginV1>)
KILN_COLLECT_PLUGIN(kiln::plugins::V3PluginCreator<kiln::plugins::DeformConvPluginV2>)
