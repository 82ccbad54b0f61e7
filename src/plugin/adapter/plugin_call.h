// Calls into plugin code: guarded (an exception becomes an error naming the
// plugin and the method) and traced (at kVERBOSE, every call with its phase).
#pragma once

#include "core/logging.h"

#include <string>

namespace kiln::plugin
{

//! "MyPlugin (version 1, namespace \"ns\")": how messages name a plugin.
std::string describePlugin(std::string const& name, std::string const& version, std::string const& ns);

//! Runs call() and returns its result; if it throws, logs an error naming plugin
//! and method and returns onThrow. phase is "build", "runtime" or "network".
template <typename Call, typename Result>
Result callPlugin(std::string const& plugin, char const* phase, char const* method, std::string const& details,
    Result onThrow, Call&& call)
{
    logVerbose("[plugin " + plugin + "] " + phase + ": " + method + (details.empty() ? "" : "(" + details + ")"));
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

} // namespace kiln::plugin
