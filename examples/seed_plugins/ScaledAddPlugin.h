// ScaledAddPlugin: an IPluginV3 plugin (TensorRT 10 style). One class implements the
// root interface and the three capabilities, as TensorRT's own V3 plugins do:
//
//     y = a + alpha * b
//
// for two inputs of the same shape. FP32 and FP16, linear. Its state is serialized as
// fields (getFieldsToSerialize), which the creator reads back in TensorRTPhase::kRUNTIME.
#pragma once

#include "SeedPluginUtils.h"

#include <NvInfer.h>
#include <kiln/HostPlugin.h>

#include <string>
#include <vector>

namespace kiln_seed
{

class ScaledAddPlugin : public nvinfer1::IPluginV3,
                        public nvinfer1::IPluginV3OneCore,
                        public nvinfer1::IPluginV3OneBuild,
                        public nvinfer1::IPluginV3OneRuntime,
                        public kiln::IHostPlugin
{
public:
    explicit ScaledAddPlugin(float alpha, std::string pluginNamespace = "");
    ScaledAddPlugin(ScaledAddPlugin const& other);
    ScaledAddPlugin& operator=(ScaledAddPlugin const&) = delete;
    ~ScaledAddPlugin() override = default;

    // IPluginV3
    nvinfer1::IPluginCapability* getCapabilityInterface(nvinfer1::PluginCapabilityType type) noexcept override;
    nvinfer1::IPluginV3* clone() noexcept override;

    // IPluginV3OneCore
    nvinfer1::AsciiChar const* getPluginName() const noexcept override;
    nvinfer1::AsciiChar const* getPluginVersion() const noexcept override;
    nvinfer1::AsciiChar const* getPluginNamespace() const noexcept override;

    // IPluginV3OneBuild
    int32_t configurePlugin(nvinfer1::DynamicPluginTensorDesc const* in, int32_t nbInputs,
        nvinfer1::DynamicPluginTensorDesc const* out, int32_t nbOutputs) noexcept override;
    int32_t getOutputDataTypes(nvinfer1::DataType* outputTypes, int32_t nbOutputs, nvinfer1::DataType const* inputTypes,
        int32_t nbInputs) const noexcept override;
    int32_t getOutputShapes(nvinfer1::DimsExprs const* inputs, int32_t nbInputs, nvinfer1::DimsExprs const* shapeInputs,
        int32_t nbShapeInputs, nvinfer1::DimsExprs* outputs, int32_t nbOutputs,
        nvinfer1::IExprBuilder& exprBuilder) noexcept override;
    bool supportsFormatCombination(int32_t pos, nvinfer1::DynamicPluginTensorDesc const* inOut, int32_t nbInputs,
        int32_t nbOutputs) noexcept override;
    int32_t getNbOutputs() const noexcept override;

    // IPluginV3OneRuntime
    int32_t onShapeChange(nvinfer1::PluginTensorDesc const* in, int32_t nbInputs, nvinfer1::PluginTensorDesc const* out,
        int32_t nbOutputs) noexcept override;
    int32_t enqueue(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void* workspace, cudaStream_t stream) noexcept override;
    nvinfer1::IPluginV3* attachToContext(nvinfer1::IPluginResourceContext* context) noexcept override;
    nvinfer1::PluginFieldCollection const* getFieldsToSerialize() noexcept override;

    // kiln::IHostPlugin
    int32_t enqueueHost(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void* workspace) noexcept override;

    float getAlpha() const noexcept
    {
        return mAlpha;
    }

private:
    //! Element count shared by a, b and y; -1 if the descriptors do not fit this plugin.
    static int64_t checkedCount(
        nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc);

    float mAlpha;
    std::string mNamespace;
    std::vector<nvinfer1::PluginField> mDataToSerialize;
    nvinfer1::PluginFieldCollection mFCToSerialize{};
};

class ScaledAddPluginCreator : public nvinfer1::IPluginCreatorV3One
{
public:
    ScaledAddPluginCreator();
    ~ScaledAddPluginCreator() override = default;

    nvinfer1::AsciiChar const* getPluginName() const noexcept override;
    nvinfer1::AsciiChar const* getPluginVersion() const noexcept override;
    nvinfer1::AsciiChar const* getPluginNamespace() const noexcept override;
    nvinfer1::PluginFieldCollection const* getFieldNames() noexcept override;
    //! Field: alpha (kFLOAT32, 1), default 1 when absent. nullptr if it has the wrong type or length.
    nvinfer1::IPluginV3* createPlugin(nvinfer1::AsciiChar const* name, nvinfer1::PluginFieldCollection const* fc,
        nvinfer1::TensorRTPhase phase) noexcept override;

    //! V3 creators have no virtual setPluginNamespace; a library that registers under a
    //! namespace calls this first. Plugins made afterwards carry the namespace.
    void setPluginNamespace(nvinfer1::AsciiChar const* pluginNamespace) noexcept;

private:
    nvinfer1::PluginFieldCollection mFC{};
    std::vector<nvinfer1::PluginField> mPluginAttributes;
    std::string mNamespace;
};

} // namespace kiln_seed
