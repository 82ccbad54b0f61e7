// Each backend's build passes by name, for `kiln inspect` and applications that show how a plan was made.
#include <kiln/Backend.h>

#include "backend/choice/backends.h"

#include <vector>

namespace kiln
{
namespace
{

//! The pass names of `backend` (kDEFAULT: what it resolves to here); none for a backend this build lacks.
std::vector<char const*> passNamesOf(Backend backend)
{
    backend::Implementation const* implementation
        = backend::implementation(backend == Backend::kDEFAULT ? defaultBackend() : backend);
    return implementation != nullptr ? implementation->passNames() : std::vector<char const*>{};
}

} // namespace

int32_t getNbBackendPasses(Backend backend) noexcept
{
    try
    {
        return static_cast<int32_t>(passNamesOf(backend).size());
    }
    catch (...)
    {
        return 0;
    }
}

char const* getBackendPassName(Backend backend, int32_t index) noexcept
{
    try
    {
        std::vector<char const*> const names = passNamesOf(backend);
        return index >= 0 && static_cast<size_t>(index) < names.size() ? names[static_cast<size_t>(index)] : nullptr;
    }
    catch (...)
    {
        return nullptr;
    }
}

} // namespace kiln
