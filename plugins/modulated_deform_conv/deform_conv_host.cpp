// ModulatedDeformConv2d on the host: each image's columns matrix (deform_conv_math.h), then per group the product
// weight [O / group, C / group * KH * KW] x columns, accumulated in double.
#include "deform_conv_math.h"

#include "common/host_values.h"

namespace kiln::plugins
{

void runDeformConvHost(DeformConvShape const& s, PluginTensors const& io)
{
    std::vector<float> const x = readFloats(io.inputDesc[0], io.inputs[0]);
    std::vector<float> const offset = readFloats(io.inputDesc[1], io.inputs[1]);
    std::vector<float> const mask = readFloats(io.inputDesc[2], io.inputs[2]);
    std::vector<float> const weight = readFloats(io.inputDesc[3], io.inputs[3]);
    std::vector<float> const bias = s.hasBias ? readFloats(io.inputDesc[4], io.inputs[4]) : std::vector<float>{};
    int64_t const taps = s.kernelH * s.kernelW;
    int64_t const plane = s.outH * s.outW;
    int64_t const rowsPerGroup = s.inChannels / s.group * taps;
    int64_t const outPerGroup = s.outChannels / s.group;
    if (s.batch == 0 || plane == 0)
    {
        return; // no output element: the columns of an image that is not there need no memory
    }
    std::vector<float> columns(static_cast<size_t>(s.inChannels * taps * plane));
    std::vector<double> sums(static_cast<size_t>(plane));
    std::vector<float> out(static_cast<size_t>(s.batch * s.outChannels * plane));
    for (int64_t n = 0; n < s.batch; ++n)
    {
        for (int64_t row = 0; row < s.inChannels * taps; ++row)
        {
            for (int64_t p = 0; p < plane; ++p)
            {
                columns[row * plane + p]
                    = deformColumn(s, x.data(), offset.data(), mask.data(), n, row / taps, row % taps, p);
            }
        }
        for (int64_t o = 0; o < s.outChannels; ++o)
        {
            int64_t const firstRow = (o / outPerGroup) * rowsPerGroup;
            std::fill(sums.begin(), sums.end(), bias.empty() ? 0.0 : static_cast<double>(bias[o]));
            for (int64_t k = 0; k < rowsPerGroup; ++k)
            {
                double const w = weight[o * rowsPerGroup + k];
                float const* column = columns.data() + (firstRow + k) * plane;
                for (int64_t p = 0; p < plane; ++p)
                {
                    sums[p] += w * column[p];
                }
            }
            for (int64_t p = 0; p < plane; ++p)
            {
                out[(n * s.outChannels + o) * plane + p] = static_cast<float>(sums[p]);
            }
        }
    }
    writeFloats(io.outputDesc[0], io.outputs[0], out);
}

} // namespace kiln::plugins
