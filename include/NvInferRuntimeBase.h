// Kiln: basic types shared by every part of the TensorRT-compatible API.
//
// Compatibility rule for every header in this set: the virtual methods that a
// plugin (or an application's logger, allocator or error recorder) overrides are
// declared WITHOUT noexcept. An override may then add noexcept (TensorRT 8/10
// style) or leave it out (TensorRT 7 style, as in the seed documents), and both
// compile. Kiln calls every such method behind a guard, so an exception thrown
// by user code becomes a reported error, never a crash.
#ifndef NV_INFER_RUNTIME_BASE_H
#define NV_INFER_RUNTIME_BASE_H

#include "NvInferVersion.h"

#include <cstddef>
#include <cstdint>

// TensorRT's headers pull in the CUDA runtime API, and plugin code relies on it.
// Kiln also builds and runs without CUDA (the CPU backend), so the stream and
// event handle types are declared here as well; repeating CUDA's typedefs is legal.
#if defined(__has_include)
#if __has_include(<cuda_runtime_api.h>)
#include <cuda_runtime_api.h>
#endif
#endif
typedef struct CUstream_st* cudaStream_t;
typedef struct CUevent_st* cudaEvent_t;

#if __cplusplus >= 201402L
#define TRT_DEPRECATED [[deprecated]]
#define TRT_DEPRECATED_BECAUSE(REASON) [[deprecated(REASON)]]
#else
#define TRT_DEPRECATED __attribute__((deprecated))
#define TRT_DEPRECATED_BECAUSE(REASON) __attribute__((deprecated(REASON)))
#endif
#define TRT_DEPRECATED_ENUM TRT_DEPRECATED
#define TRT_DEPRECATED_API TRT_DEPRECATED __attribute__((visibility("default")))
#define TRT_NODISCARD [[nodiscard]]
#define TRT_NODISCARD_BECAUSE(REASON) [[nodiscard]]

#ifdef TENSORRT_BUILD_LIB
#define TENSORRTAPI __attribute__((visibility("default")))
#else
#define TENSORRTAPI
#endif

// TensorRT 7 spelled these out; plugins of that era still use them.
#define TRTNOEXCEPT
#define _TENSORRT_FINAL final
#define _TENSORRT_OVERRIDE override

// Opaque cuDNN and cuBLAS handle types, handed to IPluginV2Ext::attachToContext.
extern "C"
{
    struct cublasContext;
    struct cudnnContext;
}

