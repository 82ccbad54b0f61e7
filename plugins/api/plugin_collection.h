// The list of Kiln's own plugins. Each plugin's source adds its creator with KILN_COLLECT_PLUGIN when the library
// loads, so adding a plugin touches no shared file.
#pragma once

#include <NvInferRuntime.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace kiln::plugins
{

//! Makes a creator whose plugins live in the given namespace.
using CreatorFactory = std::function<std::unique_ptr<nvinfer1::IPluginCreatorInterface>(std::string const& ns)>;

//! Every plugin of the collection, in the order their sources were loaded.
std::vector<CreatorFactory> const& collection();

//! Adds a factory to the collection; a static one per plugin (KILN_COLLECT_PLUGIN).
class CollectionEntry
{
public:
    explicit CollectionEntry(CreatorFactory factory);
};

} // namespace kiln::plugins

#define KILN_PLUGIN_JOIN_(a, b) a##b
#define KILN_PLUGIN_JOIN(a, b) KILN_PLUGIN_JOIN_(a, b)

//! Adds the creator type `Creator` (constructed from the namespace) to the collection.
#define KILN_COLLECT_PLUGIN(Creator)                                                                                   \
    namespace                                                                                                          \
    {                                                                                                                  \
    ::kiln::plugins::CollectionEntry const KILN_PLUGIN_JOIN(kilnCollectionEntry, __LINE__){                            \
        [](std::string const& ns) -> std::unique_ptr<nvinfer1::IPluginCreatorInterface> {                              \
            return std::make_unique<Creator>(ns);                                                                      \
        }};                                                                                                            \
    }
