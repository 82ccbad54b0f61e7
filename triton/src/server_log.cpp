#include "server_log.h"

#include "kiln_triton/triton_api.h"

namespace kiln::triton
{
namespace
{

thread_local KilnErrorCapture* tCapture = nullptr;

void logAt(TRITONSERVER_LogLevel level, std::string const& message)
{
    if (!TRITONSERVER_LogIsEnabled(level))
    {
        return;
    }
    TRITONSERVER_Error* error = TRITONSERVER_LogMessage(level, "kiln", 0, message.c_str());
    if (error != nullptr)
    {
        TRITONSERVER_ErrorDelete(error); // nowhere else to report it
    }
}

} // namespace

void logInfo(std::string const& message)
{
    logAt(TRITONSERVER_LOG_INFO, message);
}

void logWarning(std::string const& message)
{
    logAt(TRITONSERVER_LOG_WARN, message);
}

void logError(std::string const& message)
{
    logAt(TRITONSERVER_LOG_ERROR, message);
}

void logVerbose(std::string const& message)
{
    logAt(TRITONSERVER_LOG_VERBOSE, message);
}

void ServerLogger::log(Severity severity, char const* message) noexcept
{
    try
    {
        std::string const text = std::string("Kiln: ") + (message != nullptr ? message : "");
        switch (severity)
        {
        case Severity::kINTERNAL_ERROR:
        case Severity::kERROR:
            logError(text);
            if (tCapture != nullptr)
            {
                tCapture->add(message != nullptr ? message : "");
            }
            break;
        case Severity::kWARNING: logWarning(text); break;
        case Severity::kINFO:
        case Severity::kVERBOSE: logVerbose(text); break;
        }
    }
    catch (...)
    {
        // A message that cannot be formatted (out of memory) is dropped rather than thrown into Kiln.
    }
}

ServerLogger& serverLogger()
{
    static ServerLogger logger;
    return logger;
}

KilnErrorCapture::KilnErrorCapture()
    : mOuter(tCapture)
{
    tCapture = this;
}

KilnErrorCapture::~KilnErrorCapture()
{
    tCapture = mOuter;
}

void KilnErrorCapture::add(std::string const& message)
{
    mErrors.push_back(message);
}

std::string KilnErrorCapture::explain(std::string const& what) const
{
    if (mErrors.empty())
    {
        return what;
    }
    std::string text = what + " (Kiln: ";
    for (size_t i = 0; i < mErrors.size(); ++i)
    {
        text += (i == 0 ? "" : "; ") + mErrors[i];
    }
    return text + ")";
}

} // namespace kiln::triton
