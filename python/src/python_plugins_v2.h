// Plugins of the IPluginV2 family written in Python: trt.IPluginV2DynamicExt (the one V2 interface TensorRT's Python
// API lets Python implement) and its creator trt.IPluginCreator, whose deserialize_plugin reads what the plugin's
// serialize() returned.
//
// Kiln releases a V2 plugin through destroy(). A plugin Kiln gets from a Python method (clone, create_plugin,
// deserialize_plugin) is therefore a PythonPluginV2Owner: it holds a reference to the Python object, forwards every
// call to its trampoline, and its destroy() calls the Python destroy() (if the class defines one) and drops the
// reference. The trampoline's own destroy() is called only when Python collects the object, and frees the C++ part.
#pragma once

#include "plugin_fields.h"

#include <NvInferRuntime.h>
#include <kiln/HostPlugin.h>
#include <pybind11/pybind11.h>

#include <memory>
#include <string>

namespace kiln::python
{

class PyPluginV2DynamicExt : public nvinfer1::IPluginV2DynamicExt, public kiln::IHostPlugin
{
public:
    PyPluginV2DynamicExt() = default;
    ~PyPluginV2DynamicExt() override = default;
    PyPluginV2DynamicExt(PyPluginV2DynamicExt const&) = delete;
    PyPluginV2DynamicExt& operator=(PyPluginV2DynamicExt const&) = delete;

    // Read from the Python attributes each time, so that class attributes work as well as instance ones.
    char const* getPluginType() const override;
    char const* getPluginVersion() const override;
    char const* getPluginNamespace() const override;
    void setPluginNamespace(char const* pluginNamespace) override;
    int32_t getNbOutputs() const override;

    int32_t initialize() override;
    void terminate() override;
    size_t getSerializationSize() const override;
    void serialize(void* buffer) const override;
    void destroy() override;
    nvinfer1::IPluginV2DynamicExt* clone() const override;

    nvinfer1::DataType getOutputDataType(
        int32_t index, nvinfer1::DataType const* inputTypes, int32_t nbInputs) const override;
    nvinfer1::DimsExprs getOutputDimensions(int32_t outputIndex, nvinfer1::DimsExprs const* inputs, int32_t nbInputs,
        nvinfer1::IExprBuilder& exprBuilder) override;
    bool supportsFormatCombination(
        int32_t pos, nvinfer1::PluginTensorDesc const* inOut, int32_t nbInputs, int32_t nbOutputs) override;
    void configurePlugin(nvinfer1::DynamicPluginTensorDesc const* in, int32_t nbInputs,
        nvinfer1::DynamicPluginTensorDesc const* out, int32_t nbOutputs) override;
    size_t getWorkspaceSize(nvinfer1::PluginTensorDesc const* inputs, int32_t nbInputs,
        nvinfer1::PluginTensorDesc const* outputs, int32_t nbOutputs) const override;
    int32_t enqueue(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void* workspace, cudaStream_t stream) override;
    //! The CPU backend's run: enqueue with host addresses and stream 0.
    int32_t enqueueHost(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void* workspace) override;

    //! Calls the Python destroy() (TensorRT's Python API has it), if the class defines one.
    void destroyPython();

    // What trt.IPluginV2DynamicExt's attributes store.
    int32_t numOutputs{0};
    std::string pluginType, version, pluginNamespace;

private:
    //! What the Python serialize() returns (bytes, a buffer, or text written as UTF-8). GIL held.
    std::string serializedBytes() const;

    mutable std::string mType, mVersion, mNamespace; // the text last returned
    // enqueue's C++ signature gives no counts: configurePlugin, which Kiln calls before every first run at a shape,
    // gives them.
    int32_t mNbInputs{-1};
    int32_t mNbOutputs{-1};
};

//! A plugin a Python method returned, for Kiln to own; null for None, a runtime_error for anything that is not a
//! Python trt.IPluginV2DynamicExt. `method` names the method in that message. GIL held.
nvinfer1::IPluginV2DynamicExt* adoptPythonPluginV2(pybind11::object plugin, char const* method);

class PyPluginCreator : public nvinfer1::IPluginCreator
{
public:
    char const* getPluginName() const override;
    char const* getPluginVersion() const override;
    char const* getPluginNamespace() const override;
    void setPluginNamespace(char const* pluginNamespace) override;
    nvinfer1::PluginFieldCollection const* getFieldNames() override;
    nvinfer1::IPluginV2* createPlugin(char const* name, nvinfer1::PluginFieldCollection const* fc) override;
    nvinfer1::IPluginV2* deserializePlugin(char const* name, void const* serialData, size_t serialLength) override;

    // What trt.IPluginCreator's attributes store.
    mutable std::string name, version, pluginNamespace;
    pybind11::object fieldNames{pybind11::cast(PyPluginFieldCollection{})};

private:
    pybind11::object mListedFields; // what the last read of field_names gave, and its C++ view
    std::unique_ptr<FieldsView> mListedView;
};

} // namespace kiln::python
