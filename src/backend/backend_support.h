// What each backend of this build can do: the builder asks before it writes a plan,
// the runtime before it loads one.
#pragma once

#include "network/layer.h"

#include <kiln/Backend.h>

#include <string>

namespace kiln
{

//! Whether this build of Kiln includes the CUDA backend (it was built with KILN_WITH_CUDA).
bool cudaBackendBuilt();

//! Whether a CUDA GPU can be used now; else false with `why`.
bool cudaDeviceUsable(std::string& why);

//! Empty when `backend` can run the built-in layer; else why it cannot.
std::string unsupportedOnBackend(network::LayerParams const& params, Backend backend);

} // namespace kiln
