#include "flatten_concat_plugin.h"

#include "api/plugin_collection.h"
#include "common/creators.h"

#ifdef KILN_WITH_CUDA
#include "common/cuda_check.h"
#include "flatten_concat_kernels.h"
#endif

#include <algorithm>
#include <string>
#include <vector>

namespace kiln::plugins
{

using namespace nvinfer1;

namespace
{

std::string dimsText(Dims const& dims)
{
    std::string text = "[";
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        text += (i == 0 ? "" : ", ") + std::to_string(dims.d[i]);
    }
    return text + "]";
}

//! The values per image of all inputs (shapes without the batch axis); throws PluginError unless every input is
//! [C, H, W] and matches the first on every axis but the concatenation axis (NVIDIA's rule).
int64_t checkedTotal(int32_t axis, Dims const* inputs, int32_t nbInputs)
{
    std::string const name(FlattenConcatPlugin::kName);
    if (nbInputs < 1)
    {
        throw PluginError(name + ": expects at least one input");
    }
    int64_t total = 0;
    for (int32_t i = 0; i < nbInputs; ++i)
    {
        Dims const& in = inputs[i];
        if (in.nbDims != 3)
        {
            throw PluginError(name + ": input " + std::to_string(i) + " is " + dimsText(in)
                + " without the batch axis; expected [C, H, W]");
        }
        for (int32_t d = 0; d < 3; ++d)
        {
            if (d + 1 != axis && in.d[d] != inputs[0].d[d])
            {
                throw PluginError(name + ": input " + std::to_string(i) + " " + dimsText(in) + " and input 0 "
                    + dimsText(inputs[0]) + " differ on axis " + std::to_string(d + 1) + ", not the concatenation axis "
                    + std::to_string(axis));
            }
        }
        total += int64_t{in.d[0]} * in.d[1] * in.d[2];
    }
    return total;
}

//! A run's descriptor without its batch axis.
Dims withoutBatch(Dims const& dims)
{
    Dims out{};
    out.nbDims = dims.nbDims - 1;
    for (int32_t i = 1; i < dims.nbDims; ++i)
    {
        out.d[i - 1] = dims.d[i];
    }
    return out;
}

} // namespace

void FlattenConcatPlugin::check(FlattenConcatParams const& params)
{
    if (params.axis < 1 || params.axis > 3)
    {
        throw PluginError(std::string(kName) + ": field 'axis' is " + std::to_string(params.axis)
            + "; expected 1, 2 or 3 (the output axis, counted with the batch, that holds the values)");
    }
}

Dims FlattenConcatPlugin::getOutputDimensions(int32_t /*index*/, Dims const* inputs, int32_t nbInputs) noexcept
{
    return guarded(kName, "getOutputDimensions", Dims{-1, {}}, [&] {
        int64_t const total = checkedTotal(mParams.axis, inputs, nbInputs);
        Dims out{3, {1, 1, 1}};
        out.d[mParams.axis - 1] = total;
        return out;
    });
}

DataType FlattenConcatPlugin::getOutputDataType(
    int32_t /*index*/, DataType const* /*inputTypes*/, int32_t /*nbInputs*/) const noexcept
{
    return DataType::kFLOAT;
}

void FlattenConcatPlugin::checkRunInputs(PluginTensors const& io) const
{
    std::vector<Dims> dims;
    for (size_t i = 0; i < mConfiguration.inputDims.size(); ++i)
    {
        if (io.inputDesc[i].dims.nbDims < 1 || io.inputDesc[i].dims.d[0] != io.inputDesc[0].dims.d[0])
        {
            throw PluginError(std::string(kName) + ": the inputs' batches differ");
        }
        dims.push_back(withoutBatch(io.inputDesc[i].dims));
    }
    checkedTotal(mParams.axis, dims.data(), static_cast<int32_t>(dims.size()));
}

void FlattenConcatPlugin::runHost(PluginTensors const& io) const
{
    checkRunInputs(io);
    int64_t const batch = io.inputDesc[0].dims.d[0];
    if (batch == 0)
    {
        return;
    }
    int64_t const row = volume(io.outputDesc[0].dims) / batch;
    float* out = io.output<float>(0);
    int64_t offset = 0;
    for (size_t i = 0; i < mConfiguration.inputDims.size(); ++i)
    {
        int64_t const values = volume(io.inputDesc[i].dims) / batch;
        float const* in = io.input<float>(static_cast<int32_t>(i));
        for (int64_t n = 0; n < batch; ++n)
        {
            std::copy(in + n * values, in + (n + 1) * values, out + n * row + offset);
        }
        offset += values;
    }
}

void FlattenConcatPlugin::runDevice(PluginTensors const& io, cudaStream_t stream) const
{
#ifdef KILN_WITH_CUDA
    checkRunInputs(io);
    int64_t const batch = io.inputDesc[0].dims.d[0];
    if (batch == 0)
    {
        return;
    }
    int64_t const row = volume(io.outputDesc[0].dims) / batch;
    int64_t offset = 0;
    for (size_t i = 0; i < mConfiguration.inputDims.size(); ++i)
    {
        int64_t const values = volume(io.inputDesc[i].dims) / batch;
        checkCuda(kName,
            launchFlattenConcatCopy(
                io.input<float>(static_cast<int32_t>(i)), io.output<float>(0), batch, values, row, offset, stream));
        offset += values;
    }
#else
    (void) io;
    (void) stream;
#endif
}

} // namespace kiln::plugins

KILN_COLLECT_PLUGIN(kiln::plugins::V2PluginCreator<kiln::plugins::FlattenConcatPlugin>)
