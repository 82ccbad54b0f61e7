/*
 * ChannelScalePlugin: y[n, c, ...] = x[n, c, ...] * scales[c], an IPluginV2Ext plugin
 * (implicit batch: shapes exclude the batch dimension) in the TensorRT 8/10 dialect.
 * FP32 and FP16, linear.
 */
#ifndef DIALECT_CHANNEL_SCALE_PLUGIN_H
#define DIALECT_CHANNEL_SCALE_PLUGIN_H

#include "DialectCommon.h"

#include <kiln/HostPlugin.h>

#include <string>
#include <vector>

namespace dialect
{
namespace plugin
{

class ChannelScalePlugin final : public nvinfer1::IPluginV2Ext, public kiln::IHostPlugin
{
public:
    explicit ChannelScalePlugin(std::vector<float> scales);

    ChannelScalePlugin(void const* data, size_t length);

    ChannelScalePlugin() = delete;

    ~ChannelScalePlugin() override = default;

    // IPluginV2 Methods
    nvinfer1::AsciiChar const* getPluginType() const noexcept override;
    nvinfer1::AsciiChar const* getPluginVersion() const noexcept override;
    int32_t getNbOutputs() const noexcept override;
    nvinfer1::Dims getOutputDimensions(
        int32_t index, nvinfer1::Dims const* inputs, int32_t nbInputDims) noexcept override;
    bool supportsFormat(nvinfer1::DataType type, nvinfer1::PluginFormat format) const noexcept override;
    int32_t initialize() noexcept override;
    void terminate() noexcept override;
    size_t getWorkspaceSize(int32_t maxBatchSize) const noexcept override;
    int32_t enqueue(int32_t batchSize, void const* const* inputs, void* const* outputs, void* workspace,
        cudaStream_t stream) noexcept override;
    size_t getSerializationSize() const noexcept override;
    void serialize(void* buffer) const noexcept override;
    void destroy() noexcept override;
    void setPluginNamespace(nvinfer1::AsciiChar const* pluginNamespace) noexcept override;
    nvinfer1::AsciiChar const* getPluginNamespace() const noexcept override;

    // IPluginV2Ext Methods
    nvinfer1::DataType getOutputDataType(
        int32_t index, nvinfer1::DataType const* inputTypes, int32_t nbInputs) const noexcept override;
    bool isOutputBroadcastAcrossBatch(
        int32_t outputIndex, bool const* inputIsBroadcasted, int32_t nbInputs) const noexcept override;
    bool canBroadcastInputAcrossBatch(int32_t inputIndex) const noexcept override;
    void configurePlugin(nvinfer1::Dims const* inputDims, int32_t nbInputs, nvinfer1::Dims const* outputDims,
        int32_t nbOutputs, nvinfer1::DataType const* inputTypes, nvinfer1::DataType const* outputTypes,
        bool const* inputIsBroadcast, bool const* outputIsBroadcast, nvinfer1::PluginFormat floatFormat,
        int32_t maxBatchSize) noexcept override;
    void attachToContext(
        cudnnContext* cudnn, cublasContext* cublas, nvinfer1::IGpuAllocator* gpuAllocator) noexcept override;
    void detachFromContext() noexcept override;
    nvinfer1::IPluginV2Ext* clone() const noexcept override;

    // Kiln CPU backend
    int32_t enqueueHost(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void* workspace) noexcept override;

private:
    std::vector<float> mScales;
    nvinfer1::DataType mDataType{nvinfer1::DataType::kFLOAT};
    nvinfer1::Dims mInputDims{};
    std::string mNamespace;
};

class ChannelScalePluginCreator : public BaseCreator
{
public:
    ChannelScalePluginCreator();

    ~ChannelScalePluginCreator() override = default;

    nvinfer1::AsciiChar const* getPluginName() const noexcept override;

    nvinfer1::AsciiChar const* getPluginVersion() const noexcept override;

    nvinfer1::PluginFieldCollection const* getFieldNames() noexcept override;

    nvinfer1::IPluginV2Ext* createPlugin(
        nvinfer1::AsciiChar const* name, nvinfer1::PluginFieldCollection const* fc) noexcept override;

    nvinfer1::IPluginV2Ext* deserializePlugin(
        nvinfer1::AsciiChar const* name, void const* serialData, size_t serialLength) noexcept override;

private:
    nvinfer1::PluginFieldCollection mFC{};
    std::vector<nvinfer1::PluginField> mPluginAttributes;
};

} // namespace plugin
} // namespace dialect

#endif // DIALECT_CHANNEL_SCALE_PLUGIN_H
