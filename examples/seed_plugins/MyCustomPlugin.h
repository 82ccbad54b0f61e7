// MyCustomPlugin: the IPluginV2DynamicExt plugin of seed 003, written in TensorRT 7 style
// (no noexcept, int and const char*, a creator derived from BaseCreator).
//
//     y[n, c, ...] = x[n, c, ...] * weight[c] + bias[c]
//
// for an input of rank >= 2 whose dimension 1 equals in_channel. FP32 and FP16, linear.
#pragma once

#include "SeedPluginUtils.h"

#include <NvInfer.h>
#include <kiln/HostPlugin.h>

#include <string>
#include <vector>

namespace kiln_seed
{

class MyCustomPlugin final : public nvinfer1::IPluginV2DynamicExt, public kiln::IHostPlugin
{
public:
    MyCustomPlugin(int in_channel, const std::vector<float>& weight, const std::vector<float>& bias);

    MyCustomPlugin(int in_channel, nvinfer1::Weights const& weight, nvinfer1::Weights const& bias);

    //! Throws std::runtime_error if the bytes are not what serialize() writes.
    MyCustomPlugin(void const* serialData, size_t serialLength);

    MyCustomPlugin() = delete;

    ~MyCustomPlugin() override;

    int getNbOutputs() const override;

    nvinfer1::DimsExprs getOutputDimensions(
        int outputIndex, const nvinfer1::DimsExprs* inputs, int nbInputs, nvinfer1::IExprBuilder& exprBuilder) override;

    int initialize() override;

    void terminate() override;

    size_t getWorkspaceSize(const nvinfer1::PluginTensorDesc* inputs, int nbInputs,
        const nvinfer1::PluginTensorDesc* outputs, int nbOutputs) const override;

    int enqueue(const nvinfer1::PluginTensorDesc* inputDesc, const nvinfer1::PluginTensorDesc* outputDesc,
        const void* const* inputs, void* const* outputs, void* workspace, cudaStream_t stream) override;

    size_t getSerializationSize() const override;

    void serialize(void* buffer) const override;

    bool supportsFormatCombination(
        int pos, const nvinfer1::PluginTensorDesc* inOut, int nbInputs, int nbOutputs) override;

    const char* getPluginType() const override;

    const char* getPluginVersion() const override;

    void destroy() override;

    nvinfer1::IPluginV2DynamicExt* clone() const override;

    void setPluginNamespace(const char* pluginNamespace) override;

    const char* getPluginNamespace() const override;

    nvinfer1::DataType getOutputDataType(int index, const nvinfer1::DataType* inputTypes, int nbInputs) const override;

    void attachToContext(cudnnContext* cudnn, cublasContext* cublas, nvinfer1::IGpuAllocator* allocator) override;

    void detachFromContext() override;

    void configurePlugin(const nvinfer1::DynamicPluginTensorDesc* in, int nbInputs,
        const nvinfer1::DynamicPluginTensorDesc* out, int nbOutputs) override;

    // kiln::IHostPlugin
    int32_t enqueueHost(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void* workspace) override;

private:
    //! Splits the input shape into (outer, channels, inner); false if it does not fit this plugin.
    bool splitShape(nvinfer1::Dims const& dims, int64_t& outer, int64_t& inner) const;

    int _in_channel;
    std::vector<float> _weight; // host copies
    std::vector<float> _bias;
    float* _d_weight{nullptr}; // device copies (CUDA builds), made by initialize()
    float* _d_bias{nullptr};
    bool _initialized{false};
    std::string mNamespace;
};

class MyCustomPluginCreator : public BaseCreator
{
public:
    MyCustomPluginCreator();

    ~MyCustomPluginCreator() override = default;

    const char* getPluginName() const override;

    const char* getPluginVersion() const override;

    const nvinfer1::PluginFieldCollection* getFieldNames() override;

    //! Fields: in_channel (kINT32, 1), weight (kFLOAT32, in_channel), bias (kFLOAT32, in_channel).
    //! nullptr if one is missing, has the wrong type, or a length other than in_channel.
    nvinfer1::IPluginV2DynamicExt* createPlugin(const char* name, const nvinfer1::PluginFieldCollection* fc) override;

    nvinfer1::IPluginV2DynamicExt* deserializePlugin(
        const char* name, const void* serialData, size_t serialLength) override;

private:
    nvinfer1::PluginFieldCollection mFC{};
    std::vector<nvinfer1::PluginField> mPluginAttributes;
};

} // namespace kiln_seed
