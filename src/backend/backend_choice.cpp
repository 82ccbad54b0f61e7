// Which backend kiln::Backend::kDEFAULT means on this machine.
#include <kiln/Backend.h>

namespace kiln
{

Backend defaultBackend() noexcept
{
    // The CUDA backend is not part of this build yet; when it is, this becomes
    // "CUDA if built with CUDA and a GPU is present".
    return Backend::kCPU;
}

} // namespace kiln
