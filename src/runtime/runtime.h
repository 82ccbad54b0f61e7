// IRuntime: loads plans into engines.
#pragma once

#include "core/logging.h"

#include <NvInfer.h>

namespace kiln::runtime
{

class Runtime final : public nvinfer1::IRuntime
{
public:
    explicit Runtime(nvinfer1::ILogger& logger)
        : mLogger(logger)
        , mLoggerLease(logger)
    {
    }
    nvinfer1::ICudaEngine* deserializeCudaEngine(void const* blob, std::size_t size) noexcept override;
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
    nvinfer1::ILogger* getLogger() const noexcept override
    {
        return &mLogger;
    }
    nvinfer1::IPluginRegistry& getPluginRegistry() noexcept override;
    bool setMaxThreads(int32_t maxThreads) noexcept override;
    int32_t getMaxThreads() const noexcept override
    {
        return mMaxThreads;
    }

private:
    nvinfer1::ILogger& mLogger;
    LoggerLease mLoggerLease; //!< Kiln logs to mLogger while this runtime lives
    nvinfer1::IGpuAllocator* mAllocator{nullptr};
    nvinfer1::IErrorRecorder* mRecorder{nullptr};
    int32_t mMaxThreads{1};
};

} // namespace kiln::runtime
