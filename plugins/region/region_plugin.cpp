#include "region_plugin.h"

#include "api/plugin_collection.h"
#include "common/creators.h"

#ifdef KILN_WITH_CUDA
#include "common/cuda_check.h"
#include "region_kernels.h"
#endif

#include <algorithm>
#include <cmath>
#include <string>

namespace kiln::plugins
{

using namespace nvinfer1;

void RegionPlugin::check(RegionParams const& params)
{
    std::string const name(kName);
    if (params.num < 1)
    {
        throw PluginError(name + ": field 'num' is " + std::to_string(params.num) + "; expected a positive integer");
    }
    if (params.coords != 4)
    {
        throw PluginError(name + ": field 'coords' is " + std::to_string(params.coords) + "; expected 4");
    }
    if (params.classes < 1)
    {
        throw PluginError(
            name + ": field 'classes' is " + std::to_string(params.classes) + "; expected a positive integer");
    }
}

int32_t RegionPlugin::getNbOutputs() const noexcept
{
    return 1;
}

Dims RegionPlugin::getOutputDimensions(int32_t /*index*/, Dims const* inputs, int32_t nbInputs) noexcept
{
    return guarded(kName, "getOutputDimensions", Dims{-1, {}}, [&] {
        if (nbInputs != 1 || inputs[0].nbDims != 3)
        {
            throw PluginError(std::string(kName) + ": expects one input of shape [N, C, H, W]");
        }
        int64_t const channels = int64_t{mParams.num} * (mParams.coords + 1 + mParams.classes);
        if (inputs[0].d[0] != channels)
        {
            throw PluginError(std::string(kName) + ": the input has " + std::to_string(inputs[0].d[0])
                + " channels; num * (coords + 1 + classes) is " + std::to_string(channels));
        }
        return inputs[0];
    });
}

DataType RegionPlugin::getOutputDataType(
    int32_t /*index*/, DataType const* /*inputTypes*/, int32_t /*nbInputs*/) const noexcept
{
    return DataType::kFLOAT;
}

void RegionPlugin::runHost(PluginTensors const& io) const
{
    Dims const& dims = io.inputDesc[0].dims;
    int64_t const spatial = int64_t{dims.d[2]} * dims.d[3];
    int64_t const boxes = int64_t{dims.d[0]} * mParams.num;
    int32_t const coords = mParams.coords;
    int32_t const classes = mParams.classes;
    int64_t const entries = coords + 1 + classes;
    float const* x = io.input<float>(0);
    float* y = io.output<float>(0);
    auto const logistic = [](float v) { return 1.F / (1.F + std::exp(-v)); };
    std::vector<double> exps(static_cast<size_t>(classes));
    for (int64_t box = 0; box < boxes; ++box)
    {
        for (int64_t cell = 0; cell < spatial; ++cell)
        {
            float const* in = x + box * entries * spatial + cell;
            float* out = y + box * entries * spatial + cell;
            for (int32_t e = 0; e <= coords; ++e)
            {
                out[e * spatial] = (e < 2 || e == coords) ? logistic(in[e * spatial]) : in[e * spatial];
            }
            float largest = in[(coords + 1) * spatial];
            for (int32_t c = 0; c < classes; ++c)
            {
                largest = std::max(largest, in[(coords + 1 + c) * spatial]);
            }
            double sum = 0.0;
            for (int32_t c = 0; c < classes; ++c)
            {
                exps[c] = std::exp(static_cast<double>(in[(coords + 1 + c) * spatial] - largest));
                sum += exps[c];
            }
            for (int32_t c = 0; c < classes; ++c)
            {
                out[(coords + 1 + c) * spatial] = static_cast<float>(exps[c] / sum);
            }
        }
    }
}

void RegionPlugin::runDevice(PluginTensors const& io, cudaStream_t stream) const
{
#ifdef KILN_WITH_CUDA
    Dims const& dims = io.inputDesc[0].dims;
    checkCuda(kName,
        launchRegion(io.input<float>(0), io.output<float>(0), int64_t{dims.d[0]} * mParams.num, mParams.coords,
            mParams.classes, int64_t{dims.d[2]} * dims.d[3], stream));
#else
    (void) io;
    (void) stream;
#endif
}

} // namespace kiln::plugins

KILN_COLLECT_PLUGIN(kiln::plugins::V2PluginCreator<kiln::plugins::RegionPlugin>)