namespace nvinfer1
{

using char_t = char;
using AsciiChar = char_t;

namespace impl
{
template <typename T>
struct EnumMaxImpl;
} // namespace impl

//! The number of values of an enumeration defined by this API.
template <typename T>
constexpr int32_t EnumMax() noexcept
{
    return impl::EnumMaxImpl<T>::kVALUE;
}

enum class DataType : int32_t
{
    kFLOAT = 0,
    kHALF = 1,
    kINT8 = 2,
    kINT32 = 3,
    kBOOL = 4,
    kUINT8 = 5,
    kFP8 = 6,
    kBF16 = 7,
    kINT64 = 8,
    kINT4 = 9,
    kFP4 = 10,
    kE8M0 = 11,
};

namespace impl
{
template <>
struct EnumMaxImpl<DataType>
{
    static constexpr int32_t kVALUE = 12;
};
} // namespace impl

//! A shape: up to MAX_DIMS extents. -1 marks a dimension known only at run time.
class Dims64
{
public:
    static constexpr int32_t MAX_DIMS{8};
    int32_t nbDims;
    int64_t d[MAX_DIMS];
};

using Dims = Dims64;
using InterfaceKind = char const*;

//! The memory layout of a tensor.
enum class TensorFormat : int32_t
{
    kLINEAR = 0,
    kCHW2 = 1,
    kHWC8 = 2,
    kCHW4 = 3,
    kCHW16 = 4,
    kCHW32 = 5,
    kDHWC8 = 6,
    kCDHW32 = 7,
    kHWC = 8,
    kDLA_LINEAR = 9,
    kDLA_HWC4 = 10,
    kHWC16 = 11,
    kDHWC = 12,
};

using PluginFormat = TensorFormat;

namespace impl
{
template <>
struct EnumMaxImpl<TensorFormat>
{
    static constexpr int32_t kVALUE = 13;
};
} // namespace impl

//! Weights handed to layers and plugins: host memory that stays valid while used.
class Weights
{
public:
    DataType type;
    void const* values;
    int64_t count;
};

enum class APILanguage : int32_t
{
    kCPP = 0,
    kPYTHON = 1,
};

namespace impl
{
template <>
struct EnumMaxImpl<APILanguage>
{
    static constexpr int32_t kVALUE = 2;
};
} // namespace impl

//! Identifies an interface and its version; the kind strings are compared with strcmp.
class InterfaceInfo
{
public:
    InterfaceKind kind;
    int32_t major;
    int32_t minor;
};

//! Base of every interface that carries a version (TensorRT 10).
class IVersionedInterface
{
public:
    virtual APILanguage getAPILanguage() const
    {
        return APILanguage::kCPP;
    }
    virtual InterfaceInfo getInterfaceInfo() const = 0;
    virtual ~IVersionedInterface() noexcept = default;

protected:
    IVersionedInterface() = default;
    IVersionedInterface(IVersionedInterface const&) = default;
    IVersionedInterface(IVersionedInterface&&) = default;
    IVersionedInterface& operator=(IVersionedInterface const&) & = default;
    IVersionedInterface& operator=(IVersionedInterface&&) & = default;
};

enum class ErrorCode : int32_t
{
    kSUCCESS = 0,
    kUNSPECIFIED_ERROR = 1,
    kINTERNAL_ERROR = 2,
    kINVALID_ARGUMENT = 3,
    kINVALID_CONFIG = 4,
    kFAILED_ALLOCATION = 5,
    kFAILED_INITIALIZATION = 6,
    kFAILED_EXECUTION = 7,
    kFAILED_COMPUTATION = 8,
    kINVALID_STATE = 9,
    kUNSUPPORTED_STATE = 10,
};

namespace impl
{
template <>
struct EnumMaxImpl<ErrorCode>
{
    static constexpr int32_t kVALUE = 11;
};
} // namespace impl

namespace v_1_0
{
//! Collects errors reported by Kiln; the application implements it.
class IErrorRecorder : public IVersionedInterface
{
public:
    InterfaceInfo getInterfaceInfo() const override
    {
        return InterfaceInfo{"IErrorRecorder", 1, 0};
    }

    using ErrorDesc = char const*;
    static constexpr size_t kMAX_DESC_LENGTH{127U};
    using RefCount = int32_t;

    IErrorRecorder() = default;
    ~IErrorRecorder() noexcept override = default;

    virtual int32_t getNbErrors() const = 0;
    virtual ErrorCode getErrorCode(int32_t errorIdx) const = 0;
    virtual ErrorDesc getErrorDesc(int32_t errorIdx) const = 0;
    virtual bool hasOverflowed() const = 0;
    virtual void clear() = 0;
    virtual bool reportError(ErrorCode val, ErrorDesc desc) = 0;
    virtual RefCount incRefCount() = 0;
    virtual RefCount decRefCount() = 0;

protected:
    IErrorRecorder(IErrorRecorder const&) = default;
    IErrorRecorder(IErrorRecorder&&) = default;
    IErrorRecorder& operator=(IErrorRecorder const&) & = default;
    IErrorRecorder& operator=(IErrorRecorder&&) & = default;
};
} // namespace v_1_0

using IErrorRecorder = v_1_0::IErrorRecorder;

enum class TensorIOMode : int32_t
{
    kNONE = 0,
    kINPUT = 1,
    kOUTPUT = 2,
};

namespace impl
{
template <>
struct EnumMaxImpl<TensorIOMode>
{
    static constexpr int32_t kVALUE = 3;
};
} // namespace impl

//! Receives Kiln's log messages; the application implements it.
class ILogger
{
public:
    enum class Severity : int32_t
    {
        kINTERNAL_ERROR = 0,
        kERROR = 1,
        kWARNING = 2,
        kINFO = 3,
        kVERBOSE = 4,
    };

    virtual void log(Severity severity, AsciiChar const* msg) = 0;

