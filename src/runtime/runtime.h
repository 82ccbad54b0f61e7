// IRuntime: loads plans into engines.
#pragma once

#include "core/logging.h"

#include <NvInfer.h>

#include <string>

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
    // runtime_streams.cpp: the plan read from the application's stream.
    nvinfer1::ICudaEngine* deserializeCudaEngine(nvinfer1::IStreamReader& streamReader) override;
    nvinfer1::ICudaEngine* deserializeCudaEngine(nvinfer1::IStreamReaderV2& streamReader) override;
    // runtime_options.cpp: TensorRT 10's options that Kiln stores or refuses.
    void setDLACore(int32_t dlaCore) noexcept override;
    int32_t getDLACore() const noexcept override
    {
        return -1;
    }
    int32_t getNbDLACores() const noexcept override
    {
        return 0;
    }
    void setTemporaryDirectory(char const* path) noexcept override
    {
        mHasTemporaryDirectory = path != nullptr;
        mTemporaryDirectory = path != nullptr ? path : "";
    }
    char const* getTemporaryDirectory() const noexcept override
    {
        return mHasTemporaryDirectory ? mTemporaryDirectory.c_str() : nullptr;
    }
    void setTempfileControlFlags(nvinfer1::TempfileControlFlags flags) noexcept override
    {
        mTempfileControlFlags = flags;
    }
    nvinfer1::TempfileControlFlags getTempfileControlFlags() const noexcept override
    {
        return mTempfileControlFlags;
    }
    nvinfer1::IRuntime* loadRuntime(char const* path) noexcept override;
    void setEngineHostCodeAllowed(bool allowed) noexcept override
    {
        mEngineHostCodeAllowed = allowed;
    }
    bool getEngineHostCodeAllowed() const noexcept override
    {
        return mEngineHostCodeAllowed;
    }
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
    //! Logs `message` as an error and hands it to the application's error recorder, where it set one.
    void reportError(
        std::string const& message, nvinfer1::ErrorCode code = nvinfer1::ErrorCode::kINVALID_ARGUMENT) const noexcept;

    nvinfer1::ILogger& mLogger;
    LoggerLease mLoggerLease; //!< Kiln logs to mLogger while this runtime lives
    nvinfer1::IGpuAllocator* mAllocator{nullptr};
    nvinfer1::IErrorRecorder* mRecorder{nullptr};
    int32_t mMaxThreads{1};
    std::string mTemporaryDirectory;
    bool mHasTemporaryDirectory{false};
    //! TensorRT's default: both kinds of temporary file allowed.
    nvinfer1::TempfileControlFlags mTempfileControlFlags{3U};
    bool mEngineHostCodeAllowed{false};
};

} // namespace kiln::runtime
