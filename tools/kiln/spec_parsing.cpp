#include "spec_parsing.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <set>

namespace kiln::cli
{
namespace
{

bool parseNumber(std::string const& text, double& value)
{
    auto const [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    return !text.empty() && ec == std::errc{} && end == text.data() + text.size() && std::isfinite(value);
}

//! "a positive integer", "an integer from 0 to 5": what a flag's integer values must be.
std::string integerRange(int64_t minimum, int64_t maximum)
{
    std::string const most
        = maximum == std::numeric_limits<int64_t>::max() ? "" : " (at most " + std::to_string(maximum) + ")";
    if (minimum == 1)
    {
        return "a positive integer" + most;
    }
    if (minimum == 0)
    {
        return "a non-negative integer" + most;
    }
    return "an integer from " + std::to_string(minimum) + " to " + std::to_string(maximum);
}

//! Splits at commas that are not inside single quotes.
std::vector<std::string> splitEntries(std::string const& text)
{
    std::vector<std::string> entries(1);
    bool quoted = false;
    for (char c : text)
    {
        if (c == '\'')
        {
            quoted = !quoted;
        }
        if (c == ',' && !quoted)
        {
            entries.emplace_back();
            continue;
        }
        entries.back() += c;
    }
    return entries;
}

} // namespace

bool parseInteger(
    char const* flag, std::string const& text, int64_t minimum, int64_t maximum, int64_t& value, std::string& error)
{
    int64_t parsed = 0;
    char const* first = text.data();
    char const* last = text.data() + text.size();
    auto const [end, ec] = std::from_chars(first, last, parsed);
    if (text.empty() || ec != std::errc{} || end != last || parsed < minimum || parsed > maximum)
    {
        char const* why = ec == std::errc::result_out_of_range ? " (it overflows)" : "";
        error = std::string(flag) + ": \"" + text + "\" is not valid" + why + ": the value must be "
            + integerRange(minimum, maximum);
        return false;
    }
    value = parsed;
    return true;
}

bool parseReal(
    char const* flag, std::string const& text, double minimum, double maximum, double& value, std::string& error)
{
    double parsed = 0;
    if (!parseNumber(text, parsed) || parsed < minimum || parsed > maximum)
    {
        error = std::string(flag) + ": \"" + text + "\" is not valid: the value must be a number from "
            + std::to_string(minimum) + " to " + std::to_string(maximum);
        if (minimum == 0 && maximum == std::numeric_limits<double>::max())
        {
            error = std::string(flag) + ": \"" + text + "\" is not valid: the value must be a non-negative number";
        }
        return false;
    }
    value = parsed;
    return true;
}

bool parseNameValueList(std::string const& text, std::vector<NameValue>& entries, std::string& error)
{
    entries.clear();
    if (text.empty())
    {
        error = "the list is empty; expected name:value[,name:value...]";
        return false;
    }
    for (std::string const& entry : splitEntries(text))
    {
        NameValue item;
        size_t separator = std::string::npos;
        if (!entry.empty() && entry.front() == '\'')
        {
            size_t const close = entry.find('\'', 1);
            if (close == std::string::npos)
            {
                error = "\"" + entry + "\": the quoted name has no closing quote";
                return false;
            }
            item.name = entry.substr(1, close - 1);
            separator = close + 1;
            if (separator >= entry.size() || entry[separator] != ':')
            {
                error = "\"" + entry + "\": expected ':' after the quoted name";
                return false;
            }
        }
        else
        {
            separator = entry.rfind(':');
            if (separator == std::string::npos)
            {
                error = "\"" + entry + "\": expected name:value";
                return false;
            }
            item.name = entry.substr(0, separator);
        }
        if (item.name.empty())
        {
            error = "\"" + entry + "\": the name is empty";
            return false;
        }
        item.value = entry.substr(separator + 1);
        entries.push_back(std::move(item));
    }
    return true;
}

ShapeSpec const* findSpec(std::vector<ShapeSpec> const& specs, std::string const& name)
{
    auto const it = std::find_if(specs.begin(), specs.end(), [&](ShapeSpec const& s) { return s.name == name; });
    return it == specs.end() ? nullptr : &*it;
}

bool parseShapeSpecs(std::string const& text, std::vector<ShapeSpec>& specs, std::string& error)
{
    specs.clear();
    std::vector<NameValue> entries;
    if (!parseNameValueList(text, entries, error))
    {
        return false;
    }
    std::set<std::string> seen;
    for (auto const& [name, value] : entries)
    {
        if (!seen.insert(name).second)
        {
            error = "the shape of \"" + name + "\" is given twice";
            return false;
        }
        ShapeSpec spec{name, {}};
        // trtexec spells a 0-D shape "name:scalar" or "name:" with nothing after the colon.
        if (!value.empty() && value != "scalar")
        {
            size_t start = 0;
            while (true)
            {
                size_t const x = value.find('x', start);
                std::string const extent = value.substr(start, x == std::string::npos ? std::string::npos : x - start);
                int64_t parsed = 0;
                std::string why;
                if (!parseInteger("extent", extent, 0, std::numeric_limits<int64_t>::max(), parsed, why))
                {
                    error = "\"" + name + ":" + value + "\": \"" + extent + "\" is not a dimension"
                        + (extent.find_first_not_of("0123456789") == std::string::npos && !extent.empty()
                                ? " (it overflows a 64-bit extent)"
                                : "")
                        + "; expected extents like 1x3x224x224";
                    return false;
                }
                if (spec.dims.nbDims == nvinfer1::Dims::MAX_DIMS)
                {
                    error = "\"" + name + ":" + value + "\" has more than " + std::to_string(nvinfer1::Dims::MAX_DIMS)
                        + " dimensions";
                    return false;
                }
                spec.dims.d[spec.dims.nbDims++] = parsed;
                if (x == std::string::npos)
                {
                    break;
                }
                start = x + 1;
            }
        }
        specs.push_back(spec);
    }
    return true;
}

bool parseMemPoolSizes(std::string const& text, std::vector<PoolSize>& pools, std::string& error)
{
    pools.clear();
    std::vector<NameValue> entries;
    if (!parseNameValueList(text, entries, error))
    {
        return false;
    }
    static std::set<std::string> const known{
        "workspace", "dlaSRAM", "dlaLocalDRAM", "dlaGlobalDRAM", "tacticSharedMem"};
    for (auto const& [name, value] : entries)
    {
        if (known.count(name) == 0)
        {
            error = "unknown memory pool \"" + name
                + "\"; expected workspace, dlaSRAM, dlaLocalDRAM, dlaGlobalDRAM or tacticSharedMem";
            return false;
        }
        std::string number = value;
        double unit = 1024.0 * 1024.0; // trtexec: a bare number is MiB
        if (!number.empty())
        {
            switch (number.back())
            {
            case 'B': unit = 1; break;
            case 'K': unit = 1024.0; break;
            case 'M': unit = 1024.0 * 1024.0; break;
            case 'G': unit = 1024.0 * 1024.0 * 1024.0; break;
            default: break;
            }
            if (number.back() == 'B' || number.back() == 'K' || number.back() == 'M' || number.back() == 'G')
            {
                number.pop_back();
            }
        }
        double size = 0;
        if (!parseNumber(number, size) || size < 0)
        {
            error = "\"" + name + ":" + value
                + "\": the size must be a non-negative number of MiB, or a number with the suffix B, K, M or G";
            return false;
        }
        // 2^63 bytes: beyond it the size does not fit the builder's pool limits (and the product would overflow).
        double const bytes = size * unit;
        if (bytes >= 9223372036854775808.0)
        {
            error = "\"" + name + ":" + value + "\": the size overflows; a pool is at most 2^63 - 1 bytes (8 EiB)";
            return false;
        }
        pools.push_back({name, static_cast<std::size_t>(bytes)});
    }
    return true;
}

bool parsePercentiles(std::string const& text, std::vector<float>& percentiles, std::string& error)
{
    percentiles.clear();
    for (std::string const& entry : splitEntries(text))
    {
        double value = 0;
        if (!parseNumber(entry, value) || value < 0 || value > 100)
        {
            error = "\"" + entry + "\" is not a percentile; expected numbers in [0, 100] like 90,95,99";
            return false;
        }
        percentiles.push_back(static_cast<float>(value));
    }
    return true;
}

} // namespace kiln::cli
