#include "plugin/library_load_context.h"

namespace kiln::plugin
{
namespace
{
thread_local LibraryLoadContext* tCurrentLoad = nullptr;
} // namespace

LibraryLoadContext* LibraryLoadContext::currentFor(PluginRegistry const* registry) noexcept
{
    return tCurrentLoad != nullptr && tCurrentLoad->registry == registry ? tCurrentLoad : nullptr;
}

LibraryLoadContext::Scope::Scope(LibraryLoadContext& context) noexcept
    : mOuter(tCurrentLoad)
{
    tCurrentLoad = &context;
}

LibraryLoadContext::Scope::~Scope()
{
    tCurrentLoad = mOuter;
}

} // namespace kiln::plugin
