// trt.ILogger (subclassable) and trt.Logger. Kiln may log from any thread, with or without the GIL: the bridge takes
// it before calling Python, and the extension releases it around calls that run long enough to log from workers.
#include "logger.h"
#include "bindings.h"
#include "error_capture.h"
#include "python_call.h"

#include <cstdio>

namespace kiln::python
{

void StderrLogger::log(Severity severity, char const* msg)
{
    static char const* const kTags[] = {"F", "E", "W", "I", "V"};
    if (severity <= minSeverity && msg != nullptr)
    {
        std::fprintf(stderr, "[Kiln] [%s] %s\n", kTags[static_cast<int32_t>(severity)], msg);
    }
}

namespace
{

//! Records errors for ErrorCapture, then calls the Python subclass's log, else the C++ class's own.
template <typename Logger>
class LoggerBridge : public Logger
{
public:
    using Logger::Logger;

    void log(Severity severity, char const* msg) override
    {
        ErrorCapture::record(severity, msg);
        if (!pythonIsRunning())
        {
            Logger::log(severity, msg); // Kiln may log from static destructors, after the interpreter has gone
            return;
        }
        py::gil_scoped_acquire gil;
        py::function const override = py::get_override(static_cast<Logger const*>(this), "log");
        if (!override)
        {
            Logger::log(severity, msg);
            return;
        }
        try
        {
            override(severity, msg);
        }
        catch (py::error_already_set& error)
        {
            // Kiln cannot take an exception back through its C++ frames: Python reports it as unraisable.
            error.discard_as_unraisable("kiln.tensorrt.ILogger.log");
        }
    }
};

} // namespace

void bindLogger(py::module_& m)
{
    py::class_<PythonLogger, LoggerBridge<PythonLogger>> logger(m, "ILogger",
        "The interface Kiln logs through. Subclasses call ILogger.__init__(self) and implement log(severity, msg).");
    py::enum_<Severity>(logger, "Severity", py::arithmetic(), "How severe a logged message is (lower is more severe).")
        .value("INTERNAL_ERROR", Severity::kINTERNAL_ERROR)
        .value("ERROR", Severity::kERROR)
        .value("WARNING", Severity::kWARNING)
        .value("INFO", Severity::kINFO)
        .value("VERBOSE", Severity::kVERBOSE)
        .export_values();
    // init_alias: even a plain ILogger is the bridge, so that ErrorCapture sees every message.
    logger.def(py::init_alias<>())
        .def("log", &PythonLogger::log, py::arg("severity"), py::arg("msg"), "Receives one message.");

    py::class_<StderrLogger, PythonLogger, LoggerBridge<StderrLogger>>(
        m, "Logger", "A logger writing messages at min_severity or more severe to stderr.")
        .def(py::init_alias<Severity>(), py::arg("min_severity") = Severity::kWARNING)
        .def_readwrite("min_severity", &StderrLogger::minSeverity)
        .def("log", &StderrLogger::log, py::arg("severity"), py::arg("msg"), "Writes msg to stderr.");
}

} // namespace kiln::python
