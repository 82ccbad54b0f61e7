// CustomPlugin: the plain IPluginV2 plugin of seed 001, written in TensorRT 7 style
// (no noexcept, int, and the TensorRT 7 enqueue whose outputs are void**). It clamps
// every value into [min, max], the two values coming from its two weights:
//
//     y = min(max(x, min), max)
//
// FP32 and linear only. getOutputDimensions excludes the batch dimension.
#pragma once

#include "SeedPluginUtils.h"

#include <NvInfer.h>
#include <kiln/HostPlugin.h>

#include <string>
#include <vector>

namespace kiln_seed
{

using nvinfer1::DataType;
using nvinfer1::Dims;
using nvinfer1::IPluginV2;
using nvinfer1::PluginFormat;
using nvinfer1::Weights;

class CustomPlugin : public nvinfer1::IPluginV2, public kiln::IHostPlugin
{
public:
    //! weights[0] holds min and weights[1] max (one kFLOAT or kHALF value each). A missing
    //! weight leaves that side unbounded. Throws std::invalid_argument for other weights.
    CustomPlugin(const Weights* weights, int nbWeights);

    //! Throws std::runtime_error if the bytes are not what serialize() writes.
    CustomPlugin(const void* data, size_t length);

    ~CustomPlugin();

    virtual int getNbOutputs() const override;

    virtual Dims getOutputDimensions(int index, const Dims* inputs, int nbInputDims) override;

    virtual bool supportsFormat(DataType type, PluginFormat format) const override;

    virtual void configureWithFormat(const Dims* inputDims, int nbInputs, const Dims* outputDims, int nbOutputs,
        DataType type, PluginFormat format, int maxBatchSize) override;

    virtual int initialize() override;

    virtual void terminate() override;

    virtual size_t getWorkspaceSize(int maxBatchSize) const override;

    virtual int enqueue(
        int batchSize, const void* const* inputs, void** outputs, void* workspace, cudaStream_t stream) override;

    virtual size_t getSerializationSize() const override;

    virtual void serialize(void* buffer) const override;

    virtual const char* getPluginType() const override;

    virtual const char* getPluginVersion() const override;

    virtual void destroy() override;

    virtual IPluginV2* clone() const override;

    virtual void setPluginNamespace(const char* pluginNamespace) override;

    virtual const char* getPluginNamespace() const override;

    // kiln::IHostPlugin
    int32_t enqueueHost(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void* workspace) override;

    float getMin() const
    {
        return mMin;
    }
    float getMax() const
    {
        return mMax;
    }

private:
    float mMin;
    float mMax;
    int64_t mVolume{0}; //!< elements per batch item, from configureWithFormat
    std::string mNamespace;
};

class CustomPluginCreator : public BaseCreator
{
public:
    CustomPluginCreator();

    const char* getPluginName() const override;

    const char* getPluginVersion() const override;

    const nvinfer1::PluginFieldCollection* getFieldNames() override;

    //! Fields min and max (kFLOAT32, 1 each; an absent one leaves that side unbounded).
    //! nullptr for a field of the wrong type or length, or min > max.
    IPluginV2* createPlugin(const char* name, const nvinfer1::PluginFieldCollection* fc) override;

    IPluginV2* deserializePlugin(const char* name, const void* serialData, size_t serialLength) override;

private:
    nvinfer1::PluginFieldCollection mFC{};
    std::vector<nvinfer1::PluginField> mPluginAttributes;
};

} // namespace kiln_seed
