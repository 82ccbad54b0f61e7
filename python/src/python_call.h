// Calls from Kiln's C++ side into plugins and creators written in Python. Kiln calls a plugin from any thread, with
// or without the GIL held (the extension releases it around builds and runs), so every call takes the GIL here. A
// Python exception becomes a std::runtime_error carrying its type and message: Kiln's guard around plugin calls
// (plugin_call.h) turns that into an error naming the plugin and the method, and the build or run fails cleanly.
#pragma once

#include <pybind11/pybind11.h>

#include <stdexcept>
#include <string>
#include <typeinfo>

namespace kiln::python
{

//! Whether Python code can still run: false once the interpreter has begun to shut down (Py_FinalizeEx clears the
//! flag before it tears modules down), when Kiln's static objects and leaked engines may still call back. Callers then
//! skip Python: taking the GIL after finalization crashes.
inline bool pythonIsRunning()
{
    return Py_IsInitialized() != 0;
}

//! "ValueError: the message" for the Python exception being handled.
std::string describePythonError(pybind11::error_already_set const& error);

//! The name of an object's Python type, for messages about values of the wrong type.
std::string pythonTypeName(pybind11::handle object);

//! Runs `call` with the GIL held; Python exceptions (and values of the wrong type) leave as std::runtime_error.
template <typename Call>
auto callPython(Call&& call) -> decltype(call())
{
    if (!pythonIsRunning())
    {
        throw std::runtime_error("the Python interpreter has shut down");
    }
    pybind11::gil_scoped_acquire gil;
    try
    {
        return call();
    }
    catch (pybind11::error_already_set const& error)
    {
        throw std::runtime_error(describePythonError(error));
    }
    catch (pybind11::cast_error const& error)
    {
        throw std::runtime_error(std::string("a value of the wrong type: ") + error.what());
    }
}

//! The Python object a trampoline belongs to (the one whose class derives from the bound `Base`). GIL held.
template <typename Base>
pybind11::handle pythonSelf(Base const* trampoline)
{
    namespace pyd = pybind11::detail;
    pybind11::handle self = pyd::get_object_handle(trampoline, pyd::get_type_info(typeid(Base)));
    if (!self)
    {
        throw std::runtime_error("its Python object no longer exists");
    }
    return self;
}

//! The Python method overriding `name`, or an empty function where the class has none (or sets it to None).
template <typename Base>
pybind11::function optionalOverride(Base const* trampoline, char const* name)
{
    if (pybind11::getattr(pythonSelf(trampoline), name, pybind11::none()).is_none())
    {
        return pybind11::function();
    }
    return pybind11::get_override(trampoline, name);
}

//! The Python method overriding `name`; a runtime_error saying the class lacks it when it is not there. GIL held.
template <typename Base>
pybind11::function requiredOverride(Base const* trampoline, char const* name)
{
    pybind11::function method = optionalOverride(trampoline, name);
    if (!method)
    {
        throw std::runtime_error(
            "its Python class " + pythonTypeName(pythonSelf(trampoline)) + " does not implement " + name);
    }
    return method;
}

//! A Python attribute of the trampoline's object as text, kept in `storage` so that the pointer stays valid.
template <typename Base>
char const* textAttribute(Base const* trampoline, char const* name, std::string& storage)
{
    return callPython([&] {
        pybind11::object const value = pybind11::getattr(pythonSelf(trampoline), name);
        storage = value.is_none() ? std::string() : pybind11::str(value).template cast<std::string>();
        return storage.c_str();
    });
}

} // namespace kiln::python
