#include "resize_nearest_plugin.h"

#include "api/plugin_collection.h"
#include "common/creators.h"

#ifdef KILN_WITH_CUDA
#include "common/cuda_check.h"
#include "resize_nearest_kernels.h"
#endif

#include <algorithm>
#include <cmath>

namespace kiln::plugins
{

using namespace nvinfer1;

namespace
{

//! The input row or column that output index `o` reads: int(o / scale) as NVIDIA's kernel computes it (in float),
//! kept inside the input for scales whose product was rounded down.
int32_t sourceIndex(int32_t o, float scale, int32_t extent)
{
    return std::min(static_cast<int32_t>(static_cast<float>(o) / scale), extent - 1);
}

} // namespace

void ResizeNearestPlugin::check(ResizeNearestParams const& params)
{
    if (!(params.scale > 0.F) || !std::isfinite(params.scale))
    {
        throw PluginError(std::string(kName) + ": field 'scale' is " + std::to_string(params.scale)
            + "; expected a finite number above 0");
    }
}

int32_t ResizeNearestPlugin::getNbOutputs() const noexcept
{
    return 1;
}

Dims ResizeNearestPlugin::getOutputDimensions(int32_t /*index*/, Dims const* inputs, int32_t nbInputs) noexcept
{
    return guarded(kName, "getOutputDimensions", Dims{-1, {}}, [&] {
        if (nbInputs != 1 || inputs[0].nbDims < 2)
        {
            throw PluginError(std::string(kName)
                + ": expected one input of rank 2 or more (..., H, W) without the "
                  "batch axis; got "
                + std::to_string(nbInputs) + " inputs, the first of rank "
                + std::to_string(nbInputs > 0 ? inputs[0].nbDims : 0));
        }
        Dims output = inputs[0];
        for (int32_t axis = output.nbDims - 2; axis < output.nbDims; ++axis)
        {
            // A finite positive scale can still make a product past any extent: checked before it becomes one, and
            // within the 32-bit indices of the kernels.
            float const scaled = static_cast<float>(inputs[0].d[axis]) * mParams.scale;
            if (!(scaled >= 1.0F && scaled < 0x1p31F))
            {
                throw PluginError(std::string(kName) + ": scale " + std::to_string(mParams.scale) + " turns extent "
                    + std::to_string(inputs[0].d[axis]) + " into " + std::to_string(scaled)
                    + ", not an extent of 1 to 2^31 - 1");
            }
            output.d[axis] = static_cast<int64_t>(scaled);
        }
        return output;
    });
}

DataType ResizeNearestPlugin::getOutputDataType(
    int32_t /*index*/, DataType const* /*inputTypes*/, int32_t /*nbInputs*/) const noexcept
{
    return DataType::kFLOAT;
}

void ResizeNearestPlugin::runHost(PluginTensors const& io) const
{
    Dims const& in = io.inputDesc[0].dims;
    Dims const& out = io.outputDesc[0].dims;
    auto const inH = static_cast<int32_t>(in.d[in.nbDims - 2]);
    auto const inW = static_cast<int32_t>(in.d[in.nbDims - 1]);
    auto const outH = static_cast<int32_t>(out.d[out.nbDims - 2]);
    auto const outW = static_cast<int32_t>(out.d[out.nbDims - 1]);
    int64_t const planes = volume(in) / (static_cast<int64_t>(inH) * inW);
    auto const* x = io.input<float>(0);
    auto* y = io.output<float>(0);
    for (int64_t plane = 0; plane < planes; ++plane)
    {
        float const* src = x + plane * inH * inW;
        float* dst = y + plane * outH * outW;
        for (int32_t oy = 0; oy < outH; ++oy)
        {
            int32_t const iy = sourceIndex(oy, mParams.scale, inH);
            for (int32_t ox = 0; ox < outW; ++ox)
            {
                dst[static_cast<int64_t>(oy) * outW + ox]
                    = src[static_cast<int64_t>(iy) * inW + sourceIndex(ox, mParams.scale, inW)];
            }
        }
    }
}

void ResizeNearestPlugin::runDevice(PluginTensors const& io, cudaStream_t stream) const
{
#ifdef KILN_WITH_CUDA
    Dims const& in = io.inputDesc[0].dims;
    Dims const& out = io.outputDesc[0].dims;
    auto const inH = static_cast<int32_t>(in.d[in.nbDims - 2]);
    auto const inW = static_cast<int32_t>(in.d[in.nbDims - 1]);
    int64_t const planes = volume(in) / (static_cast<int64_t>(inH) * inW);
    checkCuda(kName,
        launchResizeNearest(io.input<float>(0), io.output<float>(0), planes, inH, inW,
            static_cast<int32_t>(out.d[out.nbDims - 2]), static_cast<int32_t>(out.d[out.nbDims - 1]), mParams.scale,
            stream));
#else
    (void) io;
    (void) stream;
#endif
}

} // namespace kiln::plugins

KILN_COLLECT_PLUGIN(kiln::plugins::V2PluginCreator<kiln::plugins::ResizeNearestPlugin>)
