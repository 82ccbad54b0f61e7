// Kiln: plugin fields, phases and capabilities, and the IPluginV3 root interface.
#ifndef NV_INFER_PLUGIN_BASE_H
#define NV_INFER_PLUGIN_BASE_H

#include "NvInferRuntimeBase.h"

namespace nvinfer1
{

//! Element type of a PluginField's data.
enum class PluginFieldType : int32_t
{
    kFLOAT16 = 0,
    kFLOAT32 = 1,
    kFLOAT64 = 2,
    kINT8 = 3,
    kINT16 = 4,
    kINT32 = 5,
    kCHAR = 6,
    kDIMS = 7,    //!< nvinfer1::Dims
    kUNKNOWN = 8, //!< raw bytes; length counts bytes
    kBF16 = 9,
    kINT64 = 10,
    kFP8 = 11,
    kINT4 = 12,
    kFP4 = 13,
};

namespace impl
{
template <>
struct EnumMaxImpl<PluginFieldType>
{
    static constexpr int32_t kVALUE = 14;
};
} // namespace impl

//! One named plugin attribute. length counts elements, not bytes (except kUNKNOWN).
class PluginField
{
public:
    AsciiChar const* name;
    void const* data;
    PluginFieldType type;
    int32_t length;

    PluginField(AsciiChar const* const name_ = nullptr, void const* const data_ = nullptr,
        PluginFieldType const type_ = PluginFieldType::kUNKNOWN, int32_t const length_ = 0) noexcept
        : name(name_)
        , data(data_)
        , type(type_)
        , length(length_)
    {
    }
};

struct PluginFieldCollection
{
    int32_t nbFields{};
    PluginField const* fields{};
};

//! When a V3 plugin is created: while a network is built, or when a plan is loaded.
enum class TensorRTPhase : int32_t
{
    kBUILD = 0,
    kRUNTIME = 1,
};

namespace impl
{
template <>
struct EnumMaxImpl<TensorRTPhase>
{
    static constexpr int32_t kVALUE = 2;
};
} // namespace impl

enum class PluginCapabilityType : int32_t
{
    kCORE = 0,
    kBUILD = 1,
    kRUNTIME = 2,
};

namespace impl
{
template <>
struct EnumMaxImpl<PluginCapabilityType>
{
    static constexpr int32_t kVALUE = 3;
};
} // namespace impl

namespace v_1_0
{
//! Marker base of the V3 capability interfaces (core, build, runtime).
class IPluginCapability : public IVersionedInterface
{
};

//! A resource shared between plugins through IPluginRegistry::acquirePluginResource.
class IPluginResource : public IVersionedInterface
{
public:
    InterfaceInfo getInterfaceInfo() const override
    {
        return InterfaceInfo{"IPluginResource", 1, 0};
    }
    //! Frees what this object holds. Called only on objects made by clone().
    virtual int32_t release() = 0;
    //! A copy that owns its own, initialised resource; nullptr on failure.
    virtual IPluginResource* clone() = 0;

    ~IPluginResource() noexcept override = default;
    IPluginResource() = default;
    IPluginResource(IPluginResource const&) = default;
    IPluginResource(IPluginResource&&) = default;
    IPluginResource& operator=(IPluginResource const&) & = default;
    IPluginResource& operator=(IPluginResource&&) & = default;
};

//! Base of both creator families (IPluginCreator and IPluginCreatorV3One).
class IPluginCreatorInterface : public IVersionedInterface
{
public:
    ~IPluginCreatorInterface() noexcept override = default;

protected:
    IPluginCreatorInterface() = default;
    IPluginCreatorInterface(IPluginCreatorInterface const&) = default;
    IPluginCreatorInterface(IPluginCreatorInterface&&) = default;
    IPluginCreatorInterface& operator=(IPluginCreatorInterface const&) & = default;
    IPluginCreatorInterface& operator=(IPluginCreatorInterface&&) & = default;
};

//! The root of a V3 plugin. Its capabilities are reached only through getCapabilityInterface.
class IPluginV3 : public IVersionedInterface
{
public:
    InterfaceInfo getInterfaceInfo() const override
    {
        return InterfaceInfo{"PLUGIN", 1, 0};
    }
    virtual IPluginCapability* getCapabilityInterface(PluginCapabilityType type) = 0;
    //! A fully initialised copy (not const, unlike IPluginV2::clone).
    virtual IPluginV3* clone() = 0;
};
} // namespace v_1_0

using IPluginCapability = v_1_0::IPluginCapability;
using IPluginResource = v_1_0::IPluginResource;
using IPluginCreatorInterface = v_1_0::IPluginCreatorInterface;
using IPluginV3 = v_1_0::IPluginV3;

} // namespace nvinfer1

#endif // NV_INFER_PLUGIN_BASE_H
