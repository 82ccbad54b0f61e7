// Shared plugin resources (IPluginRegistry::acquirePluginResource / releasePluginResource):
// one registered clone per key, reference-counted.
#pragma once

#include "plugin/error_reporter.h"

#include <NvInferRuntime.h>

#include <cstdint>
#include <map>
#include <mutex>
#include <string>

namespace kiln::plugin
{

class PluginResourceTable
{
public:
    explicit PluginResourceTable(ErrorReporter const& errors)
        : mErrors(errors)
    {
    }
    PluginResourceTable(PluginResourceTable const&) = delete;
    PluginResourceTable& operator=(PluginResourceTable const&) = delete;

    //! The object registered under key, with one more reference; registers
    //! resource->clone() when key is new. nullptr (and an error) on failure.
    nvinfer1::IPluginResource* acquire(char const* key, nvinfer1::IPluginResource* resource) noexcept;

    //! Drops one reference; the last one calls release() and deletes the object.
    //! 0 on success; -1 for an unknown key or when release() fails.
    int32_t release(char const* key) noexcept;

    //! The number of references held on key; 0 when it is not registered.
    int32_t referenceCount(std::string const& key) const;

private:
    struct Entry
    {
        nvinfer1::IPluginResource* object{nullptr};
        int32_t references{0};
    };

    ErrorReporter const& mErrors;
    // Recursive: clone() and release() run under the lock (so that a key is cloned once
    // however many threads race for it) and may themselves acquire other resources.
    mutable std::recursive_mutex mMutex;
    std::map<std::string, Entry> mEntries;
};

} // namespace kiln::plugin
