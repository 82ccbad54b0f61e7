// What the plan fuzzer does to an input before the reader sees it, shared with the test that replays its findings: a
// plan's checksum would turn away almost every mutation before the reader parses anything, so inputs that start with
// the plan's magic get their payload size and checksum rewritten, as if a writer had produced the bytes.
#pragma once

#include "plan/plan_format.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace kiln::fuzz
{

//! `data` with the header's payload size and checksum made to match the payload, where it has a Kiln header.
inline std::vector<uint8_t> withValidChecksum(uint8_t const* data, size_t size)
{
    std::vector<uint8_t> plan(data, data + size);
    if (size >= plan::kPlanHeaderSize && std::memcmp(plan.data(), plan::kPlanMagic, sizeof(plan::kPlanMagic)) == 0)
    {
        uint64_t const payloadSize = size - plan::kPlanHeaderSize;
        std::memcpy(plan.data() + 16, &payloadSize, sizeof(payloadSize));
        uint64_t const checksum = plan::planChecksum(plan.data(), plan.data() + plan::kPlanHeaderSize, payloadSize);
        std::memcpy(plan.data() + 24, &checksum, sizeof(checksum));
    }
    return plan;
}

} // namespace kiln::fuzz
