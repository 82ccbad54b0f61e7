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
        return joined(Severity::kERROR);
    }
    //! Every warning (and error) joined.
    std::string warnings() const
    {
        return joined(Severity::kWARNING);
    }
    std::vector<std::pair<Severity, std::string>> messages;

private:
    //! Messages of `worst` severity or more severe, one per line.
    std::string joined(Severity worst) const
    {
        std::lock_guard<std::mutex> lock(mMutex);
        std::string all;
        for (auto const& [severity, text] : messages)
        {
            if (severity <= worst)
            {
                all += text + "\n";
            }
        }
        return all;
    }

    mutable std::mutex mMutex;
};

} // namespace kiln::test
