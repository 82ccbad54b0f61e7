// What a plan file holds, read without loading it: no plugin library, no device, no engine. The kiln command prints
// it (`kiln inspect`, `--getPlanVersionOnly`). An interface exported to tools/ (scripts/check-includes.py lists it):
// the public API reaches a plan only by deserializing it, which needs its plugins and its backend's device.
#pragma once

#include <NvInferRuntimeBase.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace kiln
{

//! The versions a plan's header holds.
struct PlanVersions
{
    uint32_t format; //!< the plan format's version
    uint32_t kiln;   //!< the Kiln that wrote the plan: major * 10000 + minor * 100 + patch
};

//! The versions in the header of plan (size bytes); nullopt when it is no Kiln plan (too short, or no KILNPLAN).
TENSORRTAPI std::optional<PlanVersions> readPlanVersions(void const* plan, size_t size) noexcept;

//! plan as `kiln inspect` shows it, under the name given (its path): the plugins it needs and the libraries they
//! came from, its I/O tensors with their symbolic shapes and profiles, its layers with their precisions, types,
//! formats and kernels, and its memory plan. Every string the plan holds is made printable (a plan is not
//! trusted). False, with error saying why, when plan is not one this Kiln can read.
TENSORRTAPI bool describePlan(
    void const* plan, size_t size, char const* name, std::string& description, std::string& error) noexcept;

} // namespace kiln
