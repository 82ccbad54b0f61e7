#include "roi_align_plugin.h"

#include "api/plugin_collection.h"
#include "common/creators.h"
#include "common/formats.h"
#include "common/host_values.h"
#include "roi_align_math.h"

#ifdef KILN_WITH_CUDA
#include "common/cuda_check.h"
#include "roi_align_kernels.h"
#endif

#include <string>

namespace kiln::plugins
{

using namespace nvinfer1;

namespace
{

using roi_align::Geometry;
char const* const kName = RoiAlignFamily::kName;

void requireField(bool ok, char const* field, std::string const& value, char const* expected)
{
    if (!ok)
    {
        throw PluginError(std::string(kName) + ": field '" + field + "' is " + value + "; expected " + expected);
    }
}

//! The run's sizes, after checking that the tensors agree (the build checked what it could know then).
Geometry geometryOf(RoiAlignParams const& params, PluginTensors const& io)
{
    Dims const& x = io.inputDesc[0].dims;
    Dims const& rois = io.inputDesc[1].dims;
    Dims const& indices = io.inputDesc[2].dims;
    if (x.nbDims != 4 || rois.nbDims != 2 || rois.d[1] != 4 || indices.nbDims != 1 || indices.d[0] != rois.d[0])
    {
        throw PluginError(std::string(kName) + ": expected X [N, C, H, W], rois [R, 4] and batch_indices [R]");
    }
    return Geometry{static_cast<int32_t>(x.d[1]), static_cast<int32_t>(x.d[2]), static_cast<int32_t>(x.d[3]),
        params.outputHeight, params.outputWidth, params.samplingRatio, params.spatialScale,
        params.coordinateTransformationMode == 1, params.mode == 1};
}

} // namespace

void RoiAlignFamily::check(RoiAlignParams const& params)
{
    requireField(params.coordinateTransformationMode == 0 || params.coordinateTransformationMode == 1,
        "coordinate_transformation_mode", std::to_string(params.coordinateTransformationMode),
        "0 (output_half_pixel) or 1 (half_pixel)");
    requireField(params.mode == 0 || params.mode == 1, "mode", std::to_string(params.mode), "0 (max) or 1 (average)");
    requireField(params.outputHeight > 0, "output_height", std::to_string(params.outputHeight), "> 0");
    requireField(params.outputWidth > 0, "output_width", std::to_string(params.outputWidth), "> 0");
    // Each bin averages sampling_ratio squared samples (models use 0, adaptive, or 2): a corrupted plan's billions
    // would never finish.
    requireField(params.samplingRatio >= 0 && params.samplingRatio <= 64, "sampling_ratio",
        std::to_string(params.samplingRatio), "in [0, 64]");
    requireField(params.spatialScale > 0.F, "spatial_scale", std::to_string(params.spatialScale), "> 0");
}

DimsExprs RoiAlignFamily::outputShape(RoiAlignParams const& params, int32_t /*index*/, DimsExprs const* inputs,
    int32_t nbInputs, IExprBuilder& exprBuilder)
{
    auto const constantOther = [](IDimensionExpr const* dim, int64_t value) {
        return dim->isConstant() && dim->getConstantValue() != value;
    };
    if (nbInputs != 3 || inputs[0].nbDims != 4 || inputs[1].nbDims != 2 || inputs[2].nbDims != 1
        || constantOther(inputs[1].d[1], 4)
        || (inputs[2].d[0]->isConstant() && constantOther(inputs[1].d[0], inputs[2].d[0]->getConstantValue())))
    {
        throw PluginError(std::string(kName)
            + ": expected 3 inputs, X [N, C, H, W], rois [R, 4] and "
              "batch_indices [R]");
    }
    DimsExprs out{};
    out.nbDims = 4;
    out.d[0] = inputs[1].d[0];
    out.d[1] = inputs[0].d[1];
    out.d[2] = exprBuilder.constant(params.outputHeight);
    out.d[3] = exprBuilder.constant(params.outputWidth);
    return out;
}

bool RoiAlignFamily::supports(RoiAlignParams const& /*params*/, int32_t pos, PluginTensorDesc const* inOut,
    int32_t /*nbInputs*/, int32_t /*nbOutputs*/)
{
    if (pos == 2)
    {
        return isLinearOf(inOut[pos], {DataType::kINT32});
    }
    // X decides FP32 or FP16; rois and Y follow it, as in NVIDIA's plugin.
    return linearSameFloat(inOut, pos);
}

void RoiAlignFamily::runHost(RoiAlignParams const& params, PluginTensors const& io)
{
    Geometry const g = geometryOf(params, io);
    auto const batch = static_cast<int32_t>(io.inputDesc[0].dims.d[0]);
    int64_t const roiCount = io.inputDesc[1].dims.d[0];
    std::vector<float> const x = readFloats(io.inputDesc[0], io.inputs[0]);
    std::vector<float> const rois = readFloats(io.inputDesc[1], io.inputs[1]);
    int32_t const* batchIndices = io.input<int32_t>(2);
    std::vector<float> y(static_cast<size_t>(volume(io.outputDesc[0].dims)));
    int64_t const planeSize = static_cast<int64_t>(g.height) * g.width;
    size_t at = 0;
    for (int64_t r = 0; r < roiCount; ++r)
    {
        int32_t const image = batchIndices[r];
        if (image < 0 || image >= batch)
        {
            throw PluginError(std::string(kName) + ": batch_indices[" + std::to_string(r) + "] is "
                + std::to_string(image) + ", outside [0, " + std::to_string(batch) + ")");
        }
        float const* box = &rois[static_cast<size_t>(4 * r)];
        for (int32_t c = 0; c < g.channels; ++c)
        {
            float const* plane = &x[static_cast<size_t>((static_cast<int64_t>(image) * g.channels + c) * planeSize)];
            auto const load = [plane](int64_t offset) { return plane[offset]; };
            for (int32_t ph = 0; ph < g.outputHeight; ++ph)
            {
                for (int32_t pw = 0; pw < g.outputWidth; ++pw)
                {
                    y[at++] = roi_align::pooledValue(g, box, load, ph, pw);
                }
            }
        }
    }
    writeFloats(io.outputDesc[0], io.outputs[0], y);
}

void RoiAlignFamily::runDevice(RoiAlignParams const& params, PluginTensors const& io, cudaStream_t stream)
{
#ifdef KILN_WITH_CUDA
    Geometry const g = geometryOf(params, io);
    checkCuda(kName,
        launchRoiAlign(g, static_cast<int32_t>(io.inputDesc[0].dims.d[0]), io.inputDesc[1].dims.d[0], io.inputs[0],
            io.inputs[1], io.input<int32_t>(2), io.outputs[0], io.inputDesc[0].type == DataType::kHALF, stream));
#else
    (void) params;
    (void) io;
    (void) stream;
#endif
}

} // namespace kiln::plugins

KILN_COLLECT_PLUGIN(kiln::plugins::V2PluginCreator<kiln::plugins::RoiAlignPluginV1>)
KILN_COLLECT_PLUGIN(kiln::plugins::V3PluginCreator<kiln::plugins::RoiAlignPluginV2>)
