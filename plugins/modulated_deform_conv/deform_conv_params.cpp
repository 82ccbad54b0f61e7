#include "deform_conv_params.h"

#include "common/formats.h"
#include "common/shape_checks.h"

namespace kiln::plugins
{
namespace
{

std::string const kName = kDeformConvName;

void checkPair(char const* field, std::vector<int32_t> const& values, int32_t minimum)
{
    std::string const at = kName + ": field '" + field + "' ";
    if (values.size() != 2)
    {
        throw PluginError(at + "holds " + std::to_string(values.size()) + " values; expected 2 ([h, w])");
    }
    for (int32_t const value : values)
    {
        if (value < minimum)
        {
            throw PluginError(
                at + "holds " + std::to_string(value) + "; expected values >= " + std::to_string(minimum));
        }
    }
}

//! a == b where both are known (>= 0).
bool agree(int64_t a, int64_t b)
{
    return a < 0 || b < 0 || a == b;
}

std::string dimsText(std::vector<int64_t> const& dims)
{
    std::string text = "[";
    for (size_t i = 0; i < dims.size(); ++i)
    {
        text += (i > 0 ? ", " : "") + (dims[i] < 0 ? std::string("?") : std::to_string(dims[i]));
    }
    return text + "]";
}

} // namespace

void checkDeformConvParams(DeformConvParams const& params)
{
    checkPair("stride", params.stride, 1);
    checkPair("padding", params.padding, 0);
    checkPair("dilation", params.dilation, 1);
    if (params.group < 1)
    {
        throw PluginError(kName + ": field 'group' is " + std::to_string(params.group) + "; expected a value >= 1");
    }
    if (params.deformableGroup < 1)
    {
        throw PluginError(kName + ": field 'deformable_group' is " + std::to_string(params.deformableGroup)
            + "; expected a value >= 1");
    }
}

std::string deformConvShapeError(DeformConvParams const& params, std::vector<std::vector<int64_t>> const& inputs)
{
    if (inputs.size() != 4 && inputs.size() != 5)
    {
        return kName + ": takes 4 or 5 inputs (x, offset, mask, weight[, bias]), not " + std::to_string(inputs.size());
    }
    char const* const names[] = {"x", "offset", "mask", "weight", "bias"};
    for (size_t i = 0; i < inputs.size(); ++i)
    {
        size_t const rank = i == 4 ? 1 : 4;
        if (inputs[i].size() != rank)
        {
            return kName + ": input " + names[i] + " has rank " + std::to_string(inputs[i].size()) + "; expected "
                + std::to_string(rank);
        }
    }
    auto const& x = inputs[0];
    auto const& offset = inputs[1];
    auto const& mask = inputs[2];
    auto const& weight = inputs[3];
    int64_t const taps = weight[2] < 0 || weight[3] < 0 ? -1 : weight[2] * weight[3];
    int64_t const deformable = params.deformableGroup;
    auto const wrong = [&](std::string const& what) {
        return kName + ": " + what + " (x " + dimsText(x) + ", offset " + dimsText(offset) + ", mask " + dimsText(mask)
            + ", weight " + dimsText(weight) + ", group " + std::to_string(params.group) + ", deformable_group "
            + std::to_string(params.deformableGroup) + ")";
    };
    if (!agree(offset[0], x[0]) || !agree(mask[0], x[0]))
    {
        return wrong("x, offset and mask must have one batch size");
    }
    if (!agree(x[1], weight[1] < 0 ? -1 : weight[1] * params.group))
    {
        return wrong("x's channels must be weight's second dimension times 'group'");
    }
    if (weight[0] >= 0 && weight[0] % params.group != 0)
    {
        return wrong("'group' must divide the output channels (weight's first dimension)");
    }
    if (x[1] >= 0 && x[1] % deformable != 0)
    {
        return wrong("'deformable_group' must divide x's channels");
    }
    if (!agree(offset[1], taps < 0 ? -1 : 2 * deformable * taps))
    {
        return wrong("offset must have 2 * deformable_group * KH * KW channels");
    }
    if (!agree(mask[1], taps < 0 ? -1 : deformable * taps))
    {
        return wrong("mask must have deformable_group * KH * KW channels");
    }
    if (!agree(mask[2], offset[2]) || !agree(mask[3], offset[3]))
    {
        return wrong("offset and mask must have the output's height and width");
    }
    if (inputs.size() == 5 && !agree(inputs[4][0], weight[0]))
    {
        return wrong("bias must have one value per output channel, not " + std::to_string(inputs[4][0]));
    }
    return "";
}

nvinfer1::DimsExprs deformConvOutputDims(
    DeformConvParams const& params, nvinfer1::DimsExprs const* inputs, int32_t nbInputs)
{
    std::string const error = deformConvShapeError(params, knownExtents(inputs, nbInputs));
    if (!error.empty())
    {
        return invalidOutput(error);
    }
    nvinfer1::DimsExprs output{};
    output.nbDims = 4;
    output.d[0] = inputs[0].d[0];
    output.d[1] = inputs[3].d[0];
    output.d[2] = inputs[2].d[2];
    output.d[3] = inputs[2].d[3];
    return output;
}

bool deformConvSupports(nvinfer1::PluginTensorDesc const& desc, nvinfer1::PluginTensorDesc const& first)
{
    return isLinearOf(desc, {nvinfer1::DataType::kFLOAT, nvinfer1::DataType::kHALF}) && desc.type == first.type;
}

DeformConvShape deformConvShapeOf(
    DeformConvParams const& params, nvinfer1::PluginTensorDesc const* inputs, int32_t nbInputs)
{
    std::vector<std::vector<int64_t>> const extents
        = checkedRunExtents(inputs, nbInputs, [&](auto const& known) { return deformConvShapeError(params, known); });
    DeformConvShape shape;
    shape.batch = extents[0][0];
    shape.inChannels = extents[0][1];
    shape.height = extents[0][2];
    shape.width = extents[0][3];
    shape.outChannels = extents[3][0];
    shape.kernelH = extents[3][2];
    shape.kernelW = extents[3][3];
    shape.outH = extents[2][2];
    shape.outW = extents[2][3];
    shape.strideH = params.stride[0];
    shape.strideW = params.stride[1];
    shape.padH = params.padding[0];
    shape.padW = params.padding[1];
    shape.dilationH = params.dilation[0];
    shape.dilationW = params.dilation[1];
    shape.group = params.group;
    shape.deformableGroup = params.deformableGroup;
    shape.hasBias = nbInputs == 5;
    return shape;
}

} // namespace kiln::plugins
