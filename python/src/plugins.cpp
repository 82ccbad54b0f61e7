// IPluginV2, IPluginV3 (with its core capability), IPluginCreator and IPluginCreatorV3One over C++ plugins: Kiln's
// collection, or any library's. A plugin a creator makes belongs to Python; the network keeps its own clone.
// Python-written plugins will derive from these same classes through trampolines (the next phase of issue 17).
#include "plugins.h"
#include "bindings.h"
#include "plugin_fields.h"

#include <memory>

namespace kiln::python
{

using nvinfer1::IPluginCreator;
using nvinfer1::IPluginCreatorInterface;
using nvinfer1::IPluginCreatorV3One;
using nvinfer1::IPluginV2;
using nvinfer1::IPluginV3;
using nvinfer1::IPluginV3OneCore;

py::object castCreator(IPluginCreatorInterface* creator)
{
    if (auto* v2 = dynamic_cast<IPluginCreator*>(creator))
    {
        return py::cast(v2, py::return_value_policy::reference);
    }
    if (auto* v3 = dynamic_cast<IPluginCreatorV3One*>(creator))
    {
        return py::cast(v3, py::return_value_policy::reference);
    }
    return py::cast(creator, py::return_value_policy::reference);
}

namespace
{

char const* orEmpty(char const* text)
{
    return text != nullptr ? text : "";
}

void bindPluginV2(py::module_& m)
{
    py::class_<IPluginV2, std::unique_ptr<IPluginV2, PluginV2Destroyer>>(m, "IPluginV2",
        "A plugin of the IPluginV2 family (IPluginV2DynamicExt and the older interfaces).")
        .def_property_readonly("num_outputs", &IPluginV2::getNbOutputs)
        .def_property_readonly("plugin_type", [](IPluginV2 const& self) { return orEmpty(self.getPluginType()); })
        .def_property_readonly("plugin_version", [](IPluginV2 const& self) { return orEmpty(self.getPluginVersion()); })
        .def_property("plugin_namespace", [](IPluginV2 const& self) { return orEmpty(self.getPluginNamespace()); },
            [](IPluginV2& self, std::string const& ns) { self.setPluginNamespace(ns.c_str()); })
        .def_property_readonly("serialization_size", &IPluginV2::getSerializationSize)
        .def_property_readonly("tensorrt_version", &IPluginV2::getTensorRTVersion)
        .def("clone", [](IPluginV2 const& self) { return std::unique_ptr<IPluginV2, PluginV2Destroyer>(self.clone()); },
            "A copy of the plugin with the same parameters.");
}

void bindPluginV3(py::module_& m)
{
    py::class_<nvinfer1::IPluginCapability>(m, "IPluginCapability", "A capability interface of a V3 plugin.");
    py::class_<IPluginV3OneCore, nvinfer1::IPluginCapability>(m, "IPluginV3OneCore", "A V3 plugin's identity.")
        .def_property_readonly(
            "plugin_name", [](IPluginV3OneCore const& self) { return orEmpty(self.getPluginName()); })
        .def_property_readonly(
            "plugin_version", [](IPluginV3OneCore const& self) { return orEmpty(self.getPluginVersion()); })
        .def_property_readonly(
            "plugin_namespace", [](IPluginV3OneCore const& self) { return orEmpty(self.getPluginNamespace()); });

    py::class_<IPluginV3>(m, "IPluginV3", "A plugin of the IPluginV3 interface.")
        .def(
            "get_capability_interface",
            [](IPluginV3& self, nvinfer1::PluginCapabilityType type) -> py::object {
                nvinfer1::IPluginCapability* capability = self.getCapabilityInterface(type);
                if (auto* core = dynamic_cast<IPluginV3OneCore*>(capability))
                {
                    return py::cast(core, py::return_value_policy::reference);
                }
                return py::cast(capability, py::return_value_policy::reference);
            },
            py::arg("type"), py::keep_alive<0, 1>(), "The plugin's interface for a capability (None if it has none).")
        .def("clone", [](IPluginV3& self) { return std::unique_ptr<IPluginV3>(self.clone()); },
            "A copy of the plugin with the same parameters.");
}

void bindCreators(py::module_& m)
{
    py::class_<IPluginCreatorInterface>(m, "IPluginCreatorInterface", "The base of plugin creators.");

    py::class_<IPluginCreator, IPluginCreatorInterface>(m, "IPluginCreator", "Creates IPluginV2 plugins.")
        .def_property_readonly("name", [](IPluginCreator const& self) { return orEmpty(self.getPluginName()); })
        .def_property_readonly(
            "plugin_version", [](IPluginCreator const& self) { return orEmpty(self.getPluginVersion()); })
        .def_property("plugin_namespace", [](IPluginCreator const& self) { return orEmpty(self.getPluginNamespace()); },
            [](IPluginCreator& self, std::string const& ns) { self.setPluginNamespace(ns.c_str()); })
        .def_property_readonly("field_names", [](IPluginCreator& self) { return describeFields(self.getFieldNames()); })
        .def(
            "create_plugin",
            [](IPluginCreator& self, std::string const& name, PyPluginFieldCollection const& fields) {
                FieldsView const view(fields);
                return std::unique_ptr<IPluginV2, PluginV2Destroyer>(
                    self.createPlugin(name.c_str(), view.collection()));
            },
            py::arg("name"), py::arg("field_collection"),
            "A plugin made from fields; None if the creator refuses them.")
        .def(
            "deserialize_plugin",
            [](IPluginCreator& self, std::string const& name, py::buffer serialized) {
                py::buffer_info const info = serialized.request();
                auto const bytes = static_cast<size_t>(info.size * info.itemsize);
                return std::unique_ptr<IPluginV2, PluginV2Destroyer>(
                    self.deserializePlugin(name.c_str(), info.ptr, bytes));
            },
            py::arg("name"), py::arg("serialized_plugin"), "A plugin read back from its serialized bytes.");

    py::class_<IPluginCreatorV3One, IPluginCreatorInterface>(m, "IPluginCreatorV3One", "Creates IPluginV3 plugins.")
        .def_property_readonly("name", [](IPluginCreatorV3One const& self) { return orEmpty(self.getPluginName()); })
        .def_property_readonly(
            "plugin_version", [](IPluginCreatorV3One const& self) { return orEmpty(self.getPluginVersion()); })
        .def_property_readonly(
            "plugin_namespace", [](IPluginCreatorV3One const& self) { return orEmpty(self.getPluginNamespace()); })
        .def_property_readonly(
            "field_names", [](IPluginCreatorV3One& self) { return describeFields(self.getFieldNames()); })
        .def(
            "create_plugin",
            [](IPluginCreatorV3One& self, std::string const& name, PyPluginFieldCollection const& fields,
                nvinfer1::TensorRTPhase phase) {
                FieldsView const view(fields);
                return std::unique_ptr<IPluginV3>(self.createPlugin(name.c_str(), view.collection(), phase));
            },
            py::arg("name"), py::arg("field_collection"), py::arg("phase") = nvinfer1::TensorRTPhase::kBUILD,
            "A plugin made from fields; None if the creator refuses them.");
}

} // namespace

void bindPlugins(py::module_& m)
{
    bindPluginV2(m);
    bindPluginV3(m);
    bindCreators(m);
}

} // namespace kiln::python
