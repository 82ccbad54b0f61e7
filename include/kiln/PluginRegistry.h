// Kiln extension: questions about plugin creators that IPluginRegistry does not answer. For applications that look
// plugins up by name from a format of their own (as Kiln's ONNX parser does) and for tools that list them.
#pragma once

#include <NvInferRuntime.h>

#include <string>

namespace kiln
{

//! The creator that registry holds under (name, version, namespace), IPluginV2 or IPluginV3 family; nullptr when
//! there is none. Unlike IPluginRegistry::getCreator, a missing creator is no error: for callers that ask about
//! plugins that may well not exist (a parser trying a node as a plugin) and write their own message when it matters.
TENSORRTAPI nvinfer1::IPluginCreatorInterface* findPluginCreator(
    nvinfer1::IPluginRegistry& registry, char const* name, char const* version, char const* pluginNamespace) noexcept;

//! What Kiln's messages add for a creator that registry lacks: "Closest registered creators: "Name" version "1"
//! namespace "", ..." (those of the same name with another version or namespace first, then by the edit distance of
//! the name, ignoring case), or "The plugin registry is empty.". Works on any IPluginRegistry.
TENSORRTAPI std::string describeClosestPluginCreators(
    nvinfer1::IPluginRegistry& registry, char const* name, char const* version, char const* pluginNamespace) noexcept;

//! The shared library that creator, registered in getPluginRegistry(), came from, as an absolute path: the library
//! given to loadLibrary, or the one the loader reports holding the creator (libraries the application opened
//! itself). Empty for the main program, for the creators built into Kiln's libraries, and for creators that are not
//! registered.
TENSORRTAPI std::string pluginLibraryOf(nvinfer1::IPluginCreatorInterface const& creator) noexcept;

} // namespace kiln
