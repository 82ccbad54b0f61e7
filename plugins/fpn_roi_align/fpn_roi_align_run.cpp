#include "fpn_roi_align_run.h"

#include "common/shape_checks.h"
#include "common/host_values.h"

#ifdef KILN_WITH_CUDA
#include "common/cuda_check.h"
#include "fpn_roi_align_kernels.h"
#endif

#include <string>
#include <vector>

namespace kiln::plugins::fpn
{

using namespace nvinfer1;

namespace
{

//! Each level's height and width, P2 first, from the descriptors with the batch axis.
void levelDims(PluginTensors const& io, RoiAlignRule const& rule, int32_t* dims)
{
    for (int32_t level = 0; level < rule.levels; ++level)
    {
        Dims const& map = io.inputDesc[1 + level].dims;
        dims[2 * level] = static_cast<int32_t>(map.d[2]);
        dims[2 * level + 1] = static_cast<int32_t>(map.d[3]);
    }
}

} // namespace

Dims outputDims(char const* plugin, Dims const* inputs, int32_t nbInputs, int32_t levels, int32_t pooled)
{
    std::string const expected = std::string(plugin) + ": expected ROIs [R, 4] and " + std::to_string(levels)
        + " feature maps [C, H, W] with one C (shapes without the batch axis); ";
    if (nbInputs != 1 + levels)
    {
        throw PluginError(expected + "got " + std::to_string(nbInputs) + " inputs");
    }
    if (inputs[0].nbDims != 2 || inputs[0].d[1] != 4)
    {
        throw PluginError(expected + "the ROIs are " + shapeText(inputs[0]));
    }
    for (int32_t level = 0; level < levels; ++level)
    {
        Dims const& map = inputs[1 + level];
        if (map.nbDims != 3 || map.d[0] != inputs[1].d[0] || map.d[1] < 1 || map.d[2] < 1)
        {
            throw PluginError(expected + "feature map " + std::to_string(level) + " is " + shapeText(map));
        }
    }
    Dims out{};
    out.nbDims = 4;
    out.d[0] = inputs[0].d[0];
    out.d[1] = inputs[1].d[0];
    out.d[2] = pooled;
    out.d[3] = pooled;
    return out;
}

void runHost(PluginTensors const& io, RoiAlignRule const& rule)
{
    Dims const& roiDims = io.inputDesc[0].dims;
    auto const batch = static_cast<int32_t>(roiDims.d[0]);
    auto const roiCount = static_cast<int32_t>(roiDims.d[1]);
    auto const channels = static_cast<int32_t>(io.inputDesc[1].dims.d[1]);
    int32_t dims[2 * kMaxLevels]{};
    levelDims(io, rule, dims);
    std::vector<float> const rois = readFloats(io.inputDesc[0], io.inputs[0]);
    std::vector<std::vector<float>> maps;
    for (int32_t level = 0; level < rule.levels; ++level)
    {
        maps.push_back(readFloats(io.inputDesc[1 + level], io.inputs[1 + level]));
    }
    int64_t const cell = static_cast<int64_t>(rule.pooled) * rule.pooled;
    std::vector<float> out(static_cast<size_t>(int64_t{batch} * roiCount * channels * cell), 0.F);
    for (int32_t b = 0; b < batch; ++b)
    {
        for (int32_t r = 0; r < roiCount; ++r)
        {
            float const* roi = rois.data() + (int64_t{b} * roiCount + r) * 4;
            RoiGrid const grid = rule.multilevel ? multilevelGrid(roi, rule) : pyramidGrid(roi, rule, dims);
            if (!grid.valid)
            {
                continue;
            }
            int32_t const h = dims[2 * grid.level];
            int32_t const w = dims[2 * grid.level + 1];
            for (int32_t c = 0; c < channels; ++c)
            {
                float const* plane = maps[grid.level].data() + (int64_t{b} * channels + c) * h * w;
                float* dst = out.data() + ((int64_t{b} * roiCount + r) * channels + c) * cell;
                for (int32_t py = 0; py < rule.pooled; ++py)
                {
                    for (int32_t px = 0; px < rule.pooled; ++px)
                    {
                        dst[py * rule.pooled + px] = binValue(plane, h, w, grid, py, px);
                    }
                }
            }
        }
    }
    writeFloats(io.outputDesc[0], io.outputs[0], out);
}

void runDevice(char const* plugin, PluginTensors const& io, RoiAlignRule const& rule, cudaStream_t stream)
{
#ifdef KILN_WITH_CUDA
    DeviceTensors tensors;
    tensors.rois = io.inputs[0];
    tensors.roisHalf = io.inputDesc[0].type == DataType::kHALF;
    for (int32_t level = 0; level < rule.levels; ++level)
    {
        tensors.maps[level] = io.inputs[1 + level];
    }
    tensors.mapsHalf = io.inputDesc[1].type == DataType::kHALF;
    levelDims(io, rule, tensors.dims);
    tensors.out = io.outputs[0];
    tensors.batch = static_cast<int32_t>(io.inputDesc[0].dims.d[0]);
    tensors.roiCount = static_cast<int32_t>(io.inputDesc[0].dims.d[1]);
    tensors.channels = static_cast<int32_t>(io.inputDesc[1].dims.d[1]);
    checkCuda(plugin, launchFpnRoiAlign(tensors, rule, stream));
#else
    (void) plugin;
    (void) io;
    (void) rule;
    (void) stream;
#endif
}

} // namespace kiln::plugins::fpn
