#include "cli_logger.h"

#include "core/printable_text.h"

#include <atomic>
#include <cstdio>
#include <ctime>
#include <exception>

namespace kiln::cli
{
namespace
{

std::atomic<bool> gProgressLineShown{false};

char const* severityTag(nvinfer1::ILogger::Severity severity)
{
    using Severity = nvinfer1::ILogger::Severity;
    switch (severity)
    {
    case Severity::kINTERNAL_ERROR: return "[F]";
    case Severity::kERROR: return "[E]";
    case Severity::kWARNING: return "[W]";
    case Severity::kINFO: return "[I]";
    case Severity::kVERBOSE: return "[V]";
    }
    return "[?]";
}

} // namespace

void CliLogger::log(Severity severity, char const* msg) noexcept
{
    if (severity > mThreshold)
    {
        return;
    }
    std::time_t const now = std::time(nullptr);
    std::tm local{};
    localtime_r(&now, &local);
    char stamp[32];
    std::strftime(stamp, sizeof(stamp), "%m/%d/%Y-%H:%M:%S", &local);

    std::lock_guard<std::mutex> lock(mMutex);
    bool const toStderr = severity <= Severity::kWARNING;
    if (gProgressLineShown.exchange(false))
    {
        std::fputs("\r\033[K", stdout); // erase the progress bar; it is redrawn at the next step
    }
    // Keep stdout's lines ahead of an error that follows them on a shared terminal or file.
    std::fflush(stdout);
    std::FILE* stream = toStderr ? stderr : stdout;
    // Messages quote names and paths from models, plans and plugins: one escape sequence or newline in them must not
    // reach the terminal or forge a line such as "&&&& PASSED".
    try
    {
        std::fprintf(stream, "[%s] %s %s\n", stamp, severityTag(severity), kiln::printableText(msg ? msg : "").c_str());
    }
    catch (std::exception const&)
    {
        std::fprintf(stream, "[%s] %s (a message too large to print)\n", stamp, severityTag(severity));
    }
    std::fflush(stream);
}

void setProgressLineShown(bool shown)
{
    gProgressLineShown = shown;
}

CliLogger& logger()
{
    static CliLogger instance;
    return instance;
}

void logInfo(std::string const& message)
{
    logger().log(nvinfer1::ILogger::Severity::kINFO, message.c_str());
}

void logWarning(std::string const& message)
{
    logger().log(nvinfer1::ILogger::Severity::kWARNING, message.c_str());
}

void logError(std::string const& message)
{
    logger().log(nvinfer1::ILogger::Severity::kERROR, message.c_str());
}

void logVerbose(std::string const& message)
{
    logger().log(nvinfer1::ILogger::Severity::kVERBOSE, message.c_str());
}

} // namespace kiln::cli
