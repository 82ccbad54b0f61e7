// Shape checks for getOutputDimensions / getOutputShapes and for a run: a dimension expression's value where it is
// known at build time, and a readable form of a shape for error messages.
#pragma once

#include <NvInferRuntime.h>

#include <cstdint>
#include <string>

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

} // namespace kiln::plugins
