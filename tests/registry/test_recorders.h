// A logger and an error recorder that keep what they receive, for assertions.
#pragma once

#include "keeping_recorder.h"

#include <NvInferRuntime.h>

#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace kiln_test
{

class RecordingLogger : public nvinfer1::ILogger
{
public:
    void log(Severity severity, char const* msg) noexcept override
    {
        std::lock_guard<std::mutex> lock(mMutex);
        mMessages.emplace_back(severity, msg);
    }

    //! The messages of one severity, in order.
    std::vector<std::string> messages(Severity severity) const
    {
        std::lock_guard<std::mutex> lock(mMutex);
        std::vector<std::string> result;
        for (auto const& [messageSeverity, text] : mMessages)
        {
            if (messageSeverity == severity)
            {
                result.push_back(text);
            }
        }
        return result;
    }
    std::vector<std::string> errors() const
    {
        return messages(Severity::kERROR);
    }
    std::vector<std::string> warnings() const
    {
        return messages(Severity::kWARNING);
    }
    void clear()
    {
        std::lock_guard<std::mutex> lock(mMutex);
        mMessages.clear();
    }

private:
    mutable std::mutex mMutex;
    std::vector<std::pair<Severity, std::string>> mMessages;
};

//! The shared recorder (tests/support), under the name these tests use.
using RecordingErrorRecorder = kiln::test::KeepingRecorder;

} // namespace kiln_test
