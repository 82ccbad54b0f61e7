#include "plugin_collection.h"

namespace kiln::plugins
{

std::vector<CreatorFactory> const& collection()
{
    // Kiln's plugins are added here as they land (each in plugins/<name>/).
    static std::vector<CreatorFactory> const all{};
    return all;
}

} // namespace kiln::plugins
