// The logger behind Kiln's free functions (getLogger()), and message helpers. Leases on it are public
// (kiln/Logging.h); the rest is libkiln's own: code above the library logs through getLogger() or its own logger.
#pragma once

#include <NvInferRuntime.h>
#include <kiln/Logging.h>

#include <string>

namespace kiln
{

using Severity = nvinfer1::ILogger::Severity;

//! The logger that getLogger() returns: the application's (set by createInferBuilder,
//! createInferRuntime, initLibNvInferPlugins or kiln::setLogger) or the default
//! one, which writes warnings and errors to stderr.
nvinfer1::ILogger& globalLogger() noexcept;

//! Sends msg to the global logger. A logger that throws is ignored, never propagated.
void log(Severity severity, std::string const& msg) noexcept;

//! Sends msg to logger, or to the global logger when logger is null.
void log(nvinfer1::ILogger* logger, Severity severity, std::string const& msg) noexcept;

inline void logError(std::string const& msg) noexcept
{
    log(Severity::kERROR, msg);
}
inline void logWarning(std::string const& msg) noexcept
{
    log(Severity::kWARNING, msg);
}
inline void logInfo(std::string const& msg) noexcept
{
    log(Severity::kINFO, msg);
}
inline void logVerbose(std::string const& msg) noexcept
{
    log(Severity::kVERBOSE, msg);
}

} // namespace kiln
