#include "error_capture.h"

#include <vector>

namespace kiln::python
{
namespace
{
struct CaptureState
{
    int depth = 0;
    std::vector<std::string> errors;
};

CaptureState& state()
{
    thread_local CaptureState captured;
    return captured;
}
} // namespace

ErrorCapture::ErrorCapture()
{
    if (state().depth++ == 0)
    {
        state().errors.clear();
    }
}

ErrorCapture::~ErrorCapture()
{
    --state().depth;
}

std::string ErrorCapture::explain(std::string const& what) const
{
    std::string text = what;
    for (std::string const& error : state().errors)
    {
        text += "\n  " + error;
    }
    return text;
}

void ErrorCapture::record(nvinfer1::ILogger::Severity severity, char const* message)
{
    bool const isError = severity == nvinfer1::ILogger::Severity::kERROR
        || severity == nvinfer1::ILogger::Severity::kINTERNAL_ERROR;
    if (isError && state().depth > 0 && message != nullptr)
    {
        state().errors.emplace_back(message);
    }
}

} // namespace kiln::python
