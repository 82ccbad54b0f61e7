// The grammars of trtexec's flag values: "name:1x3x224x224,other:...", "name:file",
// "workspace:1G", "90,95,99". Each parser returns false with a message naming what is wrong.
#pragma once

#include "core/dims_text.h"

#include <NvInferRuntimeBase.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace kiln::cli
{

//! Parses all of text as a decimal integer in [minimum, maximum]. False with error naming flag, the value and the
//! range ("--iterations: \"-5\" is not valid: the value must be a positive integer"): a sign where none is allowed,
//! trailing text and values that overflow are refused, never wrapped or truncated. Every integer flag goes through it.
bool parseInteger(
    char const* flag, std::string const& text, int64_t minimum, int64_t maximum, int64_t& value, std::string& error);

//! The same for a finite decimal number in [minimum, maximum] (times, tolerances).
bool parseReal(
    char const* flag, std::string const& text, double minimum, double maximum, double& value, std::string& error);

//! One "name:value" entry of a comma-separated list.
struct NameValue
{
    std::string name;
    std::string value;
};

//! Splits "a:x,'b,c:d':y" into entries. A name in single quotes may hold ',' and ':'; an unquoted
//! name ends at the entry's last ':' (as trtexec splits), so "input:0:1x3" names "input:0".
bool parseNameValueList(std::string const& text, std::vector<NameValue>& entries, std::string& error);

struct ShapeSpec
{
    std::string name;
    nvinfer1::Dims dims{};
};

//! --shapes/--minShapes/--optShapes/--maxShapes: "name:1x3x224x224,...". Extents are non-negative
//! integers; "name:scalar" and "name:" (an empty value) are 0-D shapes, as in trtexec. A name given twice is an
//! error.
bool parseShapeSpecs(std::string const& text, std::vector<ShapeSpec>& specs, std::string& error);

//! The spec that names `name` among `specs`, or null.
ShapeSpec const* findSpec(std::vector<ShapeSpec> const& specs, std::string const& name);

//! --memPoolSize: "workspace:1024,dlaSRAM:1M". A bare number is MiB; suffixes B, K, M, G (powers of 1024).
struct PoolSize
{
    std::string pool;
    std::size_t bytes{0};
};
bool parseMemPoolSizes(std::string const& text, std::vector<PoolSize>& pools, std::string& error);

//! --percentile: "90,95,99", each in [0, 100].
bool parsePercentiles(std::string const& text, std::vector<float>& percentiles, std::string& error);

} // namespace kiln::cli
