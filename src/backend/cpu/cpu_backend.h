// The CPU backend behind the backend interface: the reference kernel of every layer kind, run as the network
// describes it, on host memory.
#pragma once

#include "backend/backend.h"

namespace kiln::cpu
{

backend::Implementation const& cpuBackend();

} // namespace kiln::cpu
