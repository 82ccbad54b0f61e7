// Which backend kiln::Backend::kDEFAULT means on this machine.
#include <kiln/Backend.h>

#include "backend/backend_support.h"

namespace kiln
{

Backend defaultBackend() noexcept
{
    // The CUDA backend runs every layer the CPU backend runs, so a network builds on either: the GPU where there
    // is one, as a TensorRT user expects.
    return backendAvailable(Backend::kCUDA) ? Backend::kCUDA : Backend::kCPU;
}

bool backendAvailable(Backend backend) noexcept
{
    std::string why;
    return backend == Backend::kCPU || (backend == Backend::kCUDA && cudaBackendBuilt() && cudaDeviceUsable(why));
}

} // namespace kiln
