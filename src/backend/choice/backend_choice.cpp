// Which backend kiln::Backend::kDEFAULT means on this machine.
#include <kiln/Backend.h>

#include "backend/choice/backends.h"

#include <cstdlib>
#include <string>

namespace kiln
{

namespace backend
{

std::optional<Backend> environmentBackend()
{
    char const* value = std::getenv(kBackendVariable);
    std::string const name = value == nullptr ? std::string() : std::string(value);
    if (name.empty())
    {
        return Backend::kDEFAULT;
    }
    for (Backend kind : {Backend::kCPU, Backend::kCUDA})
    {
        if (name == backendName(kind))
        {
            return kind;
        }
    }
    return std::nullopt;
}

} // namespace backend

Backend defaultBackend() noexcept
{
    // KILN_BACKEND lets the user of an application written for TensorRT, which never calls kiln::setBackend, choose
    // the backend; a value naming none is reported by the builder (backend::environmentBackend) and ignored here.
    if (std::optional<Backend> const chosen = backend::environmentBackend(); chosen && *chosen != Backend::kDEFAULT)
    {
        return *chosen;
    }
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
