// libFuzzer entry point for the plan reader: any byte string given to IRuntime::deserializeCudaEngine (CPU backend)
// must give a null engine with a logged error or an engine, never a crash, a leak or a hang. A plan's checksum would
// turn away almost every mutation before the reader parses anything, so inputs that start with the plan's magic get
// their payload size and checksum rewritten first: the reader is fuzzed as if a writer had produced the bytes.
// Engines that load also get an execution context (where the memory they ask for is modest).
#include "fuzz_support.h"
#include "plan/plan_format.h"

#include <NvInferRuntime.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

namespace
{

//! `data` with the header's payload size and checksum made to match the payload, where it has a Kiln header.
std::vector<uint8_t> withValidChecksum(uint8_t const* data, size_t size)
{
    std::vector<uint8_t> plan(data, data + size);
    if (size >= kiln::plan::kPlanHeaderSize
        && std::memcmp(plan.data(), kiln::plan::kPlanMagic, sizeof(kiln::plan::kPlanMagic)) == 0)
    {
        uint64_t const payloadSize = size - kiln::plan::kPlanHeaderSize;
        std::memcpy(plan.data() + 16, &payloadSize, sizeof(payloadSize));
        uint64_t const checksum
            = kiln::plan::planChecksum(plan.data(), plan.data() + kiln::plan::kPlanHeaderSize, payloadSize);
        std::memcpy(plan.data() + 24, &checksum, sizeof(checksum));
    }
    return plan;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(uint8_t const* data, size_t size)
{
    static kiln::fuzz::SilentLogger logger;
    static std::unique_ptr<nvinfer1::IRuntime> const runtime{nvinfer1::createInferRuntime(logger)};
    std::vector<uint8_t> const plan = withValidChecksum(data, size);
    std::unique_ptr<nvinfer1::ICudaEngine> engine{runtime->deserializeCudaEngine(plan.data(), plan.size())};
    if (engine != nullptr)
    {
        kiln::fuzz::contextWithinLimit(*engine);
    }
    return 0;
}
