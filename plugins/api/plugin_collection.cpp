#include "plugin_collection.h"

namespace kiln::plugins
{
namespace
{

//! Filled while the library's static objects are constructed, read only afterwards.
std::vector<CreatorFactory>& entries()
{
    static std::vector<CreatorFactory> all;
    return all;
}

} // namespace

std::vector<CreatorFactory> const& collection()
{
    return entries();
}

CollectionEntry::CollectionEntry(CreatorFactory factory)
{
    entries().push_back(std::move(factory));
}

} // namespace kiln::plugins
