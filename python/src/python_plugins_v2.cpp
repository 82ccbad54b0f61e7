// The trampolines of python_plugins_v2.h. As for the V3 ones (python_plugins.cpp), each call takes the GIL and calls
// the Python method of TensorRT's Python name; an exception, a missing required method or a value of the wrong type
// leaves as a std::runtime_error, which Kiln's guard around plugin calls reports naming the plugin and the method.
// The optional methods (initialize, terminate, destroy, get_workspace_size, get_serialization_size) have the defaults
// TensorRT's Python API gives them.
#include "python_plugins_v2.h"
#include "plugin_call_args.h"
#include "python_call.h"
#include "python_plugins.h"

#include <cstring>

namespace kiln::python
{

namespace py = pybind11;

using nvinfer1::DataType;
using nvinfer1::DimsExprs;
using nvinfer1::DynamicPluginTensorDesc;
using nvinfer1::IPluginV2DynamicExt;
using nvinfer1::PluginTensorDesc;

namespace
{

//! What a Python method that may return a status gave: None is success (0), an int the status itself.
int32_t statusOf(py::handle returned, char const* method)
{
    if (returned.is_none())
    {
        return 0;
    }
    if (!py::isinstance<py::int_>(returned))
    {
        throw std::runtime_error(std::string(method) + " returned " + pythonTypeName(returned) + ", not an int");
    }
    return returned.cast<int32_t>();
}

//! The IPluginV2DynamicExt Kiln owns for a Python plugin object: forwards to its trampoline; destroy() lets go.
class PythonPluginV2Owner final : public IPluginV2DynamicExt, public kiln::IHostPlugin
{
public:
    PythonPluginV2Owner(py::object plugin, PyPluginV2DynamicExt* target)
        : mPlugin(std::move(plugin))
        , mTarget(target)
    {
    }
    PythonPluginV2Owner(PythonPluginV2Owner const&) = delete;
    PythonPluginV2Owner& operator=(PythonPluginV2Owner const&) = delete;

    char const* getPluginType() const override
    {
        return mTarget->getPluginType();
    }
    char const* getPluginVersion() const override
    {
        return mTarget->getPluginVersion();
    }
    char const* getPluginNamespace() const override
    {
        return mTarget->getPluginNamespace();
    }
    void setPluginNamespace(char const* pluginNamespace) override
    {
        mTarget->setPluginNamespace(pluginNamespace);
    }
    int32_t getNbOutputs() const override
    {
        return mTarget->getNbOutputs();
    }
    int32_t initialize() override
    {
        return mTarget->initialize();
    }
    void terminate() override
    {
        mTarget->terminate();
    }
    size_t getSerializationSize() const override
    {
        return mTarget->getSerializationSize();
    }
    void serialize(void* buffer) const override
    {
        mTarget->serialize(buffer);
    }
    void destroy() override
    {
        if (!pythonIsRunning())
        {
            mPlugin.release(); // the interpreter is gone, and the object with it
        }
        else
        {
            py::gil_scoped_acquire gil;
            mTarget->destroyPython();
            mPlugin = py::object();
        }
        delete this;
    }
    IPluginV2DynamicExt* clone() const override
    {
        return mTarget->clone();
    }
    DataType getOutputDataType(int32_t index, DataType const* inputTypes, int32_t nbInputs) const override
    {
        return mTarget->getOutputDataType(index, inputTypes, nbInputs);
    }
    DimsExprs getOutputDimensions(
        int32_t outputIndex, DimsExprs const* inputs, int32_t nbInputs, nvinfer1::IExprBuilder& exprBuilder) override
    {
        return mTarget->getOutputDimensions(outputIndex, inputs, nbInputs, exprBuilder);
    }
    bool supportsFormatCombination(
        int32_t pos, PluginTensorDesc const* inOut, int32_t nbInputs, int32_t nbOutputs) override
    {
        return mTarget->supportsFormatCombination(pos, inOut, nbInputs, nbOutputs);
    }
    void configurePlugin(DynamicPluginTensorDesc const* in, int32_t nbInputs, DynamicPluginTensorDesc const* out,
        int32_t nbOutputs) override
    {
        mTarget->configurePlugin(in, nbInputs, out, nbOutputs);
    }
    size_t getWorkspaceSize(PluginTensorDesc const* inputs, int32_t nbInputs, PluginTensorDesc const* outputs,
        int32_t nbOutputs) const override
    {
        return mTarget->getWorkspaceSize(inputs, nbInputs, outputs, nbOutputs);
    }
    int32_t enqueue(PluginTensorDesc const* inputDesc, PluginTensorDesc const* outputDesc, void const* const* inputs,
        void* const* outputs, void* workspace, cudaStream_t stream) override
    {
        return mTarget->enqueue(inputDesc, outputDesc, inputs, outputs, workspace, stream);
    }
    int32_t enqueueHost(PluginTensorDesc const* inputDesc, PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void* workspace) override
    {
        return mTarget->enqueueHost(inputDesc, outputDesc, inputs, outputs, workspace);
    }

private:
    ~PythonPluginV2Owner() override = default; // destroy() deletes

