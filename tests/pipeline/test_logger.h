// A logger for tests: keeps every message. Thread-safe, as TensorRT requires of loggers.
#pragma once

#include <NvInfer.h>

#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

namespace kiln::test
{

class RecordingLogger final : public nvinfer1::ILogger
{
public:
    void log(Severity severity, char const* msg) noexcept override
    {
        std::lock_guard<std::mutex> lock(mMutex);
        messages.emplace_back(severity, msg);
    }
    //! Every error message joined, for assertions about what a failure said.
    std::string errors() const
    {
        std::lock_guard<std::mutex> lock(mMutex);
        std::string all;
        for (auto const& [severity, text] : messages)
        {
            if (severity <= Severity::kERROR)
            {
                all += text + "\n";
            }
        }
        return all;
    }
    std::vector<std::pair<Severity, std::string>> messages;

private:
    mutable std::mutex mMutex;
};

} // namespace kiln::test
