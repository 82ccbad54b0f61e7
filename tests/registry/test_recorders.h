// A logger and an error recorder that keep what they receive, for assertions.
#pragma once

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

class RecordingErrorRecorder : public nvinfer1::IErrorRecorder
{
public:
    int32_t getNbErrors() const noexcept override
    {
        return static_cast<int32_t>(errors.size());
    }
    nvinfer1::ErrorCode getErrorCode(int32_t errorIdx) const noexcept override
    {
        return errors.at(static_cast<size_t>(errorIdx)).first;
    }
    ErrorDesc getErrorDesc(int32_t errorIdx) const noexcept override
    {
        return errors.at(static_cast<size_t>(errorIdx)).second.c_str();
    }
    bool hasOverflowed() const noexcept override
    {
        return false;
    }
    void clear() noexcept override
    {
        errors.clear();
    }
    bool reportError(nvinfer1::ErrorCode code, ErrorDesc desc) noexcept override
    {
        errors.emplace_back(code, desc);
        return true;
    }
    RefCount incRefCount() noexcept override
    {
        return ++references;
    }
    RefCount decRefCount() noexcept override
    {
        return --references;
    }

    std::vector<std::pair<nvinfer1::ErrorCode, std::string>> errors;
    RefCount references{0};
};

} // namespace kiln_test
