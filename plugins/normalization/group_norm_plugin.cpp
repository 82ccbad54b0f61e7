#include "group_norm_plugin.h"

#include "group_norm_math.h"

#include "api/plugin_collection.h"
#include "common/creators.h"
#include "common/formats.h"
#include "common/host_values.h"
#include "common/shape_checks.h"

#ifdef KILN_WITH_CUDA
#include "common/cuda_check.h"
#include "group_norm_kernels.h"
#endif

#include <sstream>

namespace kiln::plugins
{

using namespace nvinfer1;

namespace
{

int64_t constantOr(IDimensionExpr const* expr, int64_t unknown)
{
    return expr->isConstant() ? expr->getConstantValue() : unknown;
}

//! "" when X has rank `rank` and `channels` channels (-1: not known yet), and scale and bias `scaleCount` and
//! `biasCount` elements in one dimension; else what is wrong.
std::string shapeError(GroupNormParams const& params, int32_t rank, int64_t channels, int32_t scaleRank,
    int64_t scaleCount, int32_t biasRank, int64_t biasCount)
{
    std::string const name = GroupNormPlugin::kName;
    if (rank < 2)
    {
        return name + ": input X has rank " + std::to_string(rank) + "; expected [N, C, spatial...]";
    }
    if (channels >= 0 && channels % params.numGroups != 0)
    {
        return name + ": input X has " + std::to_string(channels) + " channels, which 'num_groups' "
            + std::to_string(params.numGroups) + " does not divide";
    }
    auto const perChannelError = [&](char const* what, int32_t inRank, int64_t count) -> std::string {
        if (inRank == 1 && (channels < 0 || count < 0 || count == channels))
        {
            return "";
        }
        return name + ": input " + what + " must be [C] = [" + std::to_string(channels) + "]; it has rank "
            + std::to_string(inRank) + (inRank == 1 ? " and " + std::to_string(count) + " elements" : "");
    };
    std::string const scaleError = perChannelError("scale", scaleRank, scaleCount);
    if (!scaleError.empty())
    {
        return scaleError;
    }
    return perChannelError("bias", biasRank, biasCount);
}

GroupNormShape checkedShape(GroupNormParams const& params, PluginTensors const& io)
{
    Dims const& x = io.inputDesc[0].dims;
    std::string const error = shapeError(params, x.nbDims, x.nbDims > 1 ? x.d[1] : -1, io.inputDesc[1].dims.nbDims,
        volume(io.inputDesc[1].dims), io.inputDesc[2].dims.nbDims, volume(io.inputDesc[2].dims));
    if (!error.empty())
    {
        throw PluginError(error);
    }
    return groupNormShapeOf(x, params.numGroups);
}

} // namespace

void GroupNormPlugin::check(GroupNormParams const& params)
{
    if (!(params.eps >= 0.F))
    {
        std::ostringstream value;
        value << params.eps;
        throw PluginError(std::string(kName) + ": field 'eps' is " + value.str() + "; expected a value >= 0");
    }
    if (params.numGroups < 1)
    {
        throw PluginError(std::string(kName) + ": field 'num_groups' is " + std::to_string(params.numGroups)
            + "; expected a value >= 1");
    }
}

int32_t GroupNormPlugin::getNbOutputs() const noexcept
{
    return 1;
}

DimsExprs GroupNormPlugin::getOutputDimensions(
    int32_t /*outputIndex*/, DimsExprs const* inputs, int32_t nbInputs, IExprBuilder& /*exprBuilder*/) noexcept
{
    std::string error = nbInputs == 3
        ? ""
        : std::string(kName) + ": takes 3 inputs (X, scale, bias), not " + std::to_string(nbInputs);
    if (error.empty())
    {
        DimsExprs const& x = inputs[0];
        error = shapeError(mParams, x.nbDims, x.nbDims > 1 ? constantOr(x.d[1], -1) : -1, inputs[1].nbDims,
            inputs[1].nbDims == 1 ? constantOr(inputs[1].d[0], -1) : -1, inputs[2].nbDims,
            inputs[2].nbDims == 1 ? constantOr(inputs[2].d[0], -1) : -1);
    }
    return error.empty() ? inputs[0] : invalidOutput(error);
}

bool GroupNormPlugin::supportsFormatCombination(
    int32_t pos, PluginTensorDesc const* inOut, int32_t /*nbInputs*/, int32_t /*nbOutputs*/) noexcept
{
    // FP32 only, as NVIDIA's plugin.
    return isLinearOf(inOut[pos], {DataType::kFLOAT});
}

DataType GroupNormPlugin::getOutputDataType(
    int32_t /*index*/, DataType const* inputTypes, int32_t /*nbInputs*/) const noexcept
{
    return inputTypes[0];
}

size_t GroupNormPlugin::getWorkspaceSize(PluginTensorDesc const* inputs, int32_t /*nbInputs*/,
    PluginTensorDesc const* /*outputs*/, int32_t /*nbOutputs*/) const noexcept
{
    return inputs[0].dims.nbDims >= 2 ? groupNormWorkspaceSize(groupNormShapeOf(inputs[0].dims, mParams.numGroups)) : 0;
}

void GroupNormPlugin::runHost(PluginTensors const& io) const
{
    GroupNormShape const shape = checkedShape(mParams, io);
    std::vector<float> const x = readFloats(io.inputDesc[0], io.inputs[0]);
    std::vector<float> const scale = readFloats(io.inputDesc[1], io.inputs[1]);
    std::vector<float> const bias = readFloats(io.inputDesc[2], io.inputs[2]);
    std::vector<float> y;
    groupNormHost(x, y, shape, GroupNormAffine{scale.data(), bias.data(), mParams.eps, false, 0.F});
    writeFloats(io.outputDesc[0], io.outputs[0], y);
}

void GroupNormPlugin::runDevice(PluginTensors const& io, cudaStream_t stream) const
{
#ifdef KILN_WITH_CUDA
    GroupNormShape const shape = checkedShape(mParams, io);
    GroupNormAffine const affine{io.input<float>(1), io.input<float>(2), mParams.eps, false, 0.F};
    checkCuda(kName, launchGroupNorm(io.inputs[0], io.outputs[0], false, shape, affine, io.workspace, stream));
#else
    (void) io;
    (void) stream;
#endif
}

} // namespace kiln::plugins

KILN_COLLECT_PLUGIN(kiln::plugins::V2PluginCreator<kiln::plugins::GroupNormPlugin>)
