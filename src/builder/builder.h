// IBuilder: makes networks, configurations and profiles, and builds plans.
#pragma once

#include "builder/optimization_profile.h"
#include "core/logging.h"

#include <NvInfer.h>

#include <memory>
#include <vector>

namespace kiln::builder
{

class Builder final : public nvinfer1::IBuilder
{
public:
    explicit Builder(nvinfer1::ILogger& logger);

    bool platformHasFastFp16() const noexcept override;
    bool platformHasFastInt8() const noexcept override
    {
        return false;
    }
    int32_t getMaxDLABatchSize() const noexcept override
    {
        return 0;
    }
    int32_t getNbDLACores() const noexcept override
    {
        return 0;
    }
    nvinfer1::IBuilderConfig* createBuilderConfig() noexcept override;
    nvinfer1::INetworkDefinition* createNetworkV2(nvinfer1::NetworkDefinitionCreationFlags flags) noexcept override;
    nvinfer1::IOptimizationProfile* createOptimizationProfile() noexcept override;
    void setGpuAllocator(nvinfer1::IGpuAllocator* allocator) noexcept override
    {
        mAllocator = allocator;
    }
    void setErrorRecorder(nvinfer1::IErrorRecorder* recorder) noexcept override
    {
        mRecorder = recorder;
    }
    nvinfer1::IErrorRecorder* getErrorRecorder() const noexcept override
    {
        return mRecorder;
    }
    void reset() noexcept override { }
    bool platformHasTf32() const noexcept override
    {
        return false;
    }
    nvinfer1::IHostMemory* buildSerializedNetwork(
        nvinfer1::INetworkDefinition& network, nvinfer1::IBuilderConfig& config) noexcept override;
    bool isNetworkSupported(
        nvinfer1::INetworkDefinition const& network, nvinfer1::IBuilderConfig const& config) const noexcept override;
    nvinfer1::ILogger* getLogger() const noexcept override
    {
        return &mLogger;
    }
    bool setMaxThreads(int32_t maxThreads) noexcept override;
    int32_t getMaxThreads() const noexcept override
    {
        return mMaxThreads;
    }
    nvinfer1::IPluginRegistry& getPluginRegistry() noexcept override;
    // builder_outputs.cpp: the plan as an engine, or written to a stream.
    nvinfer1::ICudaEngine* buildEngineWithConfig(
        nvinfer1::INetworkDefinition& network, nvinfer1::IBuilderConfig& config) noexcept override;
    bool buildSerializedNetworkToStream(nvinfer1::INetworkDefinition& network, nvinfer1::IBuilderConfig& config,
        nvinfer1::IStreamWriter& writer) noexcept override;

private:
    nvinfer1::ILogger& mLogger;
    LoggerLease mLoggerLease; //!< Kiln logs to mLogger while this builder lives
    nvinfer1::IErrorRecorder* mRecorder{nullptr};
    nvinfer1::IGpuAllocator* mAllocator{nullptr}; //!< nullptr: Kiln's default
    int32_t mMaxThreads{1};
    std::vector<std::unique_ptr<OptimizationProfile>> mProfiles;
};

} // namespace kiln::builder
