// What the plan fuzzers share: a logger that drops everything (unless asked), and an execution context only where the
// plan asks for an amount of memory a fuzzer may allocate (a plan may validly ask for gigabytes; allocating them is no
// finding).
#pragma once

#include <NvInferRuntime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>

namespace kiln::fuzz
{

//! Silent unless KILN_FUZZ_LOG is set (to see why an input that crashed was or was not refused).
class SilentLogger : public nvinfer1::ILogger
{
public:
    void log(Severity severity, char const* message) noexcept override
    {
        if (mVerbose && severity <= Severity::kWARNING)
        {
            std::fprintf(stderr, "%s\n", message);
        }
    }

private:
    bool mVerbose{std::getenv("KILN_FUZZ_LOG") != nullptr};
};

inline std::unique_ptr<nvinfer1::IExecutionContext> contextWithinLimit(nvinfer1::ICudaEngine& engine)
{
    constexpr int64_t kMaxContextBytes = int64_t{256} << 20;
    if (engine.getDeviceMemorySizeV2() > kMaxContextBytes)
    {
        return nullptr;
    }
    return std::unique_ptr<nvinfer1::IExecutionContext>{engine.createExecutionContext()};
}

} // namespace kiln::fuzz
