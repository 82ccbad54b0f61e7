// Plugins and creators written in Python: the trampolines behind trt.IPluginV3, trt.IPluginV3OneCore/Build/Runtime
// and trt.IPluginCreatorV3One, through which Kiln's C++ side calls the methods a Python subclass defines.
//
// A Python plugin is one Python object holding one trampoline per base class it derives from (usually all four).
// Kiln owns the plugins it gets from clone(), create_plugin() and attach_to_context() and deletes them, which it must
// never do to an object that Python owns: it gets a PythonPluginOwner instead, which holds a reference to the Python
// object and forwards to its IPluginV3 trampoline.
#pragma once

#include "plugin_fields.h"

#include <NvInferRuntime.h>
#include <kiln/HostPlugin.h>
#include <pybind11/pybind11.h>

#include <map>
#include <memory>
#include <string>
#include <utility>

namespace kiln::python
{

//! A TensorRT interface implemented by Python code, as getAPILanguage tells.
template <typename Interface>
class PythonImplemented : public Interface
{
public:
    nvinfer1::APILanguage getAPILanguage() const override
    {
        return nvinfer1::APILanguage::kPYTHON;
    }
};

//! The IPluginV3 Kiln owns for a Python plugin object (a Python subclass of trt.IPluginV3, or a C++ plugin that
//! Python holds): deleting it drops the reference, after the plugin's destroy().
class PythonPluginOwner final : public PythonImplemented<nvinfer1::IPluginV3>
{
public:
    explicit PythonPluginOwner(pybind11::object plugin);
    ~PythonPluginOwner() override;
    PythonPluginOwner(PythonPluginOwner const&) = delete;
    PythonPluginOwner& operator=(PythonPluginOwner const&) = delete;

    nvinfer1::IPluginCapability* getCapabilityInterface(nvinfer1::PluginCapabilityType type) override;
    nvinfer1::IPluginV3* clone() override;

private:
    pybind11::object mPlugin;
    nvinfer1::IPluginV3* mTarget;
};

//! A plugin a Python method returned, for Kiln to own; null for None, a runtime_error for anything that is not a
//! plugin. `method` names the method in that message. GIL held.
nvinfer1::IPluginV3* adoptPythonPlugin(pybind11::object plugin, char const* method);

class PyPluginV3 : public PythonImplemented<nvinfer1::IPluginV3>
{
public:
    nvinfer1::IPluginCapability* getCapabilityInterface(nvinfer1::PluginCapabilityType type) override;
    nvinfer1::IPluginV3* clone() override;
    //! Calls the Python destroy() (TensorRT's Python API has it; C++ has the destructor), if the class defines one.
    void destroy();

private:
    // Capabilities that are other Python objects than the plugin itself (the previous and the latest answer for each
    // type): Kiln holds raw pointers into them.
    std::map<nvinfer1::PluginCapabilityType, std::pair<pybind11::object, pybind11::object>> mOtherCapabilities;
};

class PyPluginV3OneCore : public PythonImplemented<nvinfer1::IPluginV3OneCore>
{
public:
    // Read from the Python attributes each time, so that class attributes work as well as instance ones.
    char const* getPluginName() const override;
    char const* getPluginVersion() const override;
    char const* getPluginNamespace() const override;

