// The C++ objects behind trt.ILogger and trt.Logger: what the extension hands to Kiln wherever it takes a logger.
#pragma once

#include <NvInferRuntime.h>

namespace kiln::python
{

using Severity = nvinfer1::ILogger::Severity;

//! trt.ILogger: Python subclasses implement log(severity, msg); without one, messages are dropped.
class PythonLogger : public nvinfer1::ILogger
{
public:
    void log(Severity /*severity*/, char const* /*msg*/) override { }
};

//! trt.Logger: writes messages at min_severity or more severe to stderr, unless a subclass overrides log.
class StderrLogger : public PythonLogger
{
public:
    explicit StderrLogger(Severity threshold = Severity::kWARNING)
        : minSeverity(threshold)
    {
    }
    void log(Severity severity, char const* msg) override;

    Severity minSeverity;
};

} // namespace kiln::python