    ILogger() = default;
    virtual ~ILogger() = default;

protected:
    ILogger(ILogger const&) = default;
    ILogger(ILogger&&) = default;
    ILogger& operator=(ILogger const&) & = default;
    ILogger& operator=(ILogger&&) & = default;
};

namespace impl
{
template <>
struct EnumMaxImpl<ILogger::Severity>
{
    static constexpr int32_t kVALUE = 5;
};
} // namespace impl

enum class AllocatorFlag : int32_t
{
    kRESIZABLE = 0, //!< the allocation may later be resized with reallocate
};

namespace impl
{
template <>
struct EnumMaxImpl<AllocatorFlag>
{
    static constexpr int32_t kVALUE = 1;
};
} // namespace impl

using AllocatorFlags = uint32_t;

namespace v_1_0
{
//! Device memory allocator; the application may supply its own (IRuntime::setGpuAllocator). Kiln allocates all of
//! an execution context's device memory through it: activations, constants, scratch and plugin workspaces. Kiln
//! passes alignment 256 and flags 0. A failed allocation returns nullptr; allocate(0) returns nullptr too. Calls
//! may come from several threads at once (one per execution context), so an implementation must be thread-safe.
class IGpuAllocator : public IVersionedInterface
{
public:
    //! Memory usable on every stream once this returns. Deprecated in TensorRT 10: implement allocateAsync.
    virtual void* allocate(uint64_t const size, uint64_t const alignment, AllocatorFlags const flags) = 0;
    ~IGpuAllocator() override = default;
    IGpuAllocator() = default;

    //! Grows or shrinks an allocation made with AllocatorFlag::kRESIZABLE, keeping its contents; nullptr (the old
    //! memory still valid) when it cannot. Kiln itself never asks for resizable memory.
    virtual void* reallocate(void* const /*baseAddr*/, uint64_t /*alignment*/, uint64_t /*newSize*/)
    {
        return nullptr;
    }

    //! Releases memory no work uses any more. Deprecated in TensorRT 10: implement deallocateAsync.
    virtual bool deallocate(void* const memory) = 0;

    //! Memory that work queued on `stream` after this call may use (other streams must synchronise with it first).
    virtual void* allocateAsync(
        uint64_t const size, uint64_t const alignment, AllocatorFlags const flags, cudaStream_t /*stream*/)
    {
        return allocate(size, alignment, flags);
    }

    //! Releases memory once the work queued on `stream` before this call is done.
    virtual bool deallocateAsync(void* const memory, cudaStream_t /*stream*/)
    {
        return deallocate(memory);
    }

    InterfaceInfo getInterfaceInfo() const override
    {
        return {"IGpuAllocator", 1, 0};
    }

protected:
    IGpuAllocator(IGpuAllocator const&) = default;
    IGpuAllocator(IGpuAllocator&&) = default;
    IGpuAllocator& operator=(IGpuAllocator const&) & = default;
    IGpuAllocator& operator=(IGpuAllocator&&) & = default;
};

//! An allocator that implements only the stream-ordered calls; the synchronous ones use the default stream.
class IGpuAsyncAllocator : public IGpuAllocator
{
public:
    IGpuAsyncAllocator() = default;
    ~IGpuAsyncAllocator() override = default;

    void* allocateAsync(uint64_t const size, uint64_t const alignment, AllocatorFlags const flags,
        cudaStream_t /*stream*/) override = 0;
    bool deallocateAsync(void* const memory, cudaStream_t /*stream*/) override = 0;

    void* allocate(uint64_t const size, uint64_t const alignment, AllocatorFlags const flags) override
    {
        return allocateAsync(size, alignment, flags, nullptr);
    }
    bool deallocate(void* const memory) override
    {
        return deallocateAsync(memory, nullptr);
    }

    InterfaceInfo getInterfaceInfo() const override
    {
        return {"IGpuAllocator", 1, 0};
    }

protected:
    IGpuAsyncAllocator(IGpuAsyncAllocator const&) = default;
    IGpuAsyncAllocator(IGpuAsyncAllocator&&) = default;
    IGpuAsyncAllocator& operator=(IGpuAsyncAllocator const&) & = default;
    IGpuAsyncAllocator& operator=(IGpuAsyncAllocator&&) & = default;
};
} // namespace v_1_0

using IGpuAllocator = v_1_0::IGpuAllocator;
using IGpuAsyncAllocator = v_1_0::IGpuAsyncAllocator;

//! Base of the classes that Kiln implements and hands out by pointer: no copies.
class INoCopy
{
protected:
    INoCopy() = default;
    virtual ~INoCopy() = default;
    INoCopy(INoCopy const& other) = delete;
    INoCopy& operator=(INoCopy const& other) = delete;
    INoCopy(INoCopy&& other) = delete;
    INoCopy& operator=(INoCopy&& other) = delete;
};

} // namespace nvinfer1

//! The API level as NV_TENSORRT_VERSION computes it (Kiln's own version is in NvInferVersion.h).
extern "C" TENSORRTAPI int32_t getInferLibVersion() noexcept;

#endif // NV_INFER_RUNTIME_BASE_H
