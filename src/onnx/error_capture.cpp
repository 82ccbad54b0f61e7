#include "onnx/error_capture.h"

#include <NvInferRuntime.h>
#include <kiln/Logging.h>

#include <mutex>
#include <optional>

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
std::optional<LoggerLease> gForwarderLease; //!< held while any capture is active

} // namespace

ErrorCapture::ErrorCapture()
    : mOuter(tActiveCapture)
{
    std::lock_guard<std::mutex> lock(gInstallMutex);
    if (gActiveCount++ == 0)
    {
        gForwarder.mTarget = getLogger();
        gForwarderLease.emplace(gForwarder);
    }
    tActiveCapture = this;
}

ErrorCapture::~ErrorCapture()
{
    tActiveCapture = mOuter;
    std::lock_guard<std::mutex> lock(gInstallMutex);
    // Ending the lease puts the logger that was in charge before back in charge.
    if (--gActiveCount == 0)
    {
        gForwarderLease.reset();
    }
}

} // namespace kiln::onnxparser
