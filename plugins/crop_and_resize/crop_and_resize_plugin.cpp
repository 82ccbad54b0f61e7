#include "crop_and_resize_plugin.h"

#include "api/plugin_collection.h"
#include "common/creators.h"
#include "common/formats.h"
#include "crop_and_resize_math.h"

#ifdef KILN_WITH_CUDA
#include "common/cuda_check.h"
#include "crop_and_resize_kernels.h"
#endif

#include <string>

namespace kiln::plugins
{

using namespace nvinfer1;

namespace
{

char const* const kName = CropAndResizeFamily::kName;

PluginError badShapes()
{
    return PluginError(std::string(kName)
        + ": expected 2 inputs, feature_maps [N, C, H, W] and rois [N, B, 4, 1] "
          "or [N, B, 4]");
}

//! Throws unless the shapes fit; `same(a, b)` answers false only where sizes a and b are known to differ.
template <typename Dimensions, typename Size, typename Same>
void checkShapes(Dimensions const& features, Dimensions const& rois, Size four, Size one, Same const& same)
{
    if (features.nbDims != 4 || (rois.nbDims != 3 && rois.nbDims != 4) || !same(rois.d[0], features.d[0])
        || !same(rois.d[2], four) || (rois.nbDims == 4 && !same(rois.d[3], one)))
    {
        throw badShapes();
    }
}

} // namespace

void CropAndResizeFamily::check(CropAndResizeParams const& params)
{
    for (auto const& [field, value] : {std::pair{"crop_width", params.cropWidth}, {"crop_height", params.cropHeight}})
    {
        if (value <= 0)
        {
            throw PluginError(
                std::string(kName) + ": field '" + field + "' is " + std::to_string(value) + "; expected > 0");
        }
    }
}

DimsExprs CropAndResizeFamily::outputShape(CropAndResizeParams const& params, int32_t /*index*/,
    DimsExprs const* inputs, int32_t nbInputs, IExprBuilder& exprBuilder)
{
    if (nbInputs != 2)
    {
        throw badShapes();
    }
    checkShapes(inputs[0], inputs[1], exprBuilder.constant(4), exprBuilder.constant(1),
        [](IDimensionExpr const* a, IDimensionExpr const* b) {
            return !a->isConstant() || !b->isConstant() || a->getConstantValue() == b->getConstantValue();
        });
    DimsExprs out{};
    out.nbDims = 5;
    out.d[0] = inputs[0].d[0];
    out.d[1] = inputs[1].d[1];
    out.d[2] = inputs[0].d[1];
    out.d[3] = exprBuilder.constant(params.cropHeight);
    out.d[4] = exprBuilder.constant(params.cropWidth);
    return out;
}

bool CropAndResizeFamily::supports(CropAndResizeParams const& /*params*/, int32_t pos, PluginTensorDesc const* inOut,
    int32_t /*nbInputs*/, int32_t /*nbOutputs*/)
{
    return pos < 3 && isLinearOf(inOut[pos], {DataType::kFLOAT}); // FP32 only, as NVIDIA's
}

void CropAndResizeFamily::runHost(CropAndResizeParams const& params, PluginTensors const& io)
{
    Dims const& features = io.inputDesc[0].dims;
    checkShapes(features, io.inputDesc[1].dims, int64_t{4}, int64_t{1}, [](int64_t a, int64_t b) { return a == b; });
    auto const channels = static_cast<int32_t>(features.d[1]);
    auto const height = static_cast<int32_t>(features.d[2]);
    auto const width = static_cast<int32_t>(features.d[3]);
    int64_t const boxes = io.inputDesc[1].dims.d[1];
    float const* x = io.input<float>(0);
    float const* rois = io.input<float>(1);
    float* crops = io.output<float>(0);
    for (int64_t n = 0; n < features.d[0]; ++n)
    {
        for (int64_t b = 0; b < boxes; ++b)
        {
            float const* box = rois + 4 * (n * boxes + b);
            for (int64_t c = 0; c < channels; ++c)
            {
                float const* plane = x + (n * channels + c) * height * width;
                auto const load = [plane](int64_t offset) { return plane[offset]; };
                for (int32_t y = 0; y < params.cropHeight; ++y)
                {
                    for (int32_t xi = 0; xi < params.cropWidth; ++xi)
                    {
                        *crops++ = crop_and_resize::cropValue(
                            load, height, width, box, params.cropHeight, params.cropWidth, y, xi);
                    }
                }
            }
        }
    }
}

void CropAndResizeFamily::runDevice(CropAndResizeParams const& params, PluginTensors const& io, cudaStream_t stream)
{
#ifdef KILN_WITH_CUDA
    Dims const& features = io.inputDesc[0].dims;
    checkShapes(features, io.inputDesc[1].dims, int64_t{4}, int64_t{1}, [](int64_t a, int64_t b) { return a == b; });
    checkCuda(kName,
        launchCropAndResize(static_cast<int32_t>(features.d[0]), static_cast<int32_t>(io.inputDesc[1].dims.d[1]),
            static_cast<int32_t>(features.d[1]), static_cast<int32_t>(features.d[2]),
            static_cast<int32_t>(features.d[3]), params.cropHeight, params.cropWidth, io.input<float>(0),
            io.input<float>(1), io.output<float>(0), stream));
#else
    (void) params;
    (void) io;
    (void) stream;
#endif
}

} // namespace kiln::plugins

KILN_COLLECT_PLUGIN(kiln::plugins::V2PluginCreator<kiln::plugins::CropAndResizePluginV1>)
KILN_COLLECT_PLUGIN(kiln::plugins::V3PluginCreator<kiln::plugins::CropAndResizePluginV2>)
