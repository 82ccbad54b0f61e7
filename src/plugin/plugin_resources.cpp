#include "plugin/plugin_resources.h"

#include "plugin/user_exception.h"

namespace kiln::plugin
{

nvinfer1::IPluginResource* PluginResourceTable::acquire(char const* key, nvinfer1::IPluginResource* resource) noexcept
{
    using nvinfer1::ErrorCode;
    if (key == nullptr)
    {
        mErrors.error(ErrorCode::kINVALID_ARGUMENT, "IPluginRegistry::acquirePluginResource: the key is null");
        return nullptr;
    }
    std::string const name = "IPluginRegistry::acquirePluginResource(\"" + std::string(key) + "\")";
    if (resource == nullptr)
    {
        mErrors.error(ErrorCode::kINVALID_ARGUMENT, name + ": the resource is null");
        return nullptr;
    }
    std::lock_guard<std::recursive_mutex> lock(mMutex);
    if (auto found = mEntries.find(key); found != mEntries.end())
    {
        ++found->second.references;
        return found->second.object;
    }
    nvinfer1::IPluginResource* copy{nullptr};
    try
    {
        copy = resource->clone();
    }
    catch (...)
    {
        mErrors.error(
            ErrorCode::kFAILED_INITIALIZATION, name + ": the resource's clone() " + describeCurrentException());
        return nullptr;
    }
    if (copy == nullptr)
    {
        mErrors.error(ErrorCode::kFAILED_INITIALIZATION, name + ": the resource's clone() returned null");
        return nullptr;
    }
    try
    {
        mEntries.emplace(key, Entry{copy, 1});
    }
    catch (...)
    {
        mErrors.error(ErrorCode::kFAILED_ALLOCATION, name + ": out of memory");
        return nullptr;
    }
    return copy;
}

int32_t PluginResourceTable::release(char const* key) noexcept
{
    using nvinfer1::ErrorCode;
    if (key == nullptr)
    {
        mErrors.error(ErrorCode::kINVALID_ARGUMENT, "IPluginRegistry::releasePluginResource: the key is null");
        return -1;
    }
    std::string const name = "IPluginRegistry::releasePluginResource(\"" + std::string(key) + "\")";
    std::lock_guard<std::recursive_mutex> lock(mMutex);
    auto const found = mEntries.find(key);
    if (found == mEntries.end())
    {
        mErrors.error(ErrorCode::kINVALID_ARGUMENT, name + ": no resource is registered under this key");
        return -1;
    }
    if (--found->second.references > 0)
    {
        return 0;
    }
    nvinfer1::IPluginResource* const object = found->second.object;
    mEntries.erase(found);
    int32_t status = 0;
    try
    {
        status = object->release();
        if (status != 0)
        {
            mErrors.error(
                ErrorCode::kUNSPECIFIED_ERROR, name + ": the resource's release() returned " + std::to_string(status));
        }
    }
    catch (...)
    {
        mErrors.error(ErrorCode::kUNSPECIFIED_ERROR, name + ": the resource's release() " + describeCurrentException());
        status = -1;
    }
    // The destructor is noexcept (IVersionedInterface), so there is nothing to guard.
    delete object;
    return status == 0 ? 0 : -1;
}

int32_t PluginResourceTable::referenceCount(std::string const& key) const
{
    std::lock_guard<std::recursive_mutex> lock(mMutex);
    auto const found = mEntries.find(key);
    return found == mEntries.end() ? 0 : found->second.references;
}

} // namespace kiln::plugin
