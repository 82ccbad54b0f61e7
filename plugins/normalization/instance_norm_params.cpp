#include "instance_norm_params.h"

#include "group_norm_math.h"

#include "common/host_values.h"
#include "common/shape_checks.h"

#ifdef KILN_WITH_CUDA
#include "common/cuda_check.h"
#include "group_norm_kernels.h"
#endif

#include <sstream>

namespace kiln::plugins
{
namespace
{

GroupNormShape shapeOf(InstanceNormParams const& params, nvinfer1::Dims const& dims)
{
    std::string const error = instanceNormShapeError(params, dims.nbDims, dims.nbDims > 1 ? dims.d[1] : -1);
    if (!error.empty())
    {
        throw PluginError(error);
    }
    return groupNormShapeOf(dims, dims.d[1]);
}

GroupNormAffine affineOf(InstanceNormParams const& params, float const* scales, float const* bias)
{
    return GroupNormAffine{scales, bias, params.epsilon, params.relu > 0, params.alpha};
}

} // namespace

void checkInstanceNormParams(InstanceNormParams const& params)
{
    std::string const name = kInstanceNormName;
    if (!(params.epsilon >= 0.F))
    {
        std::ostringstream value;
        value << params.epsilon;
        throw PluginError(name + ": field 'epsilon' is " + value.str() + "; expected a value >= 0");
    }
    if (params.scales.empty())
    {
        throw PluginError(name + ": field 'scales' is empty; expected one value per channel");
    }
    if (params.bias.size() != params.scales.size())
    {
        throw PluginError(name + ": field 'bias' holds " + std::to_string(params.bias.size()) + " values but 'scales' "
            + std::to_string(params.scales.size()) + "; expected one of each per channel");
    }
}

std::string instanceNormShapeError(InstanceNormParams const& params, int32_t rank, int64_t channels)
{
    std::string const name = kInstanceNormName;
    if (rank < 3)
    {
        return name + ": the input has rank " + std::to_string(rank) + "; expected [N, C, spatial...] of rank >= 3";
    }
    if (channels >= 0 && channels != static_cast<int64_t>(params.scales.size()))
    {
        return name + ": the input has " + std::to_string(channels) + " channels but the fields 'scales' and 'bias' "
            + std::to_string(params.scales.size());
    }
    return "";
}

nvinfer1::DimsExprs instanceNormOutputDims(InstanceNormParams const& params, nvinfer1::DimsExprs const& input)
{
    int64_t const channels = input.nbDims > 1 && input.d[1]->isConstant() ? input.d[1]->getConstantValue()
                                                                          : int64_t{-1};
    std::string const error = instanceNormShapeError(params, input.nbDims, channels);
    return error.empty() ? input : invalidOutput(error);
}

void runInstanceNormHost(InstanceNormParams const& params, PluginTensors const& io)
{
    GroupNormShape const shape = shapeOf(params, io.inputDesc[0].dims);
    std::vector<float> const x = readFloats(io.inputDesc[0], io.inputs[0]);
    std::vector<float> y;
    groupNormHost(x, y, shape, affineOf(params, params.scales.data(), params.bias.data()));
    writeFloats(io.outputDesc[0], io.outputs[0], y);
}

size_t instanceNormWorkspaceSize(nvinfer1::Dims const& dims)
{
    return dims.nbDims >= 2 ? groupNormWorkspaceSize(groupNormShapeOf(dims, dims.d[1])) : 0;
}

void runInstanceNormDevice(InstanceNormParams const& params, DeviceWeights const& scales, DeviceWeights const& bias,
    PluginTensors const& io, cudaStream_t stream)
{
#ifdef KILN_WITH_CUDA
    GroupNormShape const shape = shapeOf(params, io.inputDesc[0].dims);
    GroupNormAffine const affine
        = affineOf(params, scales.get(kInstanceNormName, params.scales), bias.get(kInstanceNormName, params.bias));
    checkCuda(kInstanceNormName,
        launchGroupNorm(io.inputs[0], io.outputs[0], io.inputDesc[0].type == nvinfer1::DataType::kHALF, shape, affine,
            io.workspace, stream));
#else
    (void) params;
    (void) scales;
    (void) bias;
    (void) io;
    (void) stream;
#endif
}

} // namespace kiln::plugins
