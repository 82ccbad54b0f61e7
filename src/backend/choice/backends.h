// The backends of this build of Kiln, by kind: the one place above the CPU and CUDA backends that knows them both.
// The builder, the runtime and the public kiln:: functions find a backend here and then use it only through its
// interface (backend/backend.h).
#pragma once

#include "backend/backend.h"

#include <kiln/Backend.h>

namespace kiln::backend
{

//! The implementation of `kind` in this build of Kiln; nullptr for kCUDA in a build without CUDA, and for kDEFAULT.
Implementation const* implementation(Backend kind);

} // namespace kiln::backend
