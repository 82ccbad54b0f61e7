#include "ms_deform_attn_params.h"

#include "ms_deform_attn_math.h"

#include "common/formats.h"
#include "common/host_values.h"
#include "common/shape_checks.h"

#ifdef KILN_WITH_CUDA
#include "common/cuda_check.h"
#include "ms_deform_attn_kernels.h"
#endif

namespace kiln::plugins
{
namespace
{

std::string const kName = kMsDeformAttnName;

bool agree(int64_t a, int64_t b)
{
    return a < 0 || b < 0 || a == b;
}

} // namespace

std::string msDeformAttnShapeError(std::vector<std::vector<int64_t>> const& inputs)
{
    if (inputs.size() != 5)
    {
        return kName
            + ": takes 5 inputs (value, spatial_shapes, level_start_index, sampling_locations, "
              "attention_weights), not "
            + std::to_string(inputs.size());
    }
    char const* const names[]
        = {"value", "spatial_shapes", "level_start_index", "sampling_locations", "attention_weights"};
    size_t const ranks[] = {4, 2, 1, 6, 5};
    for (size_t i = 0; i < inputs.size(); ++i)
    {
        if (inputs[i].size() != ranks[i])
        {
            return kName + ": input " + names[i] + " has rank " + std::to_string(inputs[i].size()) + "; expected "
                + std::to_string(ranks[i]);
        }
    }
    auto const& value = inputs[0];
    auto const& locations = inputs[3];
    auto const& weights = inputs[4];
    int64_t const levels = inputs[1][0];
    if (!agree(inputs[1][1], 2) || !agree(locations[5], 2))
    {
        return kName + ": spatial_shapes must be [L, 2] and sampling_locations [N, Lq, M, L, P, 2]";
    }
    if (!agree(inputs[2][0], levels) || !agree(locations[3], levels) || !agree(weights[3], levels))
    {
        return kName
            + ": spatial_shapes, level_start_index, sampling_locations and attention_weights must agree on "
              "the number of levels L";
    }
    for (int32_t axis = 0; axis < 5; ++axis)
    {
        if (!agree(locations[axis], weights[axis]) && axis != 3)
        {
            return kName
                + ": sampling_locations [N, Lq, M, L, P, 2] and attention_weights [N, Lq, M, L, P] differ "
                  "in dimension "
                + std::to_string(axis);
        }
    }
    if (!agree(value[0], locations[0]) || !agree(value[2], locations[2]))
    {
        return kName + ": value [N, S, M, D] and sampling_locations [N, Lq, M, L, P, 2] differ in N or M";
    }
    return "";
}

nvinfer1::DimsExprs msDeformAttnOutputDims(nvinfer1::DimsExprs const* inputs, int32_t nbInputs)
{
    std::string const error = msDeformAttnShapeError(knownExtents(inputs, nbInputs));
    if (!error.empty())
    {
        return invalidOutput(error);
    }
    nvinfer1::DimsExprs output{};
    output.nbDims = 4;
    output.d[0] = inputs[0].d[0];
    output.d[1] = inputs[3].d[1];
    output.d[2] = inputs[0].d[2];
    output.d[3] = inputs[0].d[3];
    return output;
}

bool msDeformAttnSupports(int32_t pos, nvinfer1::PluginTensorDesc const& desc, nvinfer1::PluginTensorDesc const& value)
{
    if (pos == 1 || pos == 2)
    {
        return isLinearOf(desc, {nvinfer1::DataType::kINT32});
    }
    return isLinearOf(desc, {nvinfer1::DataType::kFLOAT, nvinfer1::DataType::kHALF}) && desc.type == value.type;
}

MsDeformAttnShape msDeformAttnShapeOf(nvinfer1::PluginTensorDesc const* inputs)
{
    std::vector<std::vector<int64_t>> const extents = checkedRunExtents(inputs, 5, msDeformAttnShapeError);
    MsDeformAttnShape shape;
    shape.batch = extents[0][0];
    shape.valueLength = extents[0][1];
    shape.heads = extents[0][2];
    shape.channels = extents[0][3];
    shape.levels = extents[1][0];
    shape.queries = extents[3][1];
    shape.points = extents[3][4];
    return shape;
}

void runMsDeformAttnHost(PluginTensors const& io)
{
    MsDeformAttnShape const s = msDeformAttnShapeOf(io.inputDesc);
    int32_t const* spatialShapes = io.input<int32_t>(1);
    int32_t const* levelStart = io.input<int32_t>(2);
    for (int64_t l = 0; l < s.levels; ++l)
    {
        int64_t const pixels = int64_t{spatialShapes[2 * l]} * spatialShapes[2 * l + 1];
        if (spatialShapes[2 * l] < 0 || spatialShapes[2 * l + 1] < 0 || levelStart[l] < 0
            || levelStart[l] + pixels > s.valueLength)
        {
            throw PluginError(kName + ": level " + std::to_string(l) + " (" + std::to_string(spatialShapes[2 * l])
                + " x " + std::to_string(spatialShapes[2 * l + 1]) + " from " + std::to_string(levelStart[l])
                + ") reaches past value's " + std::to_string(s.valueLength) + " pixels");
        }
    }
    std::vector<float> const value = readFloats(io.inputDesc[0], io.inputs[0]);
    std::vector<float> const locations = readFloats(io.inputDesc[3], io.inputs[3]);
    std::vector<float> const weights = readFloats(io.inputDesc[4], io.inputs[4]);
    std::vector<float> out(static_cast<size_t>(s.batch * s.queries * s.heads * s.channels));
    size_t i = 0;
    for (int64_t n = 0; n < s.batch; ++n)
    {
        for (int64_t q = 0; q < s.queries; ++q)
        {
            for (int64_t m = 0; m < s.heads; ++m)
            {
                for (int64_t d = 0; d < s.channels; ++d)
                {
                    out[i++] = msDeformAttnElement(
                        s, value.data(), spatialShapes, levelStart, locations.data(), weights.data(), n, q, m, d);
                }
            }
        }
    }
    writeFloats(io.outputDesc[0], io.outputs[0], out);
}

void runMsDeformAttnDevice(PluginTensors const& io, cudaStream_t stream)
{
#ifdef KILN_WITH_CUDA
    MsDeformAttnShape const s = msDeformAttnShapeOf(io.inputDesc);
    checkCuda(kMsDeformAttnName,
        launchMsDeformAttn(s, io.inputDesc[0].type == nvinfer1::DataType::kHALF, io.inputs[0], io.input<int32_t>(1),
            io.input<int32_t>(2), io.inputs[3], io.inputs[4], io.outputs[0], stream));
#else
    (void) io;
    (void) stream;
#endif
}

} // namespace kiln::plugins
