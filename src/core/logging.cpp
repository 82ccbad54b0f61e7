#include "core/logging.h"

#include "core/printable_text.h"

#include <kiln/Logging.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <iterator>
#include <mutex>
#include <vector>

namespace kiln
{
namespace
{

char const* severityTag(Severity severity)
{
    switch (severity)
    {
    case Severity::kINTERNAL_ERROR: return "F";
    case Severity::kERROR: return "E";
    case Severity::kWARNING: return "W";
    case Severity::kINFO: return "I";
    case Severity::kVERBOSE: return "V";
    }
    return "?";
}

class StderrLogger final : public nvinfer1::ILogger
{
public:
    void log(Severity severity, char const* msg) noexcept override
    {
        if (severity > Severity::kWARNING)
        {
            return;
        }
        try
        {
            // msg quotes names from models and plans, which must not reach the terminal raw.
            std::fprintf(stderr, "[kiln] [%s] %s\n", severityTag(severity), printableText(msg ? msg : "").c_str());
        }
        catch (...)
        {
            std::fprintf(stderr, "[kiln] [%s] (a message too large to print)\n", severityTag(severity));
        }
    }
};

StderrLogger gDefaultLogger;
std::atomic<nvinfer1::ILogger*> gLogger{&gDefaultLogger};

// Leases, oldest first, and the logger under them (the default one, or what kiln::setLogger set).
std::mutex gLeaseMutex;
std::vector<nvinfer1::ILogger*> gLeases;
nvinfer1::ILogger* gBaseLogger{&gDefaultLogger};

} // namespace

void setLogger(nvinfer1::ILogger* logger) noexcept
{
    std::lock_guard<std::mutex> lock(gLeaseMutex);
    gBaseLogger = logger ? logger : &gDefaultLogger;
    gLogger.store(gBaseLogger);
}

LoggerLease::LoggerLease(nvinfer1::ILogger& logger)
    : mLogger(&logger)
{
    std::lock_guard<std::mutex> lock(gLeaseMutex);
    gLeases.push_back(mLogger);
    gLogger.store(mLogger);
}

LoggerLease::~LoggerLease()
{
    std::lock_guard<std::mutex> lock(gLeaseMutex);
    auto const it = std::find(gLeases.rbegin(), gLeases.rend(), mLogger);
    if (it != gLeases.rend())
    {
        gLeases.erase(std::next(it).base());
    }
    gLogger.store(gLeases.empty() ? gBaseLogger : gLeases.back());
}

nvinfer1::ILogger& globalLogger() noexcept
{
    return *gLogger.load();
}

void log(nvinfer1::ILogger* logger, Severity severity, std::string const& msg) noexcept
{
    try
    {
        (logger ? *logger : globalLogger()).log(severity, msg.c_str());
    }
    catch (...)
    {
        // A logger that throws must not take Kiln down with it.
    }
}

void log(Severity severity, std::string const& msg) noexcept
{
    log(nullptr, severity, msg);
}

} // namespace kiln

extern "C" nvinfer1::ILogger* getLogger() noexcept
{
    return &kiln::globalLogger();
}
