#include "python_call.h"

namespace kiln::python
{

namespace py = pybind11;

std::string pythonTypeName(py::handle object)
{
    return py::str(py::type::handle_of(object).attr("__name__")).cast<std::string>();
}

std::string describePythonError(py::error_already_set const& error)
{
    std::string const type = py::str(error.type().attr("__name__")).cast<std::string>();
    std::string const message = py::str(error.value()).cast<std::string>();
    return message.empty() ? type : type + ": " + message;
}

} // namespace kiln::python
