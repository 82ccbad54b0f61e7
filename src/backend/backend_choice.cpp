// Which backend kiln::Backend::kDEFAULT means on this machine.
#include <kiln/Backend.h>

#include "backend/backend_support.h"

namespace kiln
{

Backend defaultBackend() noexcept
{
    // Becomes "CUDA when available" once the CUDA backend runs every layer the CPU backend runs; until then a
    // network would build or not depending on the machine.
    return Backend::kCPU;
}

bool backendAvailable(Backend backend) noexcept
{
    std::string why;
    return backend == Backend::kCPU || (backend == Backend::kCUDA && cudaBackendBuilt() && cudaDeviceUsable(why));
}

} // namespace kiln
