// Reads what the registry needs to know about a creator (its family, name, version
// and own namespace) through calls guarded against exceptions and null strings.
#pragma once

#include "plugin/creator_key.h"

#include <NvInferRuntime.h>

#include <string>

namespace kiln::plugin
{

enum class CreatorKind
{
    kV2,    //!< nvinfer1::IPluginCreator ("PLUGIN CREATOR_V1")
    kV3One, //!< nvinfer1::IPluginCreatorV3One ("PLUGIN CREATOR_V3ONE")
};

struct CreatorIdentity
{
    CreatorKind kind{CreatorKind::kV2};
    //! Name, version and the creator's OWN getPluginNamespace() ("" when it returns null).
    CreatorKey key;
};

//! The interface kind that getInterfaceInfo() reports, compared with strcmp as TensorRT does.
//! False, with error set, for another kind or when getInterfaceInfo() throws.
bool readCreatorKind(nvinfer1::IPluginCreatorInterface const& creator, CreatorKind& kind, std::string& error) noexcept;

//! Fills identity. False, with error set, when a getter throws or the name or version is null,
//! or the name is empty. error names the method that failed.
bool readCreatorIdentity(nvinfer1::IPluginCreatorInterface const& creator, CreatorKind kind, CreatorIdentity& identity,
    std::string& error) noexcept;

//! The creator as a V2 or V3 creator; kind must be what readCreatorKind reported.
nvinfer1::IPluginCreator* asV2(nvinfer1::IPluginCreatorInterface* creator, CreatorKind kind) noexcept;
nvinfer1::IPluginCreatorV3One* asV3One(nvinfer1::IPluginCreatorInterface* creator, CreatorKind kind) noexcept;

} // namespace kiln::plugin
