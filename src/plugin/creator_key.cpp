#include "plugin/creator_key.h"

namespace kiln::plugin
{

std::string describeKey(CreatorKey const& key)
{
    return "\"" + key.name + "\" version \"" + key.version + "\" namespace \"" + key.pluginNamespace + "\"";
}

std::string describeKeys(std::vector<CreatorKey> const& keys)
{
    std::string text;
    for (std::size_t i = 0; i < keys.size(); ++i)
    {
        text += (i == 0 ? "" : ", ") + describeKey(keys[i]);
    }
    return text;
}

} // namespace kiln::plugin
