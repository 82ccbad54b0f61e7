#include "model_parameters.h"

#include "backend_error.h"

#include <algorithm>
#include <array>
#include <limits>
#include <optional>

namespace kiln::triton
{
namespace
{

constexpr std::array<char const*, 7> kKNOWN_PARAMETERS{
    "plugins", "precision", "min_shapes", "opt_shapes", "max_shapes", "cpu_threads", "max_cuda_graphs"};

BackendError badParameter(std::string const& key, std::string const& value, std::string const& why)
{
    return BackendError(TRITONSERVER_ERROR_INVALID_ARG, "parameter " + key + " (\"" + value + "\"): " + why);
}

std::vector<std::string> split(std::string const& text, char separator)
{
    std::vector<std::string> parts;
    size_t start = 0;
    while (start <= text.size())
    {
        size_t const end = std::min(text.find(separator, start), text.size());
        std::string part = text.substr(start, end - start);
        size_t const first = part.find_first_not_of(" \t");
        size_t const last = part.find_last_not_of(" \t");
        if (first != std::string::npos)
        {
            parts.push_back(part.substr(first, last - first + 1));
        }
        start = end + 1;
    }
    return parts;
}

int64_t positiveInteger(std::string const& text, std::string const& key, std::string const& value)
{
    bool const digits = !text.empty() && text.size() <= 18
        && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (!digits || std::stoll(text) == 0)
    {
        throw badParameter(key, value, "\"" + text + "\" is not a positive whole number");
    }
    return std::stoll(text);
}

//! "name:1x3x64x64,other:1x8": the name is everything before the last ':', so names may hold ':' themselves.
ShapeMap parseShapes(std::string const& key, std::string const& value)
{
    ShapeMap shapes;
    for (std::string const& entry : split(value, ','))
    {
        size_t const colon = entry.rfind(':');
        if (colon == std::string::npos || colon == 0)
        {
            throw badParameter(key, value, "\"" + entry + "\" is not NAME:DIMS (image:8x3x224x224)");
        }
        std::vector<int64_t> dims;
        for (std::string const& d : split(entry.substr(colon + 1), 'x'))
        {
            dims.push_back(positiveInteger(d, key, value));
        }
        shapes[entry.substr(0, colon)] = dims;
    }
    return shapes;
}

std::vector<std::string> pluginPaths(std::string const& list, std::string const& directory)
{
    std::vector<std::string> paths;
    for (std::string const& path : split(list, ';'))
    {
        paths.push_back(path.front() == '/' || directory.empty() ? path : directory + "/" + path);
    }
    return paths;
}

} // namespace

ModelParameters readModelParameters(
    ModelConfig const& config, std::string const& modelDirectory, BackendSettings const& backend)
{
    for (std::string const& key : config.parameterKeys())
    {
        if (std::find(kKNOWN_PARAMETERS.begin(), kKNOWN_PARAMETERS.end(), key) == kKNOWN_PARAMETERS.end())
        {
            throw BackendError(TRITONSERVER_ERROR_INVALID_ARG,
                "unknown parameter \"" + key
                    + "\"; Kiln's backend knows plugins, precision, min_shapes, opt_shapes, max_shapes, cpu_threads "
                      "and max_cuda_graphs");
        }
    }
    ModelParameters parameters;
    parameters.pluginLibraries = pluginPaths(backend.plugins, "");
    for (std::string const& path : pluginPaths(config.parameter("plugins").value_or(""), modelDirectory))
    {
        parameters.pluginLibraries.push_back(path);
    }
    parameters.precision = config.parameter("precision").value_or("FP32");
    if (parameters.precision != "FP32" && parameters.precision != "FP16" && parameters.precision != "BF16")
    {
        throw badParameter("precision", parameters.precision, "Kiln's backend builds in FP32, FP16 or BF16");
    }
    parameters.minShapes = parseShapes("min_shapes", config.parameter("min_shapes").value_or(""));
    parameters.optShapes = parseShapes("opt_shapes", config.parameter("opt_shapes").value_or(""));
    parameters.maxShapes = parseShapes("max_shapes", config.parameter("max_shapes").value_or(""));
    for (auto const& [name, dims] : parameters.minShapes)
    {
        if (parameters.optShapes.count(name) == 0 || parameters.maxShapes.count(name) == 0)
        {
            throw BackendError(TRITONSERVER_ERROR_INVALID_ARG,
                "input \"" + name + "\" needs a shape in each of min_shapes, opt_shapes and max_shapes");
        }
    }
    if (parameters.optShapes.size() != parameters.minShapes.size()
        || parameters.maxShapes.size() != parameters.minShapes.size())
    {
        throw BackendError(
            TRITONSERVER_ERROR_INVALID_ARG, "min_shapes, opt_shapes and max_shapes must name the same inputs");
    }
    std::optional<std::string> const threads = config.parameter("cpu_threads");
    if (threads.has_value() && *threads != "0")
    {
        parameters.cpuThreads = static_cast<int32_t>(
            std::min<int64_t>(positiveInteger(*threads, "cpu_threads", *threads), std::numeric_limits<int32_t>::max()));
    }
    parameters.cudaGraphs = config.cudaGraphs();
    std::optional<std::string> const graphs = config.parameter("max_cuda_graphs");
    if (graphs.has_value())
    {
        parameters.maxCudaGraphs = static_cast<size_t>(positiveInteger(*graphs, "max_cuda_graphs", *graphs));
    }
    return parameters;
}

std::string shapeText(std::string const& name, std::vector<int64_t> const& dims)
{
    std::string text = name + ":";
    for (size_t i = 0; i < dims.size(); ++i)
    {
        text += (i == 0 ? "" : "x") + std::to_string(dims[i]);
    }
    return text;
}

} // namespace kiln::triton
