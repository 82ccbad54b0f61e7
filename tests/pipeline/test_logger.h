// A logger for tests: keeps every message, prints errors.
#pragma once

#include <NvInfer.h>

#include <cstdio>
#include <string>
#include <vector>

namespace kiln::test
{

class RecordingLogger final : public nvinfer1::ILogger
{
public:
    void log(Severity severity, char const* msg) noexcept override
    {
        messages.emplace_back(severity, msg);
    }
    //! Every error message joined, for assertions about what a failure said.
    std::string errors() const
    {
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
};

} // namespace kiln::test
