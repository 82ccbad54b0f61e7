// The trampolines of python_plugins.h. Each C++ method takes the GIL, calls the Python method of TensorRT's Python
// name, and checks what comes back; a Python exception, a missing method or a value of the wrong type leaves as a
// std::runtime_error that Kiln reports naming the plugin (see python_call.h). Methods TensorRT's Python API makes
// optional have its defaults when the class does not define them.
#include "python_plugins.h"
#include "plugin_call_args.h"
#include "python_call.h"

#include <pybind11/numpy.h>

#include <cstring>
#include <vector>

namespace kiln::python
{

namespace py = pybind11;

using nvinfer1::DataType;
using nvinfer1::DimsExprs;
using nvinfer1::DynamicPluginTensorDesc;
using nvinfer1::IPluginCapability;
using nvinfer1::IPluginV3;
using nvinfer1::PluginCapabilityType;
using nvinfer1::PluginFieldType;
using nvinfer1::PluginTensorDesc;

namespace
{

//! A returned sequence that must hold exactly `count` items.
py::sequence sequenceOf(py::handle returned, int32_t count, char const* method, char const* what)
{
    if (!py::isinstance<py::sequence>(returned) || py::isinstance<py::str>(returned))
    {
        throw std::runtime_error(
            std::string(method) + " returned " + pythonTypeName(returned) + ", not a list of " + what);
    }
    auto items = py::reinterpret_borrow<py::sequence>(returned);
    if (static_cast<int32_t>(items.size()) != count)
    {
        throw std::runtime_error(std::string(method) + " returned " + std::to_string(items.size()) + " " + what
            + " for " + std::to_string(count) + " outputs");
    }
    return items;
}

//! The numpy dtype a creator's field arrives in (raw bytes for the types numpy lacks).
py::dtype fieldDtype(PluginFieldType type)
{
    switch (type)
    {
    case PluginFieldType::kFLOAT16: return py::dtype("float16");
    case PluginFieldType::kFLOAT32: return py::dtype::of<float>();
    case PluginFieldType::kFLOAT64: return py::dtype::of<double>();
    case PluginFieldType::kINT8:
    case PluginFieldType::kCHAR: return py::dtype::of<int8_t>();
    case PluginFieldType::kINT16: return py::dtype::of<int16_t>();
    case PluginFieldType::kINT32: return py::dtype::of<int32_t>();
    case PluginFieldType::kINT64: return py::dtype::of<int64_t>();
    default: return py::dtype::of<uint8_t>();
    }
}

size_t fieldBytes(nvinfer1::PluginField const& field, py::dtype const& dtype)
{
    switch (field.type)
    {
    case PluginFieldType::kDIMS: return static_cast<size_t>(field.length) * sizeof(nvinfer1::Dims);
    case PluginFieldType::kINT4:
    case PluginFieldType::kFP4: return (static_cast<size_t>(field.length) + 1) / 2;
    default: return static_cast<size_t>(field.length) * static_cast<size_t>(dtype.itemsize());
    }
}

} // namespace

py::object fieldsToPython(nvinfer1::PluginFieldCollection const* fc)
{
    PyPluginFieldCollection fields;
    for (int32_t i = 0; fc != nullptr && i < fc->nbFields; ++i)
    {
        nvinfer1::PluginField const& field = fc->fields[i];
        py::dtype const dtype = fieldDtype(field.type);
        size_t const bytes = field.data != nullptr ? fieldBytes(field, dtype) : 0;
        auto const elements = static_cast<py::ssize_t>(bytes / static_cast<size_t>(dtype.itemsize()));
        py::array data(dtype, std::vector<py::ssize_t>{elements});
        if (bytes > 0)
        {
            std::memcpy(data.mutable_data(), field.data, bytes);
        }
        fields.push_back(PyPluginField{field.name != nullptr ? field.name : "", data, field.type, field.length});
    }
    return py::cast(std::move(fields));
}

namespace
{

char const* capabilityName(PluginCapabilityType type)
{
    switch (type)
    {
    case PluginCapabilityType::kCORE: return "CORE";
    case PluginCapabilityType::kBUILD: return "BUILD";
    case PluginCapabilityType::kRUNTIME: return "RUNTIME";
    }
    return "?";
}

template <typename Capability>
IPluginCapability* castCapability(py::handle capability, PluginCapabilityType type, char const* expected)
{
    if (!py::isinstance<Capability>(capability))
    {
        throw std::runtime_error(std::string("get_capability_interface(") + capabilityName(type) + ") returned "
            + pythonTypeName(capability) + ", not an " + expected);
    }
    return capability.cast<Capability*>();
}

} // namespace

// ---- PythonPluginOwner ----

PythonPluginOwner::PythonPluginOwner(py::object plugin)
    : mPlugin(std::move(plugin))
    , mTarget(mPlugin.cast<IPluginV3*>())
{
}

PythonPluginOwner::~PythonPluginOwner()
{
    if (!pythonIsRunning())
    {
        mPlugin.release(); // the interpreter is gone, and the object with it
        return;
    }
    py::gil_scoped_acquire gil;
    if (auto* python = dynamic_cast<PyPluginV3*>(mTarget))
    {
        python->destroy();
    }
    mPlugin = py::object();
}

IPluginCapability* PythonPluginOwner::getCapabilityInterface(PluginCapabilityType type)
{
    return mTarget->getCapabilityInterface(type);
}

IPluginV3* PythonPluginOwner::clone()
{
    return mTarget->clone();
}

IPluginV3* adoptPythonPlugin(py::object plugin, char const* method)
{
    if (plugin.is_none())
    {
        return nullptr;
    }
    if (!py::isinstance<IPluginV3>(plugin))
    {
        throw std::runtime_error(std::string(method) + " returned " + pythonTypeName(plugin) + ", not an IPluginV3");
    }
    return new PythonPluginOwner(std::move(plugin));
}

// ---- PyPluginV3 ----

IPluginCapability* PyPluginV3::getCapabilityInterface(PluginCapabilityType type)
{
    return callPython([&]() -> IPluginCapability* {
        py::object capability = requiredOverride<IPluginV3>(this, "get_capability_interface")(type);
        if (capability.is_none())
        {
            return nullptr;
        }
        IPluginCapability* found = nullptr;
        switch (type)
        {
        case PluginCapabilityType::kCORE:
            found = castCapability<nvinfer1::IPluginV3OneCore>(capability, type, "IPluginV3OneCore");
            break;
        case PluginCapabilityType::kBUILD:
            found = castCapability<nvinfer1::IPluginV3OneBuild>(capability, type, "IPluginV3OneBuild");
            break;
        case PluginCapabilityType::kRUNTIME:
            found = castCapability<nvinfer1::IPluginV3OneRuntime>(capability, type, "IPluginV3OneRuntime");
            break;
        }
        // Holding the plugin itself here would be a cycle Python cannot see; other objects must be held. Kiln may
        // still use the previous answer while it asks again, so that one is kept too.
        if (!capability.is(pythonSelf<IPluginV3>(this)))
        {
            auto& [previous, latest] = mOtherCapabilities[type];
            if (!capability.is(latest))
            {
                previous = std::move(latest);
                latest = std::move(capability);
            }
        }
        return found;
    });
}

IPluginV3* PyPluginV3::clone()
{
    return callPython([&] { return adoptPythonPlugin(requiredOverride<IPluginV3>(this, "clone")(), "clone"); });
}

void PyPluginV3::destroy()
{
    py::gil_scoped_acquire gil;
    try
    {
        if (py::function method = optionalOverride(static_cast<IPluginV3 const*>(this), "destroy"))
        {
            method();
        }
    }
    catch (py::error_already_set& error)
    {
        error.discard_as_unraisable("destroy() of a Python plugin");
    }
}

// ---- PyPluginV3OneCore ----

char const* PyPluginV3OneCore::getPluginName() const
{
    return textAttribute<nvinfer1::IPluginV3OneCore>(this, "plugin_name", name);
}

char const* PyPluginV3OneCore::getPluginVersion() const
{
    return textAttribute<nvinfer1::IPluginV3OneCore>(this, "plugin_version", version);
}

char const* PyPluginV3OneCore::getPluginNamespace() const
{
    return textAttribute<nvinfer1::IPluginV3OneCore>(this, "plugin_namespace", pluginNamespace);
}

// ---- PyPluginV3OneBuild ----

template <typename Base>
int32_t PyPluginV3OneBuildOf<Base>::configurePlugin(
    DynamicPluginTensorDesc const* in, int32_t nbInputs, DynamicPluginTensorDesc const* out, int32_t nbOutputs)
{
    return callPython([&] {
        requiredOverride<Base>(this, "configure_plugin")(listOf(in, nbInputs), listOf(out, nbOutputs));
        return 0;
    });
}

template <typename Base>
int32_t PyPluginV3OneBuildOf<Base>::getOutputDataTypes(
    DataType* outputTypes, int32_t nbOutputs, DataType const* inputTypes, int32_t nbInputs) const
{
    return callPython([&] {
        py::object const returned = requiredOverride<Base>(this, "get_output_data_types")(listOf(inputTypes, nbInputs));
        py::sequence const types = sequenceOf(returned, nbOutputs, "get_output_data_types", "DataType");
        for (int32_t i = 0; i < nbOutputs; ++i)
        {
            outputTypes[i] = types[static_cast<size_t>(i)].cast<DataType>();
        }
        return 0;
    });
}

template <typename Base>
int32_t PyPluginV3OneBuildOf<Base>::getOutputShapes(DimsExprs const* inputs, int32_t nbInputs,
    DimsExprs const* shapeInputs, int32_t nbShapeInputs, DimsExprs* outputs, int32_t nbOutputs,
    nvinfer1::IExprBuilder& exprBuilder)
{
    return callPython([&] {
        py::object const returned = requiredOverride<Base>(this, "get_output_shapes")(listOf(inputs, nbInputs),
            listOf(shapeInputs, nbShapeInputs), py::cast(&exprBuilder, py::return_value_policy::reference));
        py::sequence const shapes = sequenceOf(returned, nbOutputs, "get_output_shapes", "DimsExprs");
        for (int32_t o = 0; o < nbOutputs; ++o)
        {
            outputs[o] = shapes[static_cast<size_t>(o)].cast<DimsExprs>();
            for (int32_t d = 0; d < outputs[o].nbDims; ++d)
            {
                if (outputs[o].d[d] == nullptr)
                {
                    throw std::runtime_error("get_output_shapes left dimension " + std::to_string(d) + " of output "
                        + std::to_string(o) + " unset");
                }
            }
        }
        return 0;
    });
}

template <typename Base>
bool PyPluginV3OneBuildOf<Base>::supportsFormatCombination(
    int32_t pos, DynamicPluginTensorDesc const* inOut, int32_t nbInputs, int32_t nbOutputs)
{
    return callPython([&] {
        return requiredOverride<Base>(this, "supports_format_combination")(
            pos, listOf(inOut, nbInputs + nbOutputs), nbInputs)
            .template cast<bool>();
    });
}

template <typename Base>
int32_t PyPluginV3OneBuildOf<Base>::getNbOutputs() const
{
    return callPython([&] { return py::getattr(pythonSelf<Base>(this), "num_outputs").template cast<int32_t>(); });
}

template <typename Base>
size_t PyPluginV3OneBuildOf<Base>::getWorkspaceSize(DynamicPluginTensorDesc const* inputs, int32_t nbInputs,
    DynamicPluginTensorDesc const* outputs, int32_t nbOutputs) const
{
    return callPython([&]() -> size_t {
        py::function method = optionalOverride(static_cast<Base const*>(this), "get_workspace_size");
        return method ? method(listOf(inputs, nbInputs), listOf(outputs, nbOutputs)).cast<size_t>() : 0;
    });
}

template <typename Base>
int32_t PyPluginV3OneBuildOf<Base>::getValidTactics(int32_t* tactics, int32_t nbTactics)
{
    return callPython([&] {
        py::function method = optionalOverride(static_cast<Base const*>(this), "get_valid_tactics");
        if (!method)
        {
            return 0;
        }
        py::sequence const valid = sequenceOf(method(), nbTactics, "get_valid_tactics", "tactics");
        for (int32_t i = 0; i < nbTactics; ++i)
        {
            tactics[i] = valid[static_cast<size_t>(i)].cast<int32_t>();
        }
        return 0;
    });
}

template <typename Base>
int32_t PyPluginV3OneBuildOf<Base>::getNbTactics()
{
    return callPython([&] {
        py::function method = optionalOverride(static_cast<Base const*>(this), "get_valid_tactics");
        return method ? static_cast<int32_t>(py::len(method())) : 0;
    });
}

template <typename Base>
char const* PyPluginV3OneBuildOf<Base>::getTimingCacheID()
{
    char const* id = textAttribute<Base>(this, "timing_cache_id", mText);
    return *id != '\0' ? id : nullptr;
}

template <typename Base>
int32_t PyPluginV3OneBuildOf<Base>::getFormatCombinationLimit()
{
    return callPython(
        [&] { return py::getattr(pythonSelf<Base>(this), "format_combination_limit").template cast<int32_t>(); });
}

template <typename Base>
char const* PyPluginV3OneBuildOf<Base>::getMetadataString()
{
    char const* text = textAttribute<Base>(this, "metadata_string", mText);
    return *text != '\0' ? text : nullptr;
}

template class PyPluginV3OneBuildOf<nvinfer1::v_1_0::IPluginV3OneBuild>;
template class PyPluginV3OneBuildOf<nvinfer1::v_2_0::IPluginV3OneBuild>;

int32_t PyPluginV3OneBuildV2::getAliasedInput(int32_t outputIndex)
{
    using BaseV2 = nvinfer1::v_2_0::IPluginV3OneBuild;
    return callPython([&] {
        py::function method = optionalOverride(static_cast<BaseV2 const*>(this), "get_aliased_input");
        return method ? method(outputIndex).cast<int32_t>() : -1;
    });
}

// ---- PyPluginV3OneRuntime ----

using RuntimeBase = nvinfer1::IPluginV3OneRuntime;

int32_t PyPluginV3OneRuntime::setTactic(int32_t tactic)
{
    return callPython([&] {
        if (py::function method = optionalOverride(static_cast<RuntimeBase const*>(this), "set_tactic"))
        {
            method(tactic);
        }
        return 0;
    });
}

int32_t PyPluginV3OneRuntime::onShapeChange(
    PluginTensorDesc const* in, int32_t nbInputs, PluginTensorDesc const* out, int32_t nbOutputs)
{
    return callPython([&] {
        requiredOverride<RuntimeBase>(this, "on_shape_change")(listOf(in, nbInputs), listOf(out, nbOutputs));
        mNbInputs = nbInputs;
        mNbOutputs = nbOutputs;
        return 0;
    });
}

int32_t PyPluginV3OneRuntime::enqueue(PluginTensorDesc const* inputDesc, PluginTensorDesc const* outputDesc,
    void const* const* inputs, void* const* outputs, void* workspace, cudaStream_t stream)
{
    return callPython([&] {
        py::function method = requiredOverride<RuntimeBase>(this, "enqueue");
        if (mNbInputs < 0)
        {
            throw std::runtime_error("enqueue was called before on_shape_change gave the plugin its tensors");
        }
        method(listOf(inputDesc, mNbInputs), listOf(outputDesc, mNbOutputs), addressesOf(inputs, mNbInputs),
            addressesOf(outputs, mNbOutputs), reinterpret_cast<uintptr_t>(workspace),
            reinterpret_cast<uintptr_t>(stream));
        return 0;
    });
}

int32_t PyPluginV3OneRuntime::enqueueHost(PluginTensorDesc const* inputDesc, PluginTensorDesc const* outputDesc,
    void const* const* inputs, void* const* outputs, void* workspace)
{
    // A class that tells host memory from device memory (tensorrt.plugin's, whose tensors offer numpy views only on
    // the host) defines enqueue_host; any other gets enqueue with stream 0.
    return callPython([&] {
        py::function method = optionalOverride(static_cast<RuntimeBase const*>(this), "enqueue_host");
        if (!method)
        {
            return enqueue(inputDesc, outputDesc, inputs, outputs, workspace, nullptr);
        }
        if (mNbInputs < 0)
        {
            throw std::runtime_error("enqueue_host was called before on_shape_change gave the plugin its tensors");
        }
        method(listOf(inputDesc, mNbInputs), listOf(outputDesc, mNbOutputs), addressesOf(inputs, mNbInputs),
            addressesOf(outputs, mNbOutputs), reinterpret_cast<uintptr_t>(workspace));
        return 0;
    });
}

IPluginV3* PyPluginV3OneRuntime::attachToContext(nvinfer1::IPluginResourceContext* context)
{
    return callPython([&] {
        py::object attached = requiredOverride<RuntimeBase>(this, "attach_to_context")(
            py::cast(context, py::return_value_policy::reference));
        return adoptPythonPlugin(std::move(attached), "attach_to_context");
    });
}

nvinfer1::PluginFieldCollection const* PyPluginV3OneRuntime::getFieldsToSerialize()
{
    return callPython([&] {
        py::object fields = requiredOverride<RuntimeBase>(this, "get_fields_to_serialize")();
        if (!py::isinstance<PyPluginFieldCollection>(fields))
        {
            throw std::runtime_error(
                "get_fields_to_serialize returned " + pythonTypeName(fields) + ", not a PluginFieldCollection");
        }
        mSerializedView = std::make_unique<FieldsView>(fields.cast<PyPluginFieldCollection const&>());
        mSerializedFields = std::move(fields);
        return mSerializedView->collection();
    });
}

// ---- PyPluginCreatorV3One ----

using CreatorBase = nvinfer1::IPluginCreatorV3One;

IPluginV3* PyPluginCreatorV3One::createPlugin(
    char const* pluginName, nvinfer1::PluginFieldCollection const* fc, nvinfer1::TensorRTPhase phase)
{
    return callPython([&] {
        py::object plugin = requiredOverride<CreatorBase>(this, "create_plugin")(
            pluginName != nullptr ? pluginName : "", fieldsToPython(fc), phase);
        return adoptPythonPlugin(std::move(plugin), "create_plugin");
    });
}

nvinfer1::PluginFieldCollection const* PyPluginCreatorV3One::getFieldNames()
{
    return callPython([&] {
        py::object fields = py::getattr(pythonSelf<CreatorBase>(this), "field_names");
        if (!py::isinstance<PyPluginFieldCollection>(fields))
        {
            throw std::runtime_error("field_names is a " + pythonTypeName(fields) + ", not a PluginFieldCollection");
        }
        mListedView = std::make_unique<FieldsView>(fields.cast<PyPluginFieldCollection const&>());
        mListedFields = std::move(fields);
        return mListedView->collection();
    });
}

char const* PyPluginCreatorV3One::getPluginName() const
{
    return textAttribute<CreatorBase>(this, "name", name);
}

char const* PyPluginCreatorV3One::getPluginVersion() const
{
    return textAttribute<CreatorBase>(this, "plugin_version", version);
}

char const* PyPluginCreatorV3One::getPluginNamespace() const
{
    return textAttribute<CreatorBase>(this, "plugin_namespace", pluginNamespace);
}

// ---- creators kept while registered ----

namespace
{
//! Never destroyed: the registry outlives the interpreter's teardown of module state.
std::vector<py::object>& registeredCreators()
{
    static auto* creators = new std::vector<py::object>();
    return *creators;
}
} // namespace

void keepRegisteredCreator(py::handle creator)
{
    registeredCreators().push_back(py::reinterpret_borrow<py::object>(creator));
}

void releaseRegisteredCreator(py::handle creator)
{
    auto& creators = registeredCreators();
    for (auto it = creators.begin(); it != creators.end(); ++it)
    {
        if (it->is(creator))
        {
            creators.erase(it);
            return;
        }
    }
}

} // namespace kiln::python
