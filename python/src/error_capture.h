// The errors Kiln logs while the extension calls into it, so that a failure TensorRT's Python API reports as an
// exception carries the reason Kiln gave. Every logger the extension hands to Kiln (logger.cpp) records here.
#pragma once

#include <NvInferRuntime.h>

#include <stdexcept>
#include <string>

namespace kiln::python
{

//! Collects the errors logged on this thread while it lives (nested captures share the outer one's list).
class ErrorCapture
{
public:
    ErrorCapture();
    ~ErrorCapture();
    ErrorCapture(ErrorCapture const&) = delete;
    ErrorCapture& operator=(ErrorCapture const&) = delete;

    //! `what`, followed by the errors logged so far, one per line.
    std::string explain(std::string const& what) const;

    //! Called by the loggers for every message: keeps errors while a capture is alive on this thread.
    static void record(nvinfer1::ILogger::Severity severity, char const* message);
};

//! What `create` returns; a RuntimeError saying `what` failed, with the errors Kiln logged, where it returns null.
template <typename Create>
auto createdOrRaise(std::string const& what, Create&& create)
{
    ErrorCapture const capture;
    auto* created = create();
    if (created == nullptr)
    {
        throw std::runtime_error(capture.explain(what));
    }
    return created;
}

} // namespace kiln::python
