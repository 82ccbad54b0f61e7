// Kiln extension: choose the logger that Kiln's free functions report through.
#pragma once

#include <NvInferRuntime.h>

namespace kiln
{
//! Makes logger the one getLogger() returns (nullptr restores the default, which
//! writes warnings and errors to stderr). The logger must outlive its use.
//! createInferBuilder, createInferRuntime and initLibNvInferPlugins call this too.
void setLogger(nvinfer1::ILogger* logger) noexcept;

//! Makes logger the one getLogger() returns while the lease lives, over setLogger's. Builders and runtimes hold one
//! for the application's logger; when a lease ends, the logger of the newest lease still alive (else the default,
//! or setLogger's) takes over again, so that Kiln never logs into a logger whose owner has gone. For code that
//! wants Kiln's messages for a while: the ONNX parser holds one while it parses, to report the errors that network
//! calls log as its own.
class TENSORRTAPI LoggerLease
{
public:
    explicit LoggerLease(nvinfer1::ILogger& logger);
    ~LoggerLease();
    LoggerLease(LoggerLease const&) = delete;
    LoggerLease& operator=(LoggerLease const&) = delete;

private:
    nvinfer1::ILogger* mLogger;
};

} // namespace kiln
