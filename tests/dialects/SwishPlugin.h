/*
 * SwishPlugin: y = x * sigmoid(beta * x), an IPluginV2DynamicExt plugin in the TensorRT 8/10
 * dialect. FP32 and FP16, linear.
 */
#ifndef DIALECT_SWISH_PLUGIN_H
#define DIALECT_SWISH_PLUGIN_H

#include "DialectCommon.h"

#include <kiln/HostPlugin.h>

#include <string>
#include <vector>

namespace dialect
{
namespace plugin
{

class SwishPlugin : public nvinfer1::IPluginV2DynamicExt, public kiln::IHostPlugin
{
public:
    SwishPlugin(std::string const& name, float beta);

    SwishPlugin(std::string const& name, void const* data, size_t length);

    SwishPlugin() = delete;

    ~SwishPlugin() override = default;

    // IPluginV2DynamicExt Methods
    nvinfer1::IPluginV2DynamicExt* clone() const noexcept override;
    nvinfer1::DimsExprs getOutputDimensions(int32_t outputIndex, nvinfer1::DimsExprs const* inputs, int32_t nbInputs,
        nvinfer1::IExprBuilder& exprBuilder) noexcept override;
    bool supportsFormatCombination(
        int32_t pos, nvinfer1::PluginTensorDesc const* inOut, int32_t nbInputs, int32_t nbOutputs) noexcept override;
    void configurePlugin(nvinfer1::DynamicPluginTensorDesc const* in, int32_t nbInputs,
        nvinfer1::DynamicPluginTensorDesc const* out, int32_t nbOutputs) noexcept override;
    size_t getWorkspaceSize(nvinfer1::PluginTensorDesc const* inputs, int32_t nbInputs,
        nvinfer1::PluginTensorDesc const* outputs, int32_t nbOutputs) const noexcept override;
    int32_t enqueue(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void* workspace, cudaStream_t stream) noexcept override;

    // IPluginV2Ext Methods
    nvinfer1::DataType getOutputDataType(
        int32_t index, nvinfer1::DataType const* inputTypes, int32_t nbInputs) const noexcept override;

    // IPluginV2 Methods
    nvinfer1::AsciiChar const* getPluginType() const noexcept override;
    nvinfer1::AsciiChar const* getPluginVersion() const noexcept override;
    int32_t getNbOutputs() const noexcept override;
    int32_t initialize() noexcept override;
    void terminate() noexcept override;
    size_t getSerializationSize() const noexcept override;
    void serialize(void* buffer) const noexcept override;
    void destroy() noexcept override;
    void setPluginNamespace(nvinfer1::AsciiChar const* pluginNamespace) noexcept override;
    nvinfer1::AsciiChar const* getPluginNamespace() const noexcept override;

    // Kiln CPU backend
    int32_t enqueueHost(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void* workspace) noexcept override;

private:
    std::string const mLayerName;
    std::string mNamespace;
    float mBeta{1.F};

    // Bring the hidden IPluginV2 / IPluginV2Ext overloads into scope (the TensorRT 8 idiom).
    using nvinfer1::IPluginV2::enqueue;
    using nvinfer1::IPluginV2::getOutputDimensions;
    using nvinfer1::IPluginV2::getWorkspaceSize;
    using nvinfer1::IPluginV2Ext::configurePlugin;

#if NV_TENSORRT_MAJOR < 8
protected:
    // TensorRT 7 spelling of the same thing; the obsolete overloads are private from 8 on.
    using nvinfer1::IPluginV2DynamicExt::canBroadcastInputAcrossBatch;
    using nvinfer1::IPluginV2DynamicExt::isOutputBroadcastAcrossBatch;
    using nvinfer1::IPluginV2DynamicExt::supportsFormat;
#endif
};

class SwishPluginCreator : public BaseCreator
{
public:
    SwishPluginCreator();

    ~SwishPluginCreator() override = default;

    nvinfer1::AsciiChar const* getPluginName() const noexcept override;

    nvinfer1::AsciiChar const* getPluginVersion() const noexcept override;

    nvinfer1::PluginFieldCollection const* getFieldNames() noexcept override;

    nvinfer1::IPluginV2DynamicExt* createPlugin(
        nvinfer1::AsciiChar const* name, nvinfer1::PluginFieldCollection const* fc) noexcept override;

    nvinfer1::IPluginV2DynamicExt* deserializePlugin(
        nvinfer1::AsciiChar const* name, void const* serialData, size_t serialLength) noexcept override;

private:
    static nvinfer1::PluginFieldCollection mFC;
    static std::vector<nvinfer1::PluginField> mPluginAttributes;
};

} // namespace plugin
} // namespace dialect

#endif // DIALECT_SWISH_PLUGIN_H
