// A Python resource reaches the registry through a trampoline; the registry keeps the object clone() returns (as
// TensorRT documents, the resource passed in is only cloned) and deletes it after release() when the last reference
// is released. What it keeps is a PythonResourceOwner, which holds the Python clone alive until then and hands it back
// to acquire_plugin_resource's caller.
#include "python_plugin_resource.h"
#include "python_call.h"

namespace kiln::python
{

namespace py = pybind11;

using nvinfer1::IPluginResource;

namespace
{

class PyPluginResource : public IPluginResource
{
public:
    int32_t release() override;
    IPluginResource* clone() override;
};

//! The resource the registry owns for a Python object, forwarding to its trampoline.
class PythonResourceOwner final : public IPluginResource
{
public:
    PythonResourceOwner(py::object resource, PyPluginResource* target)
        : mResource(std::move(resource))
        , mTarget(target)
    {
    }
    ~PythonResourceOwner() override
    {
        if (!pythonIsRunning())
        {
            mResource.release(); // the interpreter is gone, and the object with it
            return;
        }
        py::gil_scoped_acquire gil;
        mResource = py::object();
    }
    PythonResourceOwner(PythonResourceOwner const&) = delete;
    PythonResourceOwner& operator=(PythonResourceOwner const&) = delete;

    int32_t release() override
    {
        return mTarget->release();
    }
    IPluginResource* clone() override
    {
        return mTarget->clone();
    }
    //! The Python object. GIL held.
    py::object const& object() const
    {
        return mResource;
    }

private:
    py::object mResource;
    PyPluginResource* mTarget;
};

int32_t PyPluginResource::release()
{
    return callPython([&]() -> int32_t {
        py::object const status = requiredOverride<IPluginResource>(this, "release")();
        return status.is_none() ? 0 : status.cast<int32_t>();
    });
}

IPluginResource* PyPluginResource::clone()
{
    return callPython([&]() -> IPluginResource* {
        py::object copy = requiredOverride<IPluginResource>(this, "clone")();
        if (copy.is_none())
        {
            return nullptr;
        }
        auto* python = py::isinstance<IPluginResource>(copy)
            ? dynamic_cast<PyPluginResource*>(copy.cast<IPluginResource*>())
            : nullptr;
        if (python == nullptr)
        {
            throw std::runtime_error(
                "clone returned " + pythonTypeName(copy) + ", not an IPluginResource written in Python");
        }
        return new PythonResourceOwner(std::move(copy), python);
    });
}

} // namespace

void bindPluginResource(py::module_& m)
{
    py::class_<IPluginResource, PyPluginResource>(m, "IPluginResource",
        "A resource plugins share through IPluginRegistry.acquire_plugin_resource. Python subclasses implement "
        "clone() (a copy that owns its own, initialised resource: the registry keeps the clone) and release().")
        .def(py::init<>());
}

void bindPluginResourceMethods(
    py::class_<nvinfer1::IPluginRegistry, std::unique_ptr<nvinfer1::IPluginRegistry, py::nodelete>>& registry)
{
    registry
        .def(
            "acquire_plugin_resource",
            [](nvinfer1::IPluginRegistry& self, std::string const& key, IPluginResource& resource) -> py::object {
                IPluginResource* held = self.acquirePluginResource(key.c_str(), &resource);
                if (auto* python = dynamic_cast<PythonResourceOwner*>(held))
                {
                    return python->object();
                }
                return held != nullptr ? py::cast(held, py::return_value_policy::reference) : py::none();
            },
            py::arg("key"), py::arg("resource"),
            "The resource registered under key, with one more reference: a clone of `resource` when key is new. "
            "None where the clone failed.")
        .def(
            "release_plugin_resource",
            [](nvinfer1::IPluginRegistry& self, std::string const& key) {
                return self.releasePluginResource(key.c_str());
            },
            py::arg("key"),
            "Drops a reference to the resource under key; the last one calls its release(). 0 on success, -1 for a "
            "key that holds no resource.");
}

} // namespace kiln::python
