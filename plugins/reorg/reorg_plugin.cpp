#include "reorg_plugin.h"
#include "reorg_index.h"

#include "api/plugin_collection.h"
#include "common/creators.h"
#include "common/formats.h"
#include "common/shape_checks.h"

#ifdef KILN_WITH_CUDA
#include "common/cuda_check.h"
#include "reorg_kernels.h"
#endif

#include <string>
#include <vector>

namespace kiln::plugins
{

using namespace nvinfer1;

namespace
{

//! Throws PluginError unless stride `s` divides the input's C (by s^2), H and W; extents -1 (not known yet) pass.
void checkReorgInput(int64_t c, int64_t h, int64_t w, int32_t s)
{
    auto divides = [](int64_t extent, int64_t by) { return extent < 0 || extent % by == 0; };
    if (!divides(c, int64_t{s} * s) || !divides(h, s) || !divides(w, s))
    {
        auto text = [](int64_t extent) { return extent < 0 ? std::string("?") : std::to_string(extent); };
        throw PluginError(std::string(ReorgPlugin::kName) + ": the input's C, H, W (" + text(c) + ", " + text(h) + ", "
            + text(w) + ") must be divisible by stride^2, stride, stride (stride " + std::to_string(s) + ")");
    }
}

//! Both versions' run: descriptors [N, C, H, W], FP32.
void reorgOnHost(PluginTensors const& io, int32_t stride)
{
    Dims const& dims = io.inputDesc[0].dims;
    checkReorgInput(dims.d[1], dims.d[2], dims.d[3], stride);
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
            y[n * sample + i] = x[n * sample + reorgSource(i, c, h, w, stride)];
        }
    }
}

void reorgOnDevice(PluginTensors const& io, int32_t stride, cudaStream_t stream)
{
#ifdef KILN_WITH_CUDA
    Dims const& dims = io.inputDesc[0].dims;
    checkReorgInput(dims.d[1], dims.d[2], dims.d[3], stride);
    checkCuda(ReorgPlugin::kName,
        launchReorg(
            io.input<float>(0), io.output<float>(0), dims.d[0], dims.d[1], dims.d[2], dims.d[3], stride, stream));
#else
    (void) io;
    (void) stride;
    (void) stream;
#endif
}

} // namespace

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
        checkReorgInput(in.d[0], in.d[1], in.d[2], s);
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
    reorgOnHost(io, mParams.stride);
}

void ReorgPlugin::runDevice(PluginTensors const& io, cudaStream_t stream) const
{
    reorgOnDevice(io, mParams.stride, stream);
}

// Version 2: the same layer with the batch axis in its shapes. (NVIDIA's version 2 declares a rank-3 output
// [N * s^2, C / s, H / s]; the values it writes are version 1's [N, C * s^2, H / s, W / s], declared so here.)

DimsExprs ReorgDynamicPlugin::getOutputDimensions(
    int32_t /*outputIndex*/, DimsExprs const* inputs, int32_t nbInputs, IExprBuilder& exprBuilder) noexcept
{
    return guarded(kName, "getOutputDimensions", DimsExprs{-1, {}}, [&] {
        if (nbInputs != 1 || inputs[0].nbDims != 4)
        {
            throw PluginError(std::string(kName) + ": expects one input of shape [N, C, H, W]");
        }
        std::vector<std::vector<int64_t>> const extents = knownExtents(inputs, nbInputs);
        int32_t const s = mParams.stride;
        checkReorgInput(extents[0][1], extents[0][2], extents[0][3], s);
        DimsExprs out{};
        out.nbDims = 4;
        out.d[0] = inputs[0].d[0];
        out.d[1] = exprBuilder.operation(DimensionOperation::kPROD, *inputs[0].d[1], *exprBuilder.constant(s * s));
        out.d[2] = exprBuilder.operation(DimensionOperation::kFLOOR_DIV, *inputs[0].d[2], *exprBuilder.constant(s));
        out.d[3] = exprBuilder.operation(DimensionOperation::kFLOOR_DIV, *inputs[0].d[3], *exprBuilder.constant(s));
        return out;
    });
}

bool ReorgDynamicPlugin::supportsFormatCombination(
    int32_t pos, PluginTensorDesc const* inOut, int32_t /*nbInputs*/, int32_t /*nbOutputs*/) noexcept
{
    return isLinearOf(inOut[pos], {DataType::kFLOAT});
}

DataType ReorgDynamicPlugin::getOutputDataType(
    int32_t /*index*/, DataType const* /*inputTypes*/, int32_t /*nbInputs*/) const noexcept
{
    return DataType::kFLOAT;
}

void ReorgDynamicPlugin::runHost(PluginTensors const& io) const
{
    reorgOnHost(io, mParams.stride);
}

void ReorgDynamicPlugin::runDevice(PluginTensors const& io, cudaStream_t stream) const
{
    reorgOnDevice(io, mParams.stride, stream);
}

} // namespace kiln::plugins

KILN_COLLECT_PLUGIN(kiln::plugins::V2PluginCreator<kiln::plugins::ReorgPlugin>)
KILN_COLLECT_PLUGIN(kiln::plugins::V2PluginCreator<kiln::plugins::ReorgDynamicPlugin>)
