// The identity of a registered plugin creator: (name, version, namespace), each
// compared as an exact string ("1" and "001" are different versions).
#pragma once

#include <string>
#include <tuple>
#include <vector>

namespace kiln::plugin
{

struct CreatorKey
{
    std::string name;
    std::string version;
    std::string pluginNamespace;

    friend bool operator<(CreatorKey const& lhs, CreatorKey const& rhs) noexcept
    {
        return std::tie(lhs.name, lhs.version, lhs.pluginNamespace)
            < std::tie(rhs.name, rhs.version, rhs.pluginNamespace);
    }
    friend bool operator==(CreatorKey const& lhs, CreatorKey const& rhs) noexcept
    {
        return lhs.name == rhs.name && lhs.version == rhs.version && lhs.pluginNamespace == rhs.pluginNamespace;
    }
};

//! The key as messages show it: "Name" version "1" namespace "ns".
std::string describeKey(CreatorKey const& key);

//! The keys as messages show them, separated by ", ".
std::string describeKeys(std::vector<CreatorKey> const& keys);

} // namespace kiln::plugin
