// Application objects written in Python that Kiln calls back: progress monitors, timing caches, output allocators,
// profilers, debug listeners and error recorders. Kiln keeps raw pointers to them, so every setter keeps the Python
// object alive (keep_alive) for as long as the object it was given to lives, as TensorRT's Python API does: a script
// may drop its own reference at once (Polygraphy does, with its timing cache). Each call back takes the GIL (Kiln
// calls from builds and runs that released it), and a Python exception never reaches Kiln's C++ frames: it is logged
// as an error naming the Python method and the exception, and the call gives Kiln its failure value.
#pragma once

#include "bindings.h"
#include "python_call.h"

#include <NvInfer.h>

#include <string>

namespace kiln::python
{

//! Logs `what` (naming the Python method that failed) through Kiln's logger as an error. GIL held or not.
void logCallbackError(std::string const& what);

//! Calls the Python method `name` that overrides a method of `Interface`, with the GIL held, and returns what `call`
//! makes of it; `onFailure` where the method is missing or raises (logged as "<Class>.<name> raised ..."). For
//! methods Kiln calls from noexcept frames.
template <typename Interface, typename Result, typename Call>
Result callBack(Interface const* self, char const* className, char const* name, Result onFailure, Call&& call)
{
    if (!pythonIsRunning())
    {
        return onFailure;
    }
    pybind11::gil_scoped_acquire gil;
    std::string const where = std::string(className) + "." + name;
    try
    {
        pybind11::function const method = pybind11::get_override(self, name);
        if (!method)
        {
            logCallbackError(where + ": the Python class does not implement it (or its object no longer exists)");
            return onFailure;
        }
        return call(method);
    }
    catch (pybind11::error_already_set const& error)
    {
        logCallbackError(where + " raised " + describePythonError(error));
    }
    catch (std::exception const& error)
    {
        logCallbackError(where + " returned a value of the wrong type: " + error.what());
    }
    return onFailure;
}

void bindBuildCallbacks(py::module_& m, py::class_<nvinfer1::IBuilderConfig>& config); // build_callbacks.cpp
void bindCalibrators(py::module_& m, py::class_<nvinfer1::IBuilderConfig>& config);    // calibrators.cpp
void bindContextCallbacks(py::class_<nvinfer1::IExecutionContext>& context);           // runtime_callbacks.cpp

//! The `error_recorder` property of a class whose C++ interface has set/getErrorRecorder (error_recorder.cpp's
//! trt.IErrorRecorder must be bound first); the setter keeps the recorder alive with the object.
template <typename Class, typename PyClass>
void defineErrorRecorderProperty(PyClass& cls)
{
    cls.def_property("error_recorder",
        pybind11::cpp_function(
            [](Class const& self) { return self.getErrorRecorder(); }, pybind11::return_value_policy::reference),
        pybind11::cpp_function([](Class& self, nvinfer1::IErrorRecorder* recorder) { self.setErrorRecorder(recorder); },
            pybind11::keep_alive<1, 2>()),
        "The IErrorRecorder Kiln reports this object's errors to (None: the logger only); kept alive with it.");
}

} // namespace kiln::python
