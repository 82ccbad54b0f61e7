// Calls into plugin code: guarded (an exception becomes an error naming the
// plugin and the method) and traced (at kVERBOSE, every call with its phase).
#pragma once

#include "core/logging.h"

#include <string>
#include <utility>

namespace kiln::plugin
{

//! "MyPlugin (version 1, namespace \"ns\")": how messages name a plugin.
std::string describePlugin(std::string const& name, std::string const& version, std::string const& ns);

//! Runs call() and returns its result; if it throws, logs an error naming `plugin` and `method` and returns onThrow.
//! `trace` is the kVERBOSE line logged first, made once by a caller that calls at every run (an enqueue), so that
//! the run formats no message.
template <typename Call, typename Result>
Result callPluginTraced(
    std::string const& trace, std::string const& plugin, char const* method, Result onThrow, Call&& call)
{
    logVerbose(trace);
    try
    {
        return call();
    }
    catch (std::exception const& e)
    {
        logError("plugin " + plugin + " threw from " + method + ": " + e.what());
    }
    catch (...)
    {
        logError("plugin " + plugin + " threw a non-standard exception from " + method);
    }
    return onThrow;
}

//! The kVERBOSE line callPlugin logs.
inline std::string pluginCallTrace(
    std::string const& plugin, char const* phase, char const* method, std::string const& details)
{
    return "[plugin " + plugin + "] " + phase + ": " + method + (details.empty() ? "" : "(" + details + ")");
}

//! Runs call() and returns its result; if it throws, logs an error naming plugin
//! and method and returns onThrow. phase is "build", "runtime" or "network".
template <typename Call, typename Result>
Result callPlugin(std::string const& plugin, char const* phase, char const* method, std::string const& details,
    Result onThrow, Call&& call)
{
    return callPluginTraced(
        pluginCallTrace(plugin, phase, method, details), plugin, method, onThrow, std::forward<Call>(call));
}

} // namespace kiln::plugin
