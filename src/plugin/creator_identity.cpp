#include "plugin/creator_identity.h"

#include "plugin/user_exception.h"

#include <cstring>

namespace kiln::plugin
{
namespace
{

//! Calls getter() (a method of a creator) and stores its string; false with error
//! set when it throws, or returns null and null is not allowed.
template <typename Getter>
bool readString(Getter&& getter, char const* method, std::string const& who, bool allowNull, std::string& value,
    std::string& error) noexcept
{
    try
    {
        char const* const text = getter();
        if (text == nullptr)
        {
            if (!allowNull)
            {
                error = who + " " + method + " returned null";
                return false;
            }
            value.clear();
            return true;
        }
        value = text;
        return true;
    }
    catch (...)
    {
        error = who + " " + method + " " + describeCurrentException();
        return false;
    }
}

template <typename Creator>
bool readIdentityOf(Creator const& creator, CreatorIdentity& identity, std::string& error) noexcept
{
    CreatorKey& key = identity.key;
    if (!readString(
            [&] { return creator.getPluginName(); }, "getPluginName()", "the plugin creator", false, key.name, error))
    {
        return false;
    }
    if (key.name.empty())
    {
        error = "the plugin creator's getPluginName() returned an empty name";
        return false;
    }
    std::string const who = "plugin creator \"" + key.name + "\"";
    return readString([&] { return creator.getPluginVersion(); }, "getPluginVersion()", who, false, key.version, error)
        && readString([&] { return creator.getPluginNamespace(); }, "getPluginNamespace()", who, true,
            key.pluginNamespace, error);
}

} // namespace

bool readCreatorKind(nvinfer1::IPluginCreatorInterface const& creator, CreatorKind& kind, std::string& error) noexcept
{
    try
    {
        nvinfer1::InterfaceInfo const info = creator.getInterfaceInfo();
        if (info.kind != nullptr && std::strcmp(info.kind, "PLUGIN CREATOR_V1") == 0)
        {
            kind = CreatorKind::kV2;
            return true;
        }
        if (info.kind != nullptr && std::strcmp(info.kind, "PLUGIN CREATOR_V3ONE") == 0)
        {
            kind = CreatorKind::kV3One;
            return true;
        }
        error = std::string("the plugin creator's getInterfaceInfo() reports kind \"")
            + (info.kind != nullptr ? info.kind : "(null)")
            + "\"; only \"PLUGIN CREATOR_V1\" (IPluginCreator) and \"PLUGIN CREATOR_V3ONE\" (IPluginCreatorV3One) "
              "are supported";
        return false;
    }
    catch (...)
    {
        error = "the plugin creator's getInterfaceInfo() " + describeCurrentException();
        return false;
    }
}

bool readCreatorIdentity(nvinfer1::IPluginCreatorInterface const& creator, CreatorKind kind, CreatorIdentity& identity,
    std::string& error) noexcept
{
    identity.kind = kind;
    if (kind == CreatorKind::kV2)
    {
        return readIdentityOf(static_cast<nvinfer1::IPluginCreator const&>(creator), identity, error);
    }
    return readIdentityOf(static_cast<nvinfer1::IPluginCreatorV3One const&>(creator), identity, error);
}

nvinfer1::IPluginCreator* asV2(nvinfer1::IPluginCreatorInterface* creator, CreatorKind kind) noexcept
{
    return kind == CreatorKind::kV2 ? static_cast<nvinfer1::IPluginCreator*>(creator) : nullptr;
}

nvinfer1::IPluginCreatorV3One* asV3One(nvinfer1::IPluginCreatorInterface* creator, CreatorKind kind) noexcept
{
    return kind == CreatorKind::kV3One ? static_cast<nvinfer1::IPluginCreatorV3One*>(creator) : nullptr;
}

} // namespace kiln::plugin
