// Helpers for plugins that check their input shapes once, the same way at build time (DimsExprs, some extents not
// known yet) and at run time (concrete descriptors): the check takes each input's extents, -1 where not known.
#pragma once

#include "plugin_error.h"

#include <NvInferRuntime.h>

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::plugins
{

//! Each input's extents, -1 where not a build-time constant.
inline std::vector<std::vector<int64_t>> knownExtents(nvinfer1::DimsExprs const* inputs, int32_t nbInputs)
{
    std::vector<std::vector<int64_t>> extents(static_cast<size_t>(nbInputs));
    for (int32_t i = 0; i < nbInputs; ++i)
    {
        for (int32_t axis = 0; axis < inputs[i].nbDims; ++axis)
        {
            nvinfer1::IDimensionExpr const* extent = inputs[i].d[axis];
            extents[i].push_back(extent->isConstant() ? extent->getConstantValue() : -1);
        }
    }
    return extents;
}

//! Each input's extents at run time.
inline std::vector<std::vector<int64_t>> runExtents(nvinfer1::PluginTensorDesc const* inputs, int32_t nbInputs)
{
    std::vector<std::vector<int64_t>> extents(static_cast<size_t>(nbInputs));
    for (int32_t i = 0; i < nbInputs; ++i)
    {
        extents[i].assign(inputs[i].dims.d, inputs[i].dims.d + inputs[i].dims.nbDims);
    }
    return extents;
}

//! What getOutputDimensions / getOutputShapes return for an output they cannot make: rank -1, with `error` (which
//! names the plugin) logged.
inline nvinfer1::DimsExprs invalidOutput(std::string const& error)
{
    logError(error);
    nvinfer1::DimsExprs invalid{};
    invalid.nbDims = -1;
    return invalid;
}

} // namespace kiln::plugins
