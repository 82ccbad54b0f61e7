// Kiln: the plugin registry interface.
#ifndef NV_INFER_RUNTIME_COMMON_H
#define NV_INFER_RUNTIME_COMMON_H

#include "NvInferPluginBase.h"
#include "NvInferRuntimePlugin.h"

namespace nvinfer1
{

//! The application-wide registry of plugin creators, keyed by (name, version, namespace).
//! Kiln implements it; applications do not inherit from it. Every method is thread-safe.
class IPluginRegistry
{
public:
    //! What loadLibrary returns: identifies a loaded plugin library (a member type, as in TensorRT).
    using PluginLibraryHandle = void*;

    //! Registers a V2 creator under pluginNamespace. False if (name, version, namespace) is taken.
    virtual bool registerCreator(IPluginCreator& creator, AsciiChar const* const pluginNamespace) noexcept = 0;
    //! The V2 creators; nullptr when there are none. Valid until the next (de)registration.
    virtual IPluginCreator* const* getPluginCreatorList(int32_t* const numCreators) const noexcept = 0;
    //! The V2 creator registered as (name, version, namespace), or nullptr.
    virtual IPluginCreator* getPluginCreator(AsciiChar const* const pluginName, AsciiChar const* const pluginVersion,
        AsciiChar const* const pluginNamespace = "") noexcept = 0;

    IPluginRegistry() = default;
    IPluginRegistry(IPluginRegistry const&) = delete;
    IPluginRegistry(IPluginRegistry&&) = delete;
    IPluginRegistry& operator=(IPluginRegistry const&) & = delete;
    IPluginRegistry& operator=(IPluginRegistry&&) & = delete;

protected:
    virtual ~IPluginRegistry() noexcept = default;

public:
    virtual void setErrorRecorder(IErrorRecorder* const recorder) noexcept = 0;
    virtual IErrorRecorder* getErrorRecorder() const noexcept = 0;
    virtual bool deregisterCreator(IPluginCreator const& creator) noexcept = 0;
    virtual bool isParentSearchEnabled() const = 0;
    virtual void setParentSearchEnabled(bool const enabled) = 0;
    //! dlopens a plugin library and registers the creators it exports through
    //! getCreators (or getPluginCreators), or through static REGISTER_TENSORRT_PLUGIN
    //! initialisers. nullptr on failure, with the reason logged.
    virtual PluginLibraryHandle loadLibrary(AsciiChar const* pluginPath) noexcept = 0;
    virtual void deregisterLibrary(PluginLibraryHandle handle) noexcept = 0;
    virtual bool registerCreator(IPluginCreatorInterface& creator, AsciiChar const* const pluginNamespace) noexcept = 0;
    virtual IPluginCreatorInterface* const* getAllCreators(int32_t* const numCreators) const noexcept = 0;
    virtual IPluginCreatorInterface* getCreator(AsciiChar const* const pluginName, AsciiChar const* const pluginVersion,
        AsciiChar const* const pluginNamespace = "") noexcept = 0;
    virtual bool deregisterCreator(IPluginCreatorInterface const& creator) noexcept = 0;
    //! Registers a clone of resource under key (or finds the one there) and counts a reference.
    virtual IPluginResource* acquirePluginResource(AsciiChar const* key, IPluginResource* resource) noexcept = 0;
    //! Drops a reference; at zero the resource is released and deleted. 0 on success.
    virtual int32_t releasePluginResource(AsciiChar const* key) noexcept = 0;
    virtual IPluginCreatorInterface* const* getAllCreatorsRecursive(int32_t* const numCreators) noexcept = 0;
};

} // namespace nvinfer1

#endif // NV_INFER_RUNTIME_COMMON_H
