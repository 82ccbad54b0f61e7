#include "onnx/error_capture.h"

#include "core/logging.h"

#include <kiln/Logging.h>

#include <mutex>

namespace kiln::onnxparser
{
namespace
{

thread_local ErrorCapture* tActiveCapture = nullptr;

//! Installed as Kiln's global logger while any capture is active: forwards every message to the
//! logger it replaced and hands errors to the active capture of the logging thread.
class ForwardingLogger final : public nvinfer1::ILogger
{
public:
    void log(Severity severity, char const* msg) noexcept override
    {
        if (severity <= Severity::kERROR && tActiveCapture != nullptr)
        {
            try
            {
                tActiveCapture->record(msg);
            }
            catch (...)
            {
            }
        }
        if (mTarget != nullptr)
        {
            mTarget->log(severity, msg);
        }
    }
    nvinfer1::ILogger* mTarget{nullptr};
};

std::mutex gInstallMutex;
ForwardingLogger gForwarder;
int gActiveCount = 0;

} // namespace

ErrorCapture::ErrorCapture()
    : mOuter(tActiveCapture)
{
    std::lock_guard<std::mutex> lock(gInstallMutex);
    if (gActiveCount++ == 0)
    {
        gForwarder.mTarget = &kiln::globalLogger();
        if (gForwarder.mTarget != &gForwarder)
        {
            kiln::setLogger(&gForwarder);
        }
    }
    tActiveCapture = this;
}

ErrorCapture::~ErrorCapture()
{
    tActiveCapture = mOuter;
    std::lock_guard<std::mutex> lock(gInstallMutex);
    // Put the application's logger back, unless it set another one meanwhile.
    if (--gActiveCount == 0 && &kiln::globalLogger() == &gForwarder)
    {
        kiln::setLogger(gForwarder.mTarget);
    }
}

} // namespace kiln::onnxparser
