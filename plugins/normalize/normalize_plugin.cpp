#include "normalize_plugin.h"

#include "api/plugin_collection.h"
#include "common/creators.h"

#ifdef KILN_WITH_CUDA
#include "common/cuda_check.h"
#include "normalize_kernels.h"
#endif

#include <cmath>
#include <string>

namespace kiln::plugins
{

using namespace nvinfer1;

void NormalizePlugin::check(NormalizeParams const& params)
{
    std::string const name(kName);
    if (params.weights.empty())
    {
        throw PluginError(name + ": field 'weights' is empty; expected one scale, or one per channel");
    }
    if (params.nbWeights != 1)
    {
        throw PluginError(name + ": field 'nbWeights' is " + std::to_string(params.nbWeights) + "; expected 1");
    }
    if (!(params.eps >= 0.F))
    {
        throw PluginError(name + ": field 'eps' is " + std::to_string(params.eps) + "; expected 0 or more");
    }
    if (params.channelShared && params.weights.size() != 1)
    {
        throw PluginError(name + ": field 'weights' holds " + std::to_string(params.weights.size())
            + " values; with channelShared it holds one");
    }
}

int32_t NormalizePlugin::getNbOutputs() const noexcept
{
    return 1;
}

Dims NormalizePlugin::getOutputDimensions(int32_t /*index*/, Dims const* inputs, int32_t nbInputs) noexcept
{
    return guarded(kName, "getOutputDimensions", Dims{-1, {}}, [&] {
        if (nbInputs != 1 || inputs[0].nbDims != 3)
        {
            throw PluginError(std::string(kName) + ": expects one input of shape [N, C, H, W]");
        }
        if (!mParams.channelShared && static_cast<int64_t>(mParams.weights.size()) != inputs[0].d[0])
        {
            throw PluginError(std::string(kName) + ": field 'weights' holds " + std::to_string(mParams.weights.size())
                + " values, but the input has " + std::to_string(inputs[0].d[0]) + " channels");
        }
        return inputs[0];
    });
}

DataType NormalizePlugin::getOutputDataType(
    int32_t /*index*/, DataType const* /*inputTypes*/, int32_t /*nbInputs*/) const noexcept
{
    return DataType::kFLOAT;
}

void NormalizePlugin::runHost(PluginTensors const& io) const
{
    Dims const& dims = io.inputDesc[0].dims;
    int64_t const channels = dims.d[1];
    int64_t const spatial = int64_t{dims.d[2]} * dims.d[3];
    float const* x = io.input<float>(0);
    float* y = io.output<float>(0);
    auto const scale = [&](int64_t c) { return mParams.weights[mParams.channelShared ? 0 : c]; };
    // A sample is normalized as one group (acrossSpatial) or as `spatial` groups of `channels` values.
    int64_t const groups = mParams.acrossSpatial ? 1 : spatial;
    int64_t const members = mParams.acrossSpatial ? channels * spatial : channels;
    int64_t const memberStride = mParams.acrossSpatial ? 1 : spatial;
    for (int64_t n = 0; n < dims.d[0]; ++n)
    {
        int64_t const sample = n * channels * spatial;
        for (int64_t g = 0; g < groups; ++g)
        {
            double sum = 0.0;
            for (int64_t m = 0; m < members; ++m)
            {
                double const v = x[sample + g + m * memberStride];
                sum += v * v;
            }
            auto const inverse = static_cast<float>(1.0 / std::sqrt(sum + mParams.eps));
            for (int64_t m = 0; m < members; ++m)
            {
                int64_t const at = sample + g + m * memberStride;
                y[at] = x[at] * inverse * scale((at - sample) / spatial);
            }
        }
    }
}

void NormalizePlugin::runDevice(PluginTensors const& io, cudaStream_t stream) const
{
#ifdef KILN_WITH_CUDA
    Dims const& dims = io.inputDesc[0].dims;
    float const* scales = mDeviceWeights.get(kName, mParams.weights);
    checkCuda(kName,
        launchNormalize(io.input<float>(0), io.output<float>(0), scales, mParams.acrossSpatial, mParams.channelShared,
            mParams.eps, dims.d[0], dims.d[1], int64_t{dims.d[2]} * dims.d[3], stream));
#else
    (void) io;
    (void) stream;
#endif
}

} // namespace kiln::plugins

KILN_COLLECT_PLUGIN(kiln::plugins::V2PluginCreator<kiln::plugins::NormalizePlugin>)
