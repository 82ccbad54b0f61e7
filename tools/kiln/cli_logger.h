// The command's logger: trtexec's "[date-time] [I] message" lines. Information goes to stdout,
// warnings and errors to stderr. Thread-safe (inference streams log from their threads).
#pragma once

#include <NvInferRuntime.h>

#include <mutex>
#include <string>

namespace kiln::cli
{

class CliLogger final : public nvinfer1::ILogger
{
public:
    void log(Severity severity, char const* msg) noexcept override;
    void setVerbose(bool verbose)
    {
        mThreshold = verbose ? Severity::kVERBOSE : Severity::kINFO;
    }

private:
    std::mutex mMutex;
    Severity mThreshold{Severity::kINFO};
};

//! The command's one logger (Kiln reports through it too once it is passed to createInferBuilder etc.).
CliLogger& logger();

void logInfo(std::string const& message);
void logWarning(std::string const& message);
void logError(std::string const& message);
void logVerbose(std::string const& message);

//! The build's progress bar is on stdout's last line: the next log line clears it first.
void setProgressLineShown(bool shown);

} // namespace kiln::cli
