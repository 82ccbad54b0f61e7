// A logger for the model tests' builds and parses: it keeps the text of every error, for the failure messages.
#pragma once

#include <NvInfer.h>

#include <string>

namespace kiln::test
{

class ErrorLogger final : public nvinfer1::ILogger
{
public:
    void log(Severity severity, char const* message) noexcept override
    {
        if (severity <= Severity::kERROR)
        {
            errors += std::string(message) + "\n";
        }
    }
    std::string errors; //!< one line per error
};

} // namespace kiln::test
