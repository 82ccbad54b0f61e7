#include "plugin/error_reporter.h"

#include "core/logging.h"

namespace kiln::plugin
{

void ErrorReporter::setRecorder(nvinfer1::IErrorRecorder* recorder) noexcept
{
    nvinfer1::IErrorRecorder* previous{nullptr};
    {
        std::lock_guard<std::mutex> lock(mMutex);
        previous = mRecorder;
        mRecorder = recorder;
    }
    // The reference counts are user code: called without the lock so that a recorder
    // that calls back into the registry cannot deadlock it.
    if (recorder != nullptr)
    {
        try
        {
            recorder->incRefCount();
        }
        catch (...)
        {
            logError("IPluginRegistry::setErrorRecorder: the new error recorder's incRefCount() threw an exception");
        }
    }
    if (previous != nullptr)
    {
        try
        {
            previous->decRefCount();
        }
        catch (...)
        {
            logError(
                "IPluginRegistry::setErrorRecorder: the previous error recorder's decRefCount() threw an exception");
        }
    }
}

nvinfer1::IErrorRecorder* ErrorReporter::recorder() const noexcept
{
    std::lock_guard<std::mutex> lock(mMutex);
    return mRecorder;
}

void ErrorReporter::error(nvinfer1::ErrorCode code, std::string const& msg) const noexcept
{
    logError(msg);
    nvinfer1::IErrorRecorder* target = recorder();
    if (target == nullptr)
    {
        return;
    }
    try
    {
        target->reportError(code, msg.c_str());
    }
    catch (...)
    {
        logError("IPluginRegistry: the error recorder's reportError() threw an exception while reporting: " + msg);
    }
}

} // namespace kiln::plugin
