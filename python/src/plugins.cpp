// IPluginV2 (with IPluginV2Ext and IPluginV2DynamicExt), IPluginV3 (with its capabilities), IPluginCreator and
// IPluginCreatorV3One, over C++ plugins (Kiln's collection, or any library's) and as the bases of plugins written in
// Python (their trampolines are in python_plugins.h and python_plugins_v2.h). A plugin a creator makes belongs to
// Python; the network keeps its own clone.
#include "plugins.h"
#include "bindings.h"
#include "plugin_fields.h"
#include "python_plugins.h"
#include "python_plugins_v2.h"

#include <memory>

namespace kiln::python
{

using nvinfer1::IPluginCreator;
using nvinfer1::IPluginCreatorInterface;
using nvinfer1::IPluginCreatorV3One;
using nvinfer1::IPluginV2;
using nvinfer1::IPluginV2Ext;
using nvinfer1::IPluginV3;
using nvinfer1::IPluginV3OneCore;
using nvinfer1::IPluginV3OneRuntime;

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

//! The trampoline behind a Python subclass's base `Base`, for attributes only Python plugins can set.
template <typename Trampoline, typename Base>
Trampoline& writableTrampoline(Base& self, char const* attribute)
{
    auto* trampoline = dynamic_cast<Trampoline*>(&self);
    if (trampoline == nullptr)
    {
        throw py::attribute_error(std::string(attribute) + " is read-only on a plugin written in C++");
    }
    return *trampoline;
}

//! A text attribute of a Python plugin or creator: stored in its trampoline, read through `getter` (the C++ method,
//! or nothing) on objects written in C++.
template <typename Trampoline, typename Class, typename Getter>
void defineTextAttribute(Class& cls, char const* attribute, std::string Trampoline::*member, Getter getter)
{
    using Base = typename Class::type;
    cls.def_property(
        attribute,
        [member, getter](Base& self) -> std::string {
            auto const* trampoline = dynamic_cast<Trampoline const*>(&self);
            return trampoline != nullptr ? trampoline->*member : orEmpty(getter(self));
        },
        [member, attribute](
            Base& self, std::string const& text) { writableTrampoline<Trampoline>(self, attribute).*member = text; });
}

void bindPluginV2(py::module_& m)
{
    py::class_<IPluginV2, std::unique_ptr<IPluginV2, PluginV2Destroyer>>(
        m, "IPluginV2", "A plugin of the IPluginV2 family (IPluginV2DynamicExt and the older interfaces).")
        .def_property_readonly("num_outputs", &IPluginV2::getNbOutputs)
        .def_property_readonly("plugin_type", [](IPluginV2 const& self) { return orEmpty(self.getPluginType()); })
        .def_property_readonly("plugin_version", [](IPluginV2 const& self) { return orEmpty(self.getPluginVersion()); })
        .def_property(
            "plugin_namespace", [](IPluginV2 const& self) { return orEmpty(self.getPluginNamespace()); },
            [](IPluginV2& self, std::string const& ns) { self.setPluginNamespace(ns.c_str()); })
        .def_property_readonly("serialization_size", &IPluginV2::getSerializationSize)
        .def_property_readonly("tensorrt_version", &IPluginV2::getTensorRTVersion)
        .def(
            "clone", [](IPluginV2 const& self) { return std::unique_ptr<IPluginV2, PluginV2Destroyer>(self.clone()); },
            "A copy of the plugin with the same parameters.");

    py::class_<IPluginV2Ext, std::unique_ptr<IPluginV2Ext, PluginV2Destroyer>, IPluginV2>(
        m, "IPluginV2Ext", "A plugin of the IPluginV2Ext interface (output types of its own).");

    using nvinfer1::IPluginV2DynamicExt;
    py::class_<IPluginV2DynamicExt, PyPluginV2DynamicExt, std::unique_ptr<IPluginV2DynamicExt, PluginV2Destroyer>,
        IPluginV2Ext>
        dynamic(m, "IPluginV2DynamicExt",
            "A plugin with dynamic shapes. Python plugins derive from it, set num_outputs, plugin_type, "
            "plugin_version and plugin_namespace, and implement get_output_datatype, get_output_dimensions, "
            "supports_format_combination, configure_plugin, enqueue, serialize and clone (initialize, terminate, "
            "destroy, get_workspace_size and get_serialization_size are optional).");
    dynamic.def(py::init<>())
        .def_property(
            "num_outputs",
            [](IPluginV2DynamicExt const& self) {
                auto const* python = dynamic_cast<PyPluginV2DynamicExt const*>(&self);
                return python != nullptr ? python->numOutputs : self.getNbOutputs();
            },
            [](IPluginV2DynamicExt& self, int32_t count) {
                writableTrampoline<PyPluginV2DynamicExt>(self, "num_outputs").numOutputs = count;
            })
        .def_property(
            "plugin_namespace",
            [](IPluginV2DynamicExt const& self) -> std::string {
                auto const* python = dynamic_cast<PyPluginV2DynamicExt const*>(&self);
                return python != nullptr ? python->pluginNamespace : orEmpty(self.getPluginNamespace());
            },
            [](IPluginV2DynamicExt& self, std::string const& ns) {
                if (auto* python = dynamic_cast<PyPluginV2DynamicExt*>(&self))
                {
                    python->pluginNamespace = ns;
                    return;
                }
                self.setPluginNamespace(ns.c_str());
            })
        .def(
            "initialize", [](IPluginV2DynamicExt&) { return 0; }, "Does nothing unless a subclass defines it.")
        .def(
            "terminate", [](IPluginV2DynamicExt&) {}, "Does nothing unless a subclass defines it.")
        .def(
            "destroy", [](IPluginV2DynamicExt&) {},
            "Called when Kiln lets go of a Python plugin; does nothing unless a subclass defines it.");
    defineTextAttribute(dynamic, "plugin_type", &PyPluginV2DynamicExt::pluginType,
        [](IPluginV2DynamicExt& self) { return self.getPluginType(); });
    defineTextAttribute(dynamic, "plugin_version", &PyPluginV2DynamicExt::version,
        [](IPluginV2DynamicExt& self) { return self.getPluginVersion(); });
}

void bindPluginCapabilities(py::module_& m)
{
    py::class_<nvinfer1::IPluginCapability>(m, "IPluginCapability", "A capability interface of a V3 plugin.");

    py::class_<IPluginV3OneCore, PyPluginV3OneCore, nvinfer1::IPluginCapability> core(m, "IPluginV3OneCore",
        "A V3 plugin's identity: plugin_name, plugin_version and plugin_namespace, which Python plugins set.");
    core.def(py::init<>());
    defineTextAttribute(
        core, "plugin_name", &PyPluginV3OneCore::name, [](IPluginV3OneCore& self) { return self.getPluginName(); });
    defineTextAttribute(core, "plugin_version", &PyPluginV3OneCore::version,
        [](IPluginV3OneCore& self) { return self.getPluginVersion(); });
    defineTextAttribute(core, "plugin_namespace", &PyPluginV3OneCore::pluginNamespace,
        [](IPluginV3OneCore& self) { return self.getPluginNamespace(); });

    using nvinfer1::IPluginV3OneBuild;
    py::class_<IPluginV3OneBuild, PyPluginV3OneBuild, nvinfer1::IPluginCapability> build(m, "IPluginV3OneBuild",
        "A V3 plugin's build capability: a Python plugin sets num_outputs and implements configure_plugin, "
        "get_output_data_types, get_output_shapes and supports_format_combination (get_workspace_size and "
        "get_valid_tactics are optional).");
    build.def(py::init<>())
        .def_property(
            "num_outputs",
            [](IPluginV3OneBuild const& self) {
                auto const* python = dynamic_cast<PyBuildAttributes const*>(&self);
                return python != nullptr ? python->numOutputs : self.getNbOutputs();
            },
            [](IPluginV3OneBuild& self, int32_t count) {
                writableTrampoline<PyBuildAttributes>(self, "num_outputs").numOutputs = count;
            })
        .def_property(
            "format_combination_limit",
            [](IPluginV3OneBuild& self) {
                auto const* python = dynamic_cast<PyBuildAttributes const*>(&self);
                return python != nullptr ? python->formatCombinationLimit : self.getFormatCombinationLimit();
            },
            [](IPluginV3OneBuild& self, int32_t limit) {
                writableTrampoline<PyBuildAttributes>(self, "format_combination_limit").formatCombinationLimit = limit;
            });
    defineTextAttribute(build, "timing_cache_id", &PyBuildAttributes::timingCacheId,
        [](IPluginV3OneBuild& self) { return self.getTimingCacheID(); });
    defineTextAttribute(build, "metadata_string", &PyBuildAttributes::metadataString,
        [](IPluginV3OneBuild& self) { return self.getMetadataString(); });

    using BuildV2 = nvinfer1::v_2_0::IPluginV3OneBuild;
    py::class_<BuildV2, PyPluginV3OneBuildV2, IPluginV3OneBuild>(m, "IPluginV3OneBuildV2",
        "The build capability with I/O aliasing: get_aliased_input(output_index) names the input whose memory an "
        "output reuses (-1 for none); Kiln honours it with PreviewFeature.ALIASED_PLUGIN_IO_10_03.")
        .def(py::init<>())
        .def(
            "get_aliased_input", [](BuildV2& self, int32_t outputIndex) { return self.getAliasedInput(outputIndex); },
            py::arg("output_index"));

    py::class_<IPluginV3OneRuntime, PyPluginV3OneRuntime, nvinfer1::IPluginCapability>(m, "IPluginV3OneRuntime",
        "A V3 plugin's runtime capability: a Python plugin implements on_shape_change, enqueue (host addresses and "
        "stream 0 on Kiln's CPU backend), attach_to_context and get_fields_to_serialize (set_tactic is optional).")
        .def(py::init<>());
}

void bindPluginV3(py::module_& m)
{
    py::class_<IPluginV3, PyPluginV3>(m, "IPluginV3",
        "A plugin of the IPluginV3 interface. Python plugins derive from it and from the capability classes they "
        "implement, and define get_capability_interface and clone.")
        .def(py::init<>())
        .def(
            "get_capability_interface",
            [](IPluginV3& self, nvinfer1::PluginCapabilityType type) -> py::object {
                nvinfer1::IPluginCapability* capability = self.getCapabilityInterface(type);
                constexpr auto kPluginOwned = py::return_value_policy::reference;
                if (auto* core = dynamic_cast<IPluginV3OneCore*>(capability))
                {
                    return py::cast(core, kPluginOwned);
                }
                if (auto* build = dynamic_cast<nvinfer1::IPluginV3OneBuild*>(capability))
                {
                    return py::cast(build, kPluginOwned);
                }
                if (auto* runtime = dynamic_cast<IPluginV3OneRuntime*>(capability))
                {
                    return py::cast(runtime, kPluginOwned);
                }
                return py::cast(capability, kPluginOwned);
            },
            py::arg("type"), py::keep_alive<0, 1>(), "The plugin's interface for a capability (None if it has none).")
        .def(
            "clone", [](IPluginV3& self) { return std::unique_ptr<IPluginV3>(self.clone()); },
            "A copy of the plugin with the same parameters.")
        .def(
            "destroy", [](IPluginV3&) {},
            "Called when Kiln lets go of a Python plugin (a network, builder or engine is destroyed); does nothing "
            "unless a subclass defines it.");
}

void bindCreators(py::module_& m)
{
    py::class_<IPluginCreatorInterface>(m, "IPluginCreatorInterface", "The base of plugin creators.");

    py::class_<IPluginCreator, PyPluginCreator, IPluginCreatorInterface> creatorV2(m, "IPluginCreator",
        "Creates IPluginV2 plugins. Python creators set name, plugin_version, plugin_namespace and field_names, and "
        "implement create_plugin(name, field_collection) and deserialize_plugin(name, data).");
    creatorV2.def(py::init<>());
    defineTextAttribute(
        creatorV2, "name", &PyPluginCreator::name, [](IPluginCreator& self) { return self.getPluginName(); });
    defineTextAttribute(creatorV2, "plugin_version", &PyPluginCreator::version,
        [](IPluginCreator& self) { return self.getPluginVersion(); });
    creatorV2
        .def_property(
            "plugin_namespace",
            [](IPluginCreator const& self) -> std::string {
                auto const* python = dynamic_cast<PyPluginCreator const*>(&self);
                return python != nullptr ? python->pluginNamespace : orEmpty(self.getPluginNamespace());
            },
            [](IPluginCreator& self, std::string const& ns) {
                if (auto* python = dynamic_cast<PyPluginCreator*>(&self))
                {
                    python->pluginNamespace = ns;
                    return;
                }
                self.setPluginNamespace(ns.c_str());
            })
        .def_property(
            "field_names",
            [](IPluginCreator& self) -> py::object {
                if (auto* python = dynamic_cast<PyPluginCreator*>(&self))
                {
                    return python->fieldNames;
                }
                return py::cast(describeFields(self.getFieldNames()));
            },
            [](IPluginCreator& self, PyPluginFieldCollection const& fields) {
                writableTrampoline<PyPluginCreator>(self, "field_names").fieldNames = py::cast(fields);
            })
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

    py::class_<IPluginCreatorV3One, PyPluginCreatorV3One, IPluginCreatorInterface> creatorV3(m, "IPluginCreatorV3One",
        "Creates IPluginV3 plugins. Python creators set name, plugin_version, plugin_namespace and field_names, and "
        "implement create_plugin(name, field_collection, phase).");
    creatorV3.def(py::init<>());
    defineTextAttribute(
        creatorV3, "name", &PyPluginCreatorV3One::name, [](IPluginCreatorV3One& self) { return self.getPluginName(); });
    defineTextAttribute(creatorV3, "plugin_version", &PyPluginCreatorV3One::version,
        [](IPluginCreatorV3One& self) { return self.getPluginVersion(); });
    defineTextAttribute(creatorV3, "plugin_namespace", &PyPluginCreatorV3One::pluginNamespace,
        [](IPluginCreatorV3One& self) { return self.getPluginNamespace(); });
    creatorV3
        .def_property(
            "field_names",
            [](IPluginCreatorV3One& self) -> py::object {
                if (auto* python = dynamic_cast<PyPluginCreatorV3One*>(&self))
                {
                    return python->fieldNames;
                }
                return py::cast(describeFields(self.getFieldNames()));
            },
            [](IPluginCreatorV3One& self, PyPluginFieldCollection const& fields) {
                writableTrampoline<PyPluginCreatorV3One>(self, "field_names").fieldNames = py::cast(fields);
            })
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
    bindPluginCapabilities(m);
    bindPluginV3(m);
    bindCreators(m);
}

} // namespace kiln::python
