// Which backend kiln::Backend::kDEFAULT means on this machine.
#include <kiln/Backend.h>

#include "backend/choice/backends.h"

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
    backend::Implementation const* implementation = backend::implementation(backend);
    std::string why;
    return implementation != nullptr && implementation->usable(why);
}

} // namespace kiln
