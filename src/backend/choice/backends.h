// The backends of this build of Kiln, by kind: the one place above the CPU and CUDA backends that knows them both.
// The builder, the runtime and the public kiln:: functions find a backend here and then use it only through its
// interface (backend/backend.h).
#pragma once

#include "backend/backend.h"

#include <kiln/Backend.h>

#include <optional>

namespace kiln::backend
{

//! The implementation of `kind` in this build of Kiln; nullptr for kCUDA in a build without CUDA, and for kDEFAULT.
Implementation const* implementation(Backend kind);

//! The environment variable that chooses what kDEFAULT means: "cpu" or "cuda".
constexpr char const* kBackendVariable = "KILN_BACKEND";

//! The backend kBackendVariable names: kCPU or kCUDA; kDEFAULT where it is unset or empty (the machine decides);
//! nullopt where it names no backend, which the builder reports.
std::optional<Backend> environmentBackend();

} // namespace kiln::backend
