// How the collection's plugins fail: by throwing PluginError inside, and by logging it and returning TensorRT's
// failure value at the interface (plugins are called through noexcept methods, and exceptions must not cross them).
#pragma once

#include <NvInferRuntime.h>

#include <exception>
#include <stdexcept>
#include <string>

namespace kiln::plugins
{

//! A failure whose message already names the plugin and what is wrong ("EfficientNMS_TRT: field ...").
class PluginError : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;
};

//! Logs `message` as an error through the logger the application gave TensorRT (getLogger()).
void logError(std::string const& message) noexcept;

//! Runs `body` and returns its result; if it throws, logs the error (prefixed by `plugin` and `call` unless it is
//! a PluginError, which names them itself) and returns `failure`.
template <typename Body, typename Result>
Result guarded(char const* plugin, char const* call, Result failure, Body&& body) noexcept
{
    try
    {
        return body();
    }
    catch (PluginError const& error)
    {
        logError(error.what());
    }
    catch (std::exception const& error)
    {
        logError(std::string(plugin) + ": " + call + " failed: " + error.what());
    }
    catch (...)
    {
        logError(std::string(plugin) + ": " + call + " failed with an unknown exception");
    }
    return failure;
}

} // namespace kiln::plugins
