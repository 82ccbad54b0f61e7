// FooPlugin: the IPluginV2IOExt plugin of seed 000, written in TensorRT 8/10 style
// (noexcept, int32_t, AsciiChar const*). It is a LeakyReLU:
//
//     y = x >= 0 ? x : alpha * x
//
// FP32 or FP16, linear, output type equal to the input type. Shapes exclude the batch
// dimension (implicit-batch interface), as for every non-dynamic V2 plugin.
#pragma once

#include "SeedPluginUtils.h"

#include <NvInfer.h>
#include <kiln/HostPlugin.h>

#include <string>
#include <vector>

namespace kiln_seed
{

class FooPlugin : public nvinfer1::IPluginV2IOExt, public kiln::IHostPlugin
{
public:
    explicit FooPlugin(float alpha) noexcept;

    //! Throws std::runtime_error if the bytes are not what serialize() writes.
    FooPlugin(void const* data, size_t length);

    ~FooPlugin() override = default;

    // IPluginV2
    nvinfer1::AsciiChar const* getPluginType() const noexcept override;
    nvinfer1::AsciiChar const* getPluginVersion() const noexcept override;
    int32_t getNbOutputs() const noexcept override;
    nvinfer1::Dims getOutputDimensions(
        int32_t index, nvinfer1::Dims const* inputs, int32_t nbInputDims) noexcept override;
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

    // IPluginV2Ext
    nvinfer1::DataType getOutputDataType(
        int32_t index, nvinfer1::DataType const* inputTypes, int32_t nbInputs) const noexcept override;
    nvinfer1::IPluginV2Ext* clone() const noexcept override;

    // IPluginV2IOExt
    void configurePlugin(nvinfer1::PluginTensorDesc const* in, int32_t nbInput, nvinfer1::PluginTensorDesc const* out,
        int32_t nbOutput) noexcept override;
    bool supportsFormatCombination(int32_t pos, nvinfer1::PluginTensorDesc const* inOut, int32_t nbInputs,
        int32_t nbOutputs) const noexcept override;

    // kiln::IHostPlugin
    int32_t enqueueHost(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void* workspace) noexcept override;

    float getAlpha() const noexcept
    {
        return mAlpha;
    }

private:
    float mAlpha;
    nvinfer1::DataType mDataType{nvinfer1::DataType::kFLOAT}; //!< chosen by configurePlugin
    int64_t mVolume{0};                                       //!< elements per batch item, from configurePlugin
    std::string mNamespace;
};

class FooPluginCreator : public nvinfer1::IPluginCreator
{
public:
    FooPluginCreator();
    ~FooPluginCreator() override = default;

    nvinfer1::AsciiChar const* getPluginName() const noexcept override;
    nvinfer1::AsciiChar const* getPluginVersion() const noexcept override;
    nvinfer1::PluginFieldCollection const* getFieldNames() noexcept override;
    //! Field: alpha (kFLOAT32, 1), default 0.01 when absent. nullptr if it has the wrong type or length.
    nvinfer1::IPluginV2IOExt* createPlugin(
        nvinfer1::AsciiChar const* name, nvinfer1::PluginFieldCollection const* fc) noexcept override;
    nvinfer1::IPluginV2IOExt* deserializePlugin(
        nvinfer1::AsciiChar const* name, void const* serialData, size_t serialLength) noexcept override;
    void setPluginNamespace(nvinfer1::AsciiChar const* pluginNamespace) noexcept override;
    nvinfer1::AsciiChar const* getPluginNamespace() const noexcept override;

private:
    nvinfer1::PluginFieldCollection mFC{};
    std::vector<nvinfer1::PluginField> mPluginAttributes;
    std::string mNamespace;
};

} // namespace kiln_seed
