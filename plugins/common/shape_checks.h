// Shape checks for getOutputDimensions / getOutputShapes and for a run: a dimension expression's value where it is
// known at build time, a readable form of a shape for error messages, and each input's extents for plugins that
// check their input shapes once, the same way at build time (DimsExprs, some extents not known yet) and at run time
// (concrete descriptors).
#pragma once

#include "plugin_error.h"

#include <NvInferRuntime.h>

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::plugins
{

//! The value of `expr` where it is a build-time constant, else -1.
inline int64_t knownValue(nvinfer1::IDimensionExpr const* expr)
{
    return expr != nullptr && expr->isConstant() ? expr->getConstantValue() : -1;
}

//! True unless `expr` is a build-time constant other than `value`.
inline bool mayEqual(nvinfer1::IDimensionExpr const* expr, int64_t value)
{
    int64_t const known = knownValue(expr);
    return known < 0 || known == value;
}

//! "[2, 3, 768, 1, 1]"
inline std::string shapeText(nvinfer1::Dims const& dims)
{
    std::string text = "[";
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        text += (i > 0 ? ", " : "") + std::to_string(dims.d[i]);
    }
    return text + "]";
}

//! Each input's extents, -1 where not a build-time constant.
inline std::vector<std::vector<int64_t>> knownExtents(nvinfer1::DimsExprs const* inputs, int32_t nbInputs)
{
    std::vector<std::vector<int64_t>> extents(static_cast<size_t>(nbInputs));
    for (int32_t i = 0; i < nbInputs; ++i)
    {
        for (int32_t axis = 0; axis < inputs[i].nbDims; ++axis)
        {
            extents[i].push_back(knownValue(inputs[i].d[axis]));
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

//! Each input's extents at run time, once `shapeError(extents)` (the check the build ran on knownExtents) says ""
//! about them; else a PluginError with what it said.
template <typename ShapeError>
std::vector<std::vector<int64_t>> checkedRunExtents(
    nvinfer1::PluginTensorDesc const* inputs, int32_t nbInputs, ShapeError&& shapeError)
{
    std::vector<std::vector<int64_t>> extents = runExtents(inputs, nbInputs);
    std::string const error = shapeError(extents);
    if (!error.empty())
    {
        throw PluginError(error);
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
