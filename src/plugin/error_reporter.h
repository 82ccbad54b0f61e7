// Where the plugin registry's errors go: Kiln's logger, and the application's
// IErrorRecorder when one was set through IPluginRegistry::setErrorRecorder.
#pragma once

#include <NvInferRuntime.h>

#include <mutex>
#include <string>

namespace kiln::plugin
{

class ErrorReporter
{
public:
    ErrorReporter() = default;
    ErrorReporter(ErrorReporter const&) = delete;
    ErrorReporter& operator=(ErrorReporter const&) = delete;

    //! Takes a reference on recorder (incRefCount) and drops the one on the previous
    //! recorder (decRefCount). nullptr detaches.
    void setRecorder(nvinfer1::IErrorRecorder* recorder) noexcept;
    nvinfer1::IErrorRecorder* recorder() const noexcept;

    //! Logs msg as an error and hands it to the recorder, if any.
    void error(nvinfer1::ErrorCode code, std::string const& msg) const noexcept;

private:
    mutable std::mutex mMutex;
    nvinfer1::IErrorRecorder* mRecorder{nullptr};
};

} // namespace kiln::plugin