    py::object mPlugin;
    PyPluginV2DynamicExt* mTarget;
};

} // namespace

IPluginV2DynamicExt* adoptPythonPluginV2(py::object plugin, char const* method)
{
    if (plugin.is_none())
    {
        return nullptr;
    }
    // A C++ plugin that Python holds is no use here: Kiln would have to own it while Python does.
    auto* python = py::isinstance<IPluginV2DynamicExt>(plugin)
        ? dynamic_cast<PyPluginV2DynamicExt*>(plugin.cast<IPluginV2DynamicExt*>())
        : nullptr;
    if (python == nullptr)
    {
        throw std::runtime_error(std::string(method) + " returned " + pythonTypeName(plugin)
            + ", not an IPluginV2DynamicExt written in Python");
    }
    return new PythonPluginV2Owner(std::move(plugin), python);
}

// ---- PyPluginV2DynamicExt ----

using Base = IPluginV2DynamicExt;

char const* PyPluginV2DynamicExt::getPluginType() const
{
    return textAttribute<Base>(this, "plugin_type", mType);
}

char const* PyPluginV2DynamicExt::getPluginVersion() const
{
    return textAttribute<Base>(this, "plugin_version", mVersion);
}

char const* PyPluginV2DynamicExt::getPluginNamespace() const
{
    return textAttribute<Base>(this, "plugin_namespace", mNamespace);
}

void PyPluginV2DynamicExt::setPluginNamespace(char const* ns)
{
    callPython([&] { py::setattr(pythonSelf<Base>(this), "plugin_namespace", py::str(ns != nullptr ? ns : "")); });
}

int32_t PyPluginV2DynamicExt::getNbOutputs() const
{
    return callPython([&] { return py::getattr(pythonSelf<Base>(this), "num_outputs").cast<int32_t>(); });
}

int32_t PyPluginV2DynamicExt::initialize()
{
    return callPython([&] {
        py::function method = optionalOverride(static_cast<Base const*>(this), "initialize");
        return method ? statusOf(method(), "initialize") : 0;
    });
}

void PyPluginV2DynamicExt::terminate()
{
    callPython([&] {
        if (py::function method = optionalOverride(static_cast<Base const*>(this), "terminate"))
        {
            method();
        }
    });
}

std::string PyPluginV2DynamicExt::serializedBytes() const
{
    py::object const data = requiredOverride<Base>(this, "serialize")();
    if (py::isinstance<py::str>(data))
    {
        return data.cast<std::string>(); // UTF-8, as JSON text usually is
    }
    if (!py::isinstance<py::buffer>(data))
    {
        throw std::runtime_error("serialize returned " + pythonTypeName(data) + ", not bytes");
    }
    py::buffer_info const info = py::reinterpret_borrow<py::buffer>(data).request();
    auto const* bytes = static_cast<char const*>(info.ptr);
    return std::string(bytes, bytes + info.size * info.itemsize);
}

size_t PyPluginV2DynamicExt::getSerializationSize() const
{
    return callPython([&]() -> size_t {
        if (py::function method = optionalOverride(static_cast<Base const*>(this), "get_serialization_size"))
        {
            return method().cast<size_t>();
        }
        return serializedBytes().size();
    });
}

void PyPluginV2DynamicExt::serialize(void* buffer) const
{
    callPython([&] {
        std::string const bytes = serializedBytes();
        size_t const promised = getSerializationSize();
        if (bytes.size() != promised)
        {
            throw std::runtime_error("serialize returned " + std::to_string(bytes.size())
                + " bytes where get_serialization_size promised " + std::to_string(promised));
        }
        std::memcpy(buffer, bytes.data(), bytes.size());
    });
}

void PyPluginV2DynamicExt::destroy()
{
    delete this; // Python collected the object (see the header)
}

void PyPluginV2DynamicExt::destroyPython()
{
    try
    {
        if (py::function method = optionalOverride(static_cast<Base const*>(this), "destroy"))
        {
            method();
        }
    }
    catch (py::error_already_set& error)
    {
        error.discard_as_unraisable("destroy() of a Python plugin");
    }
}

IPluginV2DynamicExt* PyPluginV2DynamicExt::clone() const
{
    return callPython([&] { return adoptPythonPluginV2(requiredOverride<Base>(this, "clone")(), "clone"); });
}

DataType PyPluginV2DynamicExt::getOutputDataType(int32_t index, DataType const* inputTypes, int32_t nbInputs) const
{
    return callPython([&] {
        return requiredOverride<Base>(this, "get_output_datatype")(index, listOf(inputTypes, nbInputs))
            .cast<DataType>();
    });
}

DimsExprs PyPluginV2DynamicExt::getOutputDimensions(
    int32_t outputIndex, DimsExprs const* inputs, int32_t nbInputs, nvinfer1::IExprBuilder& exprBuilder)
{
    return callPython([&] {
        auto const dims = requiredOverride<Base>(this, "get_output_dimensions")(
            outputIndex, listOf(inputs, nbInputs), py::cast(&exprBuilder, py::return_value_policy::reference))
                              .cast<DimsExprs>();
        for (int32_t d = 0; d < dims.nbDims; ++d)
        {
            if (dims.d[d] == nullptr)
            {
                throw std::runtime_error("get_output_dimensions left dimension " + std::to_string(d) + " of output "
                    + std::to_string(outputIndex) + " unset");
            }
        }
        return dims;
    });
}

bool PyPluginV2DynamicExt::supportsFormatCombination(
    int32_t pos, PluginTensorDesc const* inOut, int32_t nbInputs, int32_t nbOutputs)
{
    return callPython([&] {
        return requiredOverride<Base>(this, "supports_format_combination")(
            pos, listOf(inOut, nbInputs + nbOutputs), nbInputs)
            .cast<bool>();
    });
}

void PyPluginV2DynamicExt::configurePlugin(
    DynamicPluginTensorDesc const* in, int32_t nbInputs, DynamicPluginTensorDesc const* out, int32_t nbOutputs)
{
    callPython([&] {
        requiredOverride<Base>(this, "configure_plugin")(listOf(in, nbInputs), listOf(out, nbOutputs));
        mNbInputs = nbInputs;
        mNbOutputs = nbOutputs;
    });
}

size_t PyPluginV2DynamicExt::getWorkspaceSize(
    PluginTensorDesc const* inputs, int32_t nbInputs, PluginTensorDesc const* outputs, int32_t nbOutputs) const
{
    return callPython([&]() -> size_t {
        py::function method = optionalOverride(static_cast<Base const*>(this), "get_workspace_size");
        return method ? method(listOf(inputs, nbInputs), listOf(outputs, nbOutputs)).cast<size_t>() : 0;
    });
}

int32_t PyPluginV2DynamicExt::enqueue(PluginTensorDesc const* inputDesc, PluginTensorDesc const* outputDesc,
    void const* const* inputs, void* const* outputs, void* workspace, cudaStream_t stream)
{
    return callPython([&] {
        py::function method = requiredOverride<Base>(this, "enqueue");
        if (mNbInputs < 0)
        {
            throw std::runtime_error("enqueue was called before configure_plugin gave the plugin its tensors");
        }
        py::object const status = method(listOf(inputDesc, mNbInputs), listOf(outputDesc, mNbOutputs),
            addressesOf(inputs, mNbInputs), addressesOf(outputs, mNbOutputs), reinterpret_cast<uintptr_t>(workspace),
            reinterpret_cast<uintptr_t>(stream));
        return statusOf(status, "enqueue");
    });
}

int32_t PyPluginV2DynamicExt::enqueueHost(PluginTensorDesc const* inputDesc, PluginTensorDesc const* outputDesc,
    void const* const* inputs, void* const* outputs, void* workspace)
{
    return enqueue(inputDesc, outputDesc, inputs, outputs, workspace, nullptr);
}

// ---- PyPluginCreator ----

using CreatorBase = nvinfer1::IPluginCreator;

char const* PyPluginCreator::getPluginName() const
{
    return textAttribute<CreatorBase>(this, "name", name);
}

char const* PyPluginCreator::getPluginVersion() const
{
    return textAttribute<CreatorBase>(this, "plugin_version", version);
}

char const* PyPluginCreator::getPluginNamespace() const
{
    return textAttribute<CreatorBase>(this, "plugin_namespace", pluginNamespace);
}

void PyPluginCreator::setPluginNamespace(char const* ns)
{
    callPython(
        [&] { py::setattr(pythonSelf<CreatorBase>(this), "plugin_namespace", py::str(ns != nullptr ? ns : "")); });
}

nvinfer1::PluginFieldCollection const* PyPluginCreator::getFieldNames()
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

nvinfer1::IPluginV2* PyPluginCreator::createPlugin(char const* pluginName, nvinfer1::PluginFieldCollection const* fc)
{
    return callPython([&] {
        py::object plugin = requiredOverride<CreatorBase>(this, "create_plugin")(
            pluginName != nullptr ? pluginName : "", fieldsToPython(fc));
        return adoptPythonPluginV2(std::move(plugin), "create_plugin");
    });
}

nvinfer1::IPluginV2* PyPluginCreator::deserializePlugin(char const* pluginName, void const* serialData, size_t length)
{
    return callPython([&] {
        py::bytes const data(static_cast<char const*>(serialData), length);
        py::object plugin
            = requiredOverride<CreatorBase>(this, "deserialize_plugin")(pluginName != nullptr ? pluginName : "", data);
        return adoptPythonPluginV2(std::move(plugin), "deserialize_plugin");
    });
}

} // namespace kiln::python
