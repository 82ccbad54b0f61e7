#include "group_norm_math.h"

#include <algorithm>
#include <cmath>

namespace kiln::plugins
{

GroupNormShape groupNormShapeOf(nvinfer1::Dims const& dims, int64_t groups)
{
    GroupNormShape shape;
    shape.batch = dims.d[0];
    shape.channels = dims.d[1];
    shape.groups = groups;
    for (int32_t i = 2; i < dims.nbDims; ++i)
    {
        shape.spatial *= dims.d[i];
    }
    return shape;
}

GroupNormSplit groupNormSplit(GroupNormShape const& shape)
{
    int64_t const rows = shape.batch * shape.groups;
    int64_t const rowLength = shape.groups > 0 ? shape.channels / shape.groups * shape.spatial : 0;
    GroupNormSplit split;
    split.chunkLength = rowLength;
    if (rows > 0 && rows < GroupNormSplit::kRowsForOneBlockEach)
    {
        int64_t const wanted = (GroupNormSplit::kTargetBlocks + rows - 1) / rows;
        int64_t const most = (rowLength + GroupNormSplit::kMinChunkLength - 1) / GroupNormSplit::kMinChunkLength;
        split.chunks = std::max<int64_t>(1, std::min(wanted, most));
        split.chunkLength = (rowLength + split.chunks - 1) / split.chunks;
    }
    return split;
}

size_t groupNormWorkspaceSize(GroupNormShape const& shape)
{
    // rows * chunks <= rows * ceil(kTargetBlocks / rows) < rows + kTargetBlocks; three floats per chunk.
    int64_t const rows = shape.batch * shape.groups;
    return static_cast<size_t>(rows + GroupNormSplit::kTargetBlocks) * 3 * sizeof(float);
}

void groupNormHost(
    std::vector<float> const& x, std::vector<float>& y, GroupNormShape const& shape, GroupNormAffine const& affine)
{
    int64_t const channelsPerGroup = shape.channels / shape.groups;
    int64_t const rowLength = channelsPerGroup * shape.spatial;
    int64_t const rows = shape.batch * shape.groups;
    y.resize(x.size());
    for (int64_t row = 0; row < rows; ++row)
    {
        float const* in = x.data() + row * rowLength;
        float* out = y.data() + row * rowLength;
        // Two passes (mean, then squared deviations) keep the variance exact for rows far from zero.
        double sum = 0.0;
        for (int64_t i = 0; i < rowLength; ++i)
        {
            sum += in[i];
        }
        double const mean = rowLength > 0 ? sum / static_cast<double>(rowLength) : 0.0;
        double squares = 0.0;
        for (int64_t i = 0; i < rowLength; ++i)
        {
            double const deviation = in[i] - mean;
            squares += deviation * deviation;
        }
        double const variance = rowLength > 0 ? squares / static_cast<double>(rowLength) : 0.0;
        double const invStd = 1.0 / std::sqrt(variance + static_cast<double>(affine.epsilon));
        int64_t const firstChannel = (row % shape.groups) * channelsPerGroup;
        for (int64_t i = 0; i < rowLength; ++i)
        {
            int64_t const channel = firstChannel + i / shape.spatial;
            double value = affine.scale[channel] * ((in[i] - mean) * invStd) + affine.bias[channel];
            if (affine.leakyRelu && value < 0.0)
            {
                value *= affine.alpha;
            }
            out[i] = static_cast<float>(value);
        }
    }
}

} // namespace kiln::plugins
