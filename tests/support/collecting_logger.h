// A logger that keeps every error, so that tests can check that a refused call said why, naming the call, and print
// them where a step failed.
// C++17, for the tests written as applications are (tests/dialects).
#pragma once

#include <NvInferRuntime.h>

#include <algorithm>
#include <string>
#include <vector>

namespace kiln::test
{

class CollectingLogger final : public nvinfer1::ILogger
{
public:
    void log(Severity severity, char const* msg) noexcept override
    {
        if (severity <= Severity::kERROR)
        {
            errors.emplace_back(msg);
        }
    }
    //! How many errors name `call`; clears them.
    size_t take(std::string const& call)
    {
        auto const n = std::count_if(
            errors.begin(), errors.end(), [&](std::string const& e) { return e.find(call) != std::string::npos; });
        errors.clear();
        return static_cast<size_t>(n);
    }
    //! Every error, one a line: a failure message's context.
    std::string text() const
    {
        std::string joined;
        for (std::string const& error : errors)
        {
            joined += error + "\n";
        }
        return joined;
    }
    std::vector<std::string> errors;
};

} // namespace kiln::test