    // What trt.IPluginV3OneCore's attributes store (the text returned above is kept here too).
    mutable std::string name, version, pluginNamespace;
};

//! What trt.IPluginV3OneBuild's attributes store, on either version of the build capability.
struct PyBuildAttributes
{
    int32_t numOutputs{0};
    std::string timingCacheId;
    int32_t formatCombinationLimit{nvinfer1::IPluginV3OneBuild::kDEFAULT_FORMAT_COMBINATION_LIMIT};
    std::string metadataString;
};

//! The build capability of either version: `Base` is v_1_0::IPluginV3OneBuild (trt.IPluginV3OneBuild) or
//! v_2_0::IPluginV3OneBuild (trt.IPluginV3OneBuildV2, which adds get_aliased_input).
template <typename Base>
class PyPluginV3OneBuildOf : public PythonImplemented<Base>, public PyBuildAttributes
{
public:
    int32_t configurePlugin(nvinfer1::DynamicPluginTensorDesc const* in, int32_t nbInputs,
        nvinfer1::DynamicPluginTensorDesc const* out, int32_t nbOutputs) override;
    int32_t getOutputDataTypes(nvinfer1::DataType* outputTypes, int32_t nbOutputs, nvinfer1::DataType const* inputTypes,
        int32_t nbInputs) const override;
    int32_t getOutputShapes(nvinfer1::DimsExprs const* inputs, int32_t nbInputs, nvinfer1::DimsExprs const* shapeInputs,
        int32_t nbShapeInputs, nvinfer1::DimsExprs* outputs, int32_t nbOutputs,
        nvinfer1::IExprBuilder& exprBuilder) override;
    bool supportsFormatCombination(
        int32_t pos, nvinfer1::DynamicPluginTensorDesc const* inOut, int32_t nbInputs, int32_t nbOutputs) override;
    int32_t getNbOutputs() const override;
    size_t getWorkspaceSize(nvinfer1::DynamicPluginTensorDesc const* inputs, int32_t nbInputs,
        nvinfer1::DynamicPluginTensorDesc const* outputs, int32_t nbOutputs) const override;
    int32_t getValidTactics(int32_t* tactics, int32_t nbTactics) override;
    int32_t getNbTactics() override;
    char const* getTimingCacheID() override;
    int32_t getFormatCombinationLimit() override;
    char const* getMetadataString() override;

private:
    mutable std::string mText;
};

using PyPluginV3OneBuild = PyPluginV3OneBuildOf<nvinfer1::v_1_0::IPluginV3OneBuild>;

class PyPluginV3OneBuildV2 : public PyPluginV3OneBuildOf<nvinfer1::v_2_0::IPluginV3OneBuild>
{
public:
    //! The Python get_aliased_input(output_index); -1 (no alias) where the class does not define it.
    int32_t getAliasedInput(int32_t outputIndex) override;
};

//! Also kiln::IHostPlugin: on the CPU backend, enqueue gets host addresses and stream 0.
class PyPluginV3OneRuntime : public PythonImplemented<nvinfer1::IPluginV3OneRuntime>, public kiln::IHostPlugin
{
public:
    int32_t setTactic(int32_t tactic) override;
    int32_t onShapeChange(nvinfer1::PluginTensorDesc const* in, int32_t nbInputs, nvinfer1::PluginTensorDesc const* out,
        int32_t nbOutputs) override;
    int32_t enqueue(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void* workspace, cudaStream_t stream) override;
    int32_t enqueueHost(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void* workspace) override;
    nvinfer1::IPluginV3* attachToContext(nvinfer1::IPluginResourceContext* context) override;
    nvinfer1::PluginFieldCollection const* getFieldsToSerialize() override;

private:
    // enqueue's C++ signature gives no counts: on_shape_change, which Kiln calls before every first run at a shape,
    // gives them.
    int32_t mNbInputs{-1};
    int32_t mNbOutputs{-1};
    pybind11::object mSerializedFields; // what the last get_fields_to_serialize returned, and its C++ view
    std::unique_ptr<FieldsView> mSerializedView;
};

class PyPluginCreatorV3One : public PythonImplemented<nvinfer1::IPluginCreatorV3One>
{
public:
    nvinfer1::IPluginV3* createPlugin(
        char const* name, nvinfer1::PluginFieldCollection const* fc, nvinfer1::TensorRTPhase phase) override;
    nvinfer1::PluginFieldCollection const* getFieldNames() override;
    char const* getPluginName() const override;
    char const* getPluginVersion() const override;
    char const* getPluginNamespace() const override;

    // What trt.IPluginCreatorV3One's attributes store.
    mutable std::string name, version, pluginNamespace;
    pybind11::object fieldNames{pybind11::cast(PyPluginFieldCollection{})};

private:
    pybind11::object mListedFields; // what the last read of field_names gave, and its C++ view
    std::unique_ptr<FieldsView> mListedView;
};

//! A creator's fields as trt.PluginFieldCollection, each field's data copied into a numpy array of its type. GIL held.
pybind11::object fieldsToPython(nvinfer1::PluginFieldCollection const* fc);

//! A Python creator registered with the registry lives as long as it stays registered (Kiln calls it when a plan is
//! loaded, long after the script may have dropped its own reference).
void keepRegisteredCreator(pybind11::handle creator);
void releaseRegisteredCreator(pybind11::handle creator);

} // namespace kiln::python
