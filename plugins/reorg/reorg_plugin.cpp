#include "reorg_plugin.h"
#include "reorg_index.h"

#include "api/plugin_collection.h"
#include "common/creators.h"

#ifdef KILN_WITH_CUDA
#include "common/cuda_check.h"
#include "reorg_kernels.h"
#endif

#include <string>

namespace kiln::plugins
{

using namespace nvinfer1;

void ReorgPlugin::check(ReorgParams const& params)
{
    if (params.stride < 1)
    {
        throw PluginError(std::string(kName) + ": field 'stride' is " + std::to_string(params.stride)
            + "; expected a positive integer");
    }
}

int32_t ReorgPlugin::getNbOutputs() const noexcept
{
    return 1;
}

Dims ReorgPlugin::getOutputDimensions(int32_t /*index*/, Dims const* inputs, int32_t nbInputs) noexcept
{
    return guarded(kName, "getOutputDimensions", Dims{-1, {}}, [&] {
        int32_t const s = mParams.stride;
        if (nbInputs != 1 || inputs[0].nbDims != 3)
        {
            throw PluginError(std::string(kName) + ": expects one input of shape [N, C, H, W]");
        }
        Dims const& in = inputs[0];
        if (in.d[1] % s != 0 || in.d[2] % s != 0 || in.d[0] % (s * s) != 0)
        {
            throw PluginError(std::string(kName) + ": the input's C, H, W (" + std::to_string(in.d[0]) + ", "
                + std::to_string(in.d[1]) + ", " + std::to_string(in.d[2]) + ") must be divisible by stride^2, stride, "
                + "stride (stride " + std::to_string(s) + ")");
        }
        return Dims{3, {in.d[0] * s * s, in.d[1] / s, in.d[2] / s}};
    });
}

DataType ReorgPlugin::getOutputDataType(
    int32_t /*index*/, DataType const* /*inputTypes*/, int32_t /*nbInputs*/) const noexcept
{
    return DataType::kFLOAT;
}

void ReorgPlugin::runHost(PluginTensors const& io) const
{
    Dims const& dims = io.inputDesc[0].dims;
    int64_t const c = dims.d[1];
    int64_t const h = dims.d[2];
    int64_t const w = dims.d[3];
    int64_t const sample = c * h * w;
    float const* x = io.input<float>(0);
    float* y = io.output<float>(0);
    for (int64_t n = 0; n < dims.d[0]; ++n)
    {
        for (int64_t i = 0; i < sample; ++i)
        {
            y[n * sample + i] = x[n * sample + reorgSource(i, c, h, w, mParams.stride)];
        }
    }
}

void ReorgPlugin::runDevice(PluginTensors const& io, cudaStream_t stream) const
{
#ifdef KILN_WITH_CUDA
    Dims const& dims = io.inputDesc[0].dims;
    checkCuda(kName,
        launchReorg(io.input<float>(0), io.output<float>(0), dims.d[0], dims.d[1], dims.d[2], dims.d[3],
            mParams.stride, stream));
#else
    (void) io;
    (void) stream;
#endif
}

} // namespace kiln::plugins

KILN_COLLECT_PLUGIN(kiln::plugins::V2PluginCreator<kiln::plugins::ReorgPlugin>)
