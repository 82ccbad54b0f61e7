// get_plugin_registry() and init_libnvinfer_plugins(): the process-wide registry of plugin creators and Kiln's
// plugin collection (libkiln_plugins, TensorRT's libnvinfer_plugin).
#include "bindings.h"
#include "logger.h"
#include "plugins.h"
#include "python_plugins.h"
#include "python_plugin_resource.h"
#include "python_plugins_v2.h"

#include <NvInferPlugin.h>
#include <pybind11/stl.h>

#include <vector>

namespace kiln::python
{

namespace
{

using nvinfer1::IPluginCreator;
using nvinfer1::IPluginCreatorV3One;
using nvinfer1::IPluginRegistry;

py::list allCreators(IPluginRegistry& registry)
{
    int32_t count = 0;
    nvinfer1::IPluginCreatorInterface* const* creators = registry.getAllCreators(&count);
    py::list list;
    for (int32_t i = 0; i < count; ++i)
    {
        list.append(castCreator(creators[i]));
    }
    return list;
}

py::list pluginV2Creators(IPluginRegistry& registry)
{
    int32_t count = 0;
    IPluginCreator* const* creators = registry.getPluginCreatorList(&count);
    py::list list;
    for (int32_t i = 0; i < count; ++i)
    {
        list.append(py::cast(creators[i], py::return_value_policy::reference));
    }
    return list;
}

//! The loggers given to init_libnvinfer_plugins: Kiln's collection logs through one for the rest of the process.
std::vector<py::object>& loggersKeptForever()
{
    static auto* loggers = new std::vector<py::object>();
    return *loggers;
}

} // namespace

void bindPluginRegistry(py::module_& m)
{
    bindPluginResource(m);
    py::class_<IPluginRegistry, std::unique_ptr<IPluginRegistry, py::nodelete>> registry(
        m, "IPluginRegistry", "The process-wide registry of plugin creators.");
    bindPluginResourceMethods(registry);
    registry.def_property_readonly("plugin_creator_list", &pluginV2Creators, "The IPluginV2 creators.")
        .def_property_readonly("all_creators", &allCreators, "Every creator, V2 and V3.")
        .def_property_readonly("all_creators_recursive", &allCreators, "Every creator (Kiln has one registry).")
        .def_property(
            "parent_search_enabled", &IPluginRegistry::isParentSearchEnabled, &IPluginRegistry::setParentSearchEnabled)
        .def(
            "get_plugin_creator",
            [](IPluginRegistry& self, std::string const& type, std::string const& version, std::string const& ns) {
                return self.getPluginCreator(type.c_str(), version.c_str(), ns.c_str());
            },
            py::arg("type"), py::arg("version"), py::arg("plugin_namespace") = "", py::return_value_policy::reference,
            "The IPluginV2 creator of a plugin type and version, or None.")
        .def(
            "get_creator",
            [](IPluginRegistry& self, std::string const& name, std::string const& version, std::string const& ns) {
                return castCreator(self.getCreator(name.c_str(), version.c_str(), ns.c_str()));
            },
            py::arg("name"), py::arg("version"), py::arg("plugin_namespace") = "",
            "The creator (V2 or V3) of a plugin name and version, or None.")
        .def(
            "register_creator",
            [](IPluginRegistry& self, IPluginCreator& creator, std::string const& ns) {
                bool const registered = self.registerCreator(creator, ns.c_str());
                if (registered && dynamic_cast<PyPluginCreator*>(&creator) != nullptr)
                {
                    keepRegisteredCreator(py::cast(&creator, py::return_value_policy::reference));
                }
                return registered;
            },
            py::arg("creator"), py::arg("plugin_namespace") = "", py::keep_alive<1, 2>(),
            "Registers a V2 creator; False if one of that name, version and namespace is registered.")
        .def(
            "register_creator",
            [](IPluginRegistry& self, IPluginCreatorV3One& creator, std::string const& ns) {
                bool const registered = self.registerCreator(creator, ns.c_str());
                if (registered && dynamic_cast<PyPluginCreatorV3One*>(&creator) != nullptr)
                {
                    keepRegisteredCreator(py::cast(&creator, py::return_value_policy::reference));
                }
                return registered;
            },
            py::arg("creator"), py::arg("plugin_namespace") = "", py::keep_alive<1, 2>(),
            "Registers a V3 creator; False if one of that name, version and namespace is registered.")
        .def(
            "deregister_creator",
            [](IPluginRegistry& self, IPluginCreator& creator) {
                bool const deregistered = self.deregisterCreator(creator);
                if (deregistered && dynamic_cast<PyPluginCreator*>(&creator) != nullptr)
                {
                    releaseRegisteredCreator(py::cast(&creator, py::return_value_policy::reference));
                }
                return deregistered;
            },
            py::arg("creator"))
        .def(
            "deregister_creator",
            [](IPluginRegistry& self, IPluginCreatorV3One& creator) {
                bool const deregistered
                    = self.deregisterCreator(static_cast<nvinfer1::IPluginCreatorInterface const&>(creator));
                if (deregistered && dynamic_cast<PyPluginCreatorV3One*>(&creator) != nullptr)
                {
                    releaseRegisteredCreator(py::cast(&creator, py::return_value_policy::reference));
                }
                return deregistered;
            },
            py::arg("creator"))
        .def(
            "load_library",
            [](IPluginRegistry& self, std::string const& path) -> py::object {
                void* handle = nullptr;
                {
                    py::gil_scoped_release release;
                    handle = self.loadLibrary(path.c_str());
                }
                return handle != nullptr ? py::object(py::capsule(handle, "kiln.PluginLibraryHandle")) : py::none();
            },
            py::arg("plugin_path"), "Loads a plugin library and registers its creators; None on failure.")
        .def(
            "deregister_library",
            [](IPluginRegistry& self, py::capsule handle) { self.deregisterLibrary(handle.get_pointer()); },
            py::arg("handle"));

    m.def(
        "get_plugin_registry", []() { return getPluginRegistry(); }, py::return_value_policy::reference,
        "The plugin registry.");

    m.def(
        "init_libnvinfer_plugins",
        [](py::object logger, std::string const& ns) {
            auto* cppLogger = logger.is_none() ? nullptr : logger.cast<PythonLogger*>();
            if (cppLogger != nullptr)
            {
                loggersKeptForever().push_back(logger);
            }
            py::gil_scoped_release release;
            return initLibNvInferPlugins(static_cast<nvinfer1::ILogger*>(cppLogger), ns.c_str());
        },
        py::arg("logger"), py::arg("namespace") = "",
        "Registers Kiln's plugin collection under a namespace; the logger is kept for the rest of the process.");
}

} // namespace kiln::python
