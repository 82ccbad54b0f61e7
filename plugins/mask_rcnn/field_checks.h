// The family's field and shape checks, with errors naming plugin, field (or input) and value.
#pragma once

#include "common/shape_checks.h"
#include "common/plugin_error.h"

#include <NvInferRuntime.h>

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::plugins::mrcnn
{

//! "[3, 0, 100]"
inline std::string listText(std::vector<int32_t> const& values)
{
    std::string text;
    for (int32_t const v : values)
    {
        text += (text.empty() ? "" : ", ") + std::to_string(v);
    }
    return "[" + text + "]";
}

inline void requireAtLeast(char const* plugin, char const* field, int32_t value, int32_t least)
{
    if (value < least)
    {
        throw PluginError(std::string(plugin) + ": field '" + field + "' is " + std::to_string(value) + "; expected "
            + std::to_string(least) + " or more");
    }
}

//! Thresholds: `value` > 0 where `positive`, else >= 0 (NaN is refused). Values above 1 are allowed, as NVIDIA's
//! do: an IoU threshold of 1 or more suppresses nothing, a score threshold above 1 keeps nothing.
inline void requireThreshold(char const* plugin, char const* field, float value, bool positive)
{
    bool const ok = positive ? value > 0.F : value >= 0.F;
    if (!ok)
    {
        throw PluginError(std::string(plugin) + ": field '" + field + "' is " + std::to_string(value) + "; expected "
            + (positive ? "a value > 0" : "a value >= 0"));
    }
}

//! Throws unless `dims` (without the batch axis) has `rank` axes and, where `second` > 0, axis 1 is `second`.
inline void requireShape(char const* plugin, char const* input, nvinfer1::Dims const& dims, int32_t rank,
    int64_t second, std::string const& expected)
{
    if (dims.nbDims != rank || (second > 0 && dims.d[1] != second) || dims.d[0] < 0)
    {
        throw PluginError(std::string(plugin) + ": input '" + input + "' is " + shapeText(dims) + "; expected "
            + expected + " (without the batch axis)");
    }
}

} // namespace kiln::plugins::mrcnn
